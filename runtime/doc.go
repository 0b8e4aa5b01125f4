// Package runtime is the MCP host's heart: the server manager (one goroutine
// and state machine per server) and its status snapshots, agent runs over
// the tools of ready servers, and login orchestration. Configuration lives
// in runtime/config; serving the UI protocol lives in runtime/serve.
//
// It must not import runtime/serve or cmd/; core, session, auth, adapter and
// permission must not import it.
//
// The package is named after the layout's directory; importers that also
// need the standard library's runtime package should rename one of them.
package runtime
