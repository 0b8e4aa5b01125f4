package web

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

// pageScripts returns the page's own scripts (not the generated module).
func pageScripts(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	names, err := fs.Glob(static, "static/*.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if n == "static/protocol.js" {
			continue
		}
		data, err := fs.ReadFile(static, n)
		if err != nil {
			t.Fatal(err)
		}
		out[n] = string(data)
	}
	return out
}

// generatedNames returns the keys of the object table name in the
// generated protocol.js ("export const NAME = Object.freeze({ key: …").
func generatedNames(t *testing.T, module, name string) map[string]bool {
	t.Helper()
	start := strings.Index(module, "export const "+name+" = Object.freeze({\n")
	if start < 0 {
		t.Fatalf("protocol.js has no table %s", name)
	}
	block := module[start:]
	block = block[:strings.Index(block, "\n});")]
	keys := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  "?([\w.]+)"?: `).FindAllStringSubmatch(block, -1) {
		keys[m[1]] = true
	}
	return keys
}

// The page speaks the protocol only through the generated protocol.js:
// it writes no protocol method name of its own, and every request
// function, notification name and error kind it uses is in the generated
// tables, so a change of the schema that the page does not follow fails
// here (after make protocol) rather than in a person's browser. Every
// request the runtime may send the UI has a card.
func TestPageUsesGeneratedProtocol(t *testing.T) {
	module, err := fs.ReadFile(static, "static/protocol.js")
	if err != nil {
		t.Fatalf("the page has no generated protocol module: %v", err)
	}
	mod := string(module)
	methods := map[string]bool{}
	for _, m := range regexp.MustCompile(`\{ name: "([^"]+)"`).FindAllStringSubmatch(mod, -1) {
		methods[m[1]] = true
	}
	uses := []struct{ re, table string }{
		{`\brpc\.(\w+)`, "REQUESTS"},
		{`\b(?:N|notifications)\.(\w+)`, "NOTIFICATIONS"},
		{`\bERROR_CODES\.(\w+)`, "ERROR_CODES"},
	}
	quoted := regexp.MustCompile(`['"]([a-z_]+(?:\.[a-z_]+)+)['"]`)
	for file, src := range pageScripts(t) {
		for _, m := range quoted.FindAllStringSubmatch(src, -1) {
			if methods[m[1]] {
				t.Errorf("%s names the protocol method %q itself: use protocol.js (rpc, NOTIFICATIONS, UI_HANDLERS)", file, m[1])
			}
		}
		for _, u := range uses {
			names := generatedNames(t, mod, u.table)
			for _, m := range regexp.MustCompile(u.re).FindAllStringSubmatch(src, -1) {
				if !names[m[1]] {
					t.Errorf("%s uses %s, which protocol.js's %s does not have", file, m[0], u.table)
				}
			}
		}
	}
	app := pageScripts(t)["static/app.js"]
	for _, m := range regexp.MustCompile(`(?m)^  "[^"]+": "(\w+)",$`).FindAllStringSubmatch(mod[strings.Index(mod, "UI_HANDLERS"):strings.Index(mod, "PARAMS")], -1) {
		if !strings.Contains(app, "case '"+m[1]+"':") {
			t.Errorf("app.js has no card for the runtime's %s requests", m[1])
		}
	}
}
