// Command host-confine is mcp-host's sandbox helper on Linux: the host
// starts it in a user and mount namespace of a local server's own to
// keep the files that run code later read-only inside the server's
// writable places, confine it, and exec the server. See package
// [github.com/mcp-host/mcp-host/runtime/sandbox/confine] and
// docs/SANDBOX.md. It is installed beside host; it is not run by hand.
package main

import "github.com/mcp-host/mcp-host/runtime/sandbox/confine"

func main() { confine.Main() }
