package e2e_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// /mcp <id> in host chat, in a real tmux pane of 60 and of 100 columns,
// for a server whose start the sandbox refused: the box, its top border
// on screen, shows the sandbox's reads, writes (the granted directory by
// its real path) and network, and the last error with the refused path,
// the server's stderr and the exact grant that would let it start; each
// row wrapped under its value (issue 36 item 5).
func TestChatSandboxDetail(t *testing.T) {
	t.Parallel() // waits on processes most of its time (package doc: Parallel tests)
	requireTmux(t)
	for _, width := range []int{60, 100} {
		t.Run(strconv.Itoa(width), func(t *testing.T) { chatSandboxDetail(t, width) })
	}
}

func chatSandboxDetail(t *testing.T, width int) {
	s := newSandboxHome(t)
	// As TestSandboxDeniedHint: a server that needs a file in home, which
	// strict does not read; it may write a directory of its own.
	prog := filepath.Join(s.home, "bin", "server")
	notes := filepath.Join(s.home, "notes.txt")
	data := filepath.Join(t.TempDir(), "data")
	for _, d := range []string{filepath.Dir(prog), data} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(prog, []byte("#!/bin/sh\ncat "+notes+" >/dev/null || exit 1\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := `{"version":1,"mcp":{"servers":{"probe":{"command":` + quote(prog) + `,"sandbox":{"base":"strict","filesystem":{"write":[` + quote(data) + `]}}}}}}`
	if err := os.WriteFile(s.global, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	c := startChatWith(t, chatLaunch{session: "mcp-host-chatsandbox-" + strconv.Itoa(width) + "-" + filepath.Base(filepath.Dir(dir)), bin: buildHost(t),
		dir: dir, config: s.global, cwd: s.project, width: width, height: 40, env: []string{"HOME=" + s.home}})
	c.waitText("probe: error")

	c.typeLine("/mcp probe")
	visible := func() string { return c.tmux("capture-pane", "-t", c.session, "-p") }
	c.waitFor("the box of /mcp probe", func(string) bool { return strings.Contains(visible(), "│ server:") })
	v := visible()
	checkFits(t, v, width)
	lines := strings.Split(v, "\n")
	top, bottom := -1, -1
	for i, l := range lines {
		if strings.HasPrefix(l, "╭") && top < 0 {
			top = i
		}
		if strings.HasPrefix(l, "╰") {
			bottom = i
		}
	}
	if top < 0 || bottom < top {
		t.Fatalf("the box's top or bottom border is not on screen:\n%s", v)
	}
	box := lines[top+1 : bottom]
	var content []string
	for _, l := range box {
		l = strings.TrimRight(l, " ")
		if !strings.HasPrefix(l, "│") || !strings.HasSuffix(l, "│") {
			t.Errorf("a cut line in the box: %q", l)
			continue
		}
		content = append(content, strings.TrimSuffix(strings.TrimPrefix(l, "│ "), "│"))
	}
	// The words and paths, whitespace (and so the wraps) left out: a path
	// longer than the room is broken over lines.
	squeezed := strings.Join(strings.Fields(strings.Join(content, "")), "")
	want := map[string]string{
		"reads":                    "strict:readssystem",
		"writes, by its real path": data,
		"network":                  "networknone",
		"the refused path":         "thesandboxdenied" + notes,
		"the stderr":               "cat:" + notes + ":Permissiondenied",
		"the grant":                `grantitwith"sandbox":{"filesystem":{"read":[` + quote(notes) + `]}}(or"write")`,
	}
	for what, w := range want {
		if !strings.Contains(squeezed, w) {
			t.Errorf("the box lacks %s (%s):\n%s", what, w, v)
		}
	}
	// Hanging indent: the last error continues under its value, up to the
	// next row or the box's end.
	at := -1
	for i, l := range content {
		if strings.HasPrefix(l, "last error:") {
			at = i
		}
	}
	if at < 0 || at+1 >= len(content) {
		t.Fatalf("no last error row, or it is not wrapped:\n%s", v)
	}
	value := regexp.MustCompile(`^last error: +`).FindString(content[at])
	cont := regexp.MustCompile(`^ {` + strconv.Itoa(len(value)) + `}\S`)
	for _, l := range content[at+1:] {
		if regexp.MustCompile(`^[a-z][a-z ()]*:( |$)`).MatchString(l) || strings.HasPrefix(l, "… ") {
			break // the next row, or the count of rows a short pane leaves out
		}
		if !cont.MatchString(l) {
			t.Errorf("a line of the last error is not under its value: %q\n%s", l, v)
		}
	}
}
