// Command prebuild builds what the e2e tests would otherwise build inside
// their own time, into the same cache the tests read: today the MCP
// registry server (testenv.BuildRegistry). scripts/test.sh runs it beside
// the package installs, which wait on the network, not the CPU.
package main

import (
	"fmt"
	"os"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

func main() {
	bin, err := testenv.BuildRegistry()
	if err != nil {
		fmt.Fprintf(os.Stderr, "prebuild: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("prebuild: registry server ready: %s\n", bin)
}
