package sandbox

import (
	"os"
	"testing"
)

// TestMain lets the test binary be the launcher (as the host binary is)
// and the probe server the launcher starts.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == LauncherArg {
		os.Exit(LauncherMain(os.Args[2:]))
	}
	if os.Getenv("SANDBOX_PROBE") == "1" {
		os.Exit(probeMain(os.Args[1:]))
	}
	os.Exit(m.Run())
}
