package main

import (
	"path/filepath"
	"slices"
	"testing"
)

// The host serve that chat and web start gets every model flag they were
// given: --script-log was taken by chat and web and dropped.
func TestServeChildPassesModelFlags(t *testing.T) {
	log := filepath.Join(t.TempDir(), "chat.log")
	argv, _, err := serveChild("chat", modelFlags{script: "s.json", scriptLog: "calls.jsonl"}, "perms.json", log)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range [][2]string{{"--script", "s.json"}, {"--script-log", "calls.jsonl"}, {"--permissions", "perms.json"}} {
		i := slices.Index(argv, want[0])
		if i < 0 || i+1 >= len(argv) || argv[i+1] != want[1] {
			t.Errorf("serve child %q lacks %s %s", argv, want[0], want[1])
		}
	}
}
