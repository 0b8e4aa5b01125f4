// Package archtest holds no code, only tests that keep mcp-host's
// architecture as docs/ARCHITECTURE.md draws it: which packages may depend
// on which (core on nothing of MCP or the runtime, protocol on no runtime
// package, the runtime's parts on neither the manager nor the UI server,
// nothing on cmd/), and no Go file over 500 lines except generated ones.
//
// It must not be imported by anything.
package archtest
