// Package runtime is the MCP host's heart: the server manager (one goroutine
// and state machine per server) and its status snapshots, the catalog of the
// ready servers' adapted tools, and login orchestration. Configuration lives
// in runtime/config; agent runs over the manager's servers live in
// runtime/agentrun; serving the UI protocol lives in runtime/serve.
//
// It must not import runtime/agentrun, runtime/serve or cmd/; core, session,
// auth, adapter and permission must not import it.
//
// The package is named after the layout's directory; importers that also
// need the standard library's runtime package should rename one of them.
package runtime
