package approval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func def() Definition {
	return Definition{
		Transport: "stdio",
		Command:   "npx",
		Args:      []string{"-y", "some-server"},
		Env:       map[string]string{"TOKEN": "${GH_TOKEN}", "MODE": "x"},
		Headers:   []string{"X-B", "x-a"},
	}
}

func TestDigestPinsWhatRuns(t *testing.T) {
	base := def().Digest()
	same := def()
	same.Headers = []string{"X-A", "x-b"} // order and case of header names do not matter
	if got := same.Digest(); got != base {
		t.Errorf("reordered header names changed the digest")
	}
	for name, change := range map[string]func(*Definition){
		"command":   func(d *Definition) { d.Command = "sh" },
		"args":      func(d *Definition) { d.Args = append(d.Args, "--evil") },
		"arg order": func(d *Definition) { d.Args = []string{"some-server", "-y"} },
		"cwd":       func(d *Definition) { d.Cwd = "/tmp" },
		"env value": func(d *Definition) { d.Env = map[string]string{"TOKEN": "${GH_TOKEN}", "MODE": "y"} },
		"env name":  func(d *Definition) { d.Env = map[string]string{"TOKEN": "${GH_TOKEN}", "LD_PRELOAD": "x"} },
		"env_vars":  func(d *Definition) { d.EnvVars = []string{"GITHUB_TOKEN"} },
		"url":       func(d *Definition) { d.URL = "https://evil.example" },
		"header":    func(d *Definition) { d.Headers = append(d.Headers, "Cookie") },
		"transport": func(d *Definition) { d.Transport = "http" },
	} {
		d := def()
		change(&d)
		if d.Digest() == base {
			t.Errorf("changing the %s left the digest unchanged", name)
		}
	}
}

func TestSummaryShowsLiteralFields(t *testing.T) {
	got := strings.Join(def().Summary(), "\n")
	for _, want := range []string{"command: npx", `args: ["-y","some-server"]`, "env: MODE=x TOKEN=${GH_TOKEN}", "headers: x-a, x-b"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
}

func TestStoreDecisions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "approvals.json")
	s, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	proj := "/home/u/repo/.mcp-host/config.json"
	d := def().Digest()
	if got := s.Lookup(proj, "github", d); got != Unknown {
		t.Fatalf("fresh store: %s", got)
	}
	if err := s.Approve(proj, "github", d); err != nil {
		t.Fatal(err)
	}
	if got := s.Lookup(proj, "github", d); got != Approved {
		t.Fatalf("after approve: %s", got)
	}
	if got := s.Lookup("/other/repo/.mcp-host/config.json", "github", d); got != Unknown {
		t.Errorf("an approval in one project applied to another: %s", got)
	}
	changed := def()
	changed.Args = append(changed.Args, "--evil")
	if got := s.Lookup(proj, "github", changed.Digest()); got != Changed {
		t.Errorf("changed definition: %s, want %s", got, Changed)
	}

	// Another process (a second store on the same file) sees the answer,
	// and a deny it records is seen by the first.
	s2, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := s2.Lookup(proj, "github", d); got != Approved {
		t.Fatalf("second store: %s", got)
	}
	if err := s2.Deny(proj, "github", d); err != nil {
		t.Fatal(err)
	}
	if got := s.Lookup(proj, "github", d); got != Denied {
		t.Errorf("first store after the other's deny: %s", got)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestStoreRefusesEmptyKeys(t *testing.T) {
	s, _ := OpenStore("")
	if err := s.Approve("", "x", "d"); err == nil {
		t.Error("approve with no project: no error")
	}
}

func TestStoreBadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "approvals.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenStore(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("bad file: err %v, want one naming %s", err, path)
	}
}
