package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// "start" and "idle_timeout_ms": defaults by transport, and errors that
// name the file, the server and the field.
func TestStartModeAndIdleTimeout(t *testing.T) {
	dir := t.TempDir()
	global := filepath.Join(dir, "g.json")
	writeFile(t, global, `{"version":1,"mcp":{"servers":{
		"local": {"command": "x"},
		"remote": {"url": "https://x.example"},
		"eagerlocal": {"command": "x", "start": "eager", "idle_timeout_ms": 0},
		"lazyremote": {"url": "https://x.example", "start": "lazy", "idle_timeout_ms": 1500},
		"badstart": {"command": "x", "start": "sometimes"},
		"badidle": {"command": "x", "idle_timeout_ms": -5}}}}`)
	eff, err := Load(LoadOptions{GlobalPath: global})
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]struct {
		mode string
		idle time.Duration
	}{
		"local":      {StartLazy, DefaultIdleTimeout},
		"remote":     {StartEager, DefaultIdleTimeout},
		"eagerlocal": {StartEager, 0},
		"lazyremote": {StartLazy, 1500 * time.Millisecond},
	} {
		e := entryByID(t, eff, id)
		if e.Err != nil {
			t.Fatalf("%s: %v", id, e.Err)
		}
		if got := e.Config.StartMode(); got != want.mode {
			t.Errorf("%s: start mode %q, want %q", id, got, want.mode)
		}
		if got := e.Config.IdleTimeout(); got != want.idle {
			t.Errorf("%s: idle timeout %s, want %s", id, got, want.idle)
		}
	}
	for id, want := range map[string]string{
		"badstart": `field "start": must be "eager" or "lazy", got "sometimes"`,
		"badidle":  `field "idle_timeout_ms": must not be negative`,
	} {
		e := entryByID(t, eff, id)
		if e.Err == nil || !strings.Contains(e.Err.Error(), want) || !strings.Contains(e.Err.Error(), global) || !strings.Contains(e.Err.Error(), `"`+id+`"`) {
			t.Errorf("%s: err = %v, want file, id and %q", id, e.Err, want)
		}
	}
}
