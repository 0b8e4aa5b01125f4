package main

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"testing"
)

// The host uses host-sandbox beside it as the launcher when it is an
// executable file there, and itself otherwise.
func TestLauncherPath(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("no sandbox launcher on Windows (and no executable bit)")
	}
	dir := t.TempDir()
	self := filepath.Join(dir, "host")
	if got := launcherPath(self); got != self {
		t.Errorf("no host-sandbox: launcher %s, want the host itself", got)
	}
	side := filepath.Join(dir, launcherName)
	if err := os.WriteFile(side, []byte("not executable"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := launcherPath(self); got != self {
		t.Errorf("host-sandbox not executable: launcher %s, want the host itself", got)
	}
	if err := os.Chmod(side, 0o700); err != nil {
		t.Fatal(err)
	}
	if got := launcherPath(self); got != side {
		t.Errorf("launcher %s, want %s", got, side)
	}
}
