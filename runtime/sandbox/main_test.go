package sandbox

import (
	"os"
	"testing"
)

// TestMain lets the test binary be the probe server the sandbox starts.
func TestMain(m *testing.M) {
	if os.Getenv("SANDBOX_PROBE") == "1" {
		os.Exit(probeMain(os.Args[1:]))
	}
	os.Exit(m.Run())
}
