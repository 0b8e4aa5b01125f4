// Command host-sandbox is mcp-host's sandbox launcher on its own: what the
// hidden "host __sandbox-exec" does, in a binary that links nothing but
// runtime/sandbox. A sandboxed stdio server then starts without the host's
// package initialisation (terminal detection, clipboard lookup: about 4 ms
// of every start, docs/SANDBOX.md). The host uses it when it lies next to
// the host binary (make build puts it there), and runs itself as the
// launcher otherwise. It is not meant to be run by hand.
package main

import (
	"fmt"
	"os"

	"github.com/mcp-host/mcp-host/runtime/sandbox"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != sandbox.LauncherArg {
		fmt.Fprintln(os.Stderr, "host-sandbox: mcp-host's sandbox launcher, started by host; not for direct use")
		os.Exit(2)
	}
	os.Exit(sandbox.LauncherMain(os.Args[2:]))
}
