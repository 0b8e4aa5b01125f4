// Package e2e holds the end-to-end tests of mcp-host: the runtime against
// real MCP servers from npm (started by the tests), the official conformance
// suite, and benchmarks. Missing tools skip loudly, and fail when
// E2E_REQUIRED=1; scripts/deps.sh installs them.
//
// # Parallel tests
//
// Most tests spend their time waiting on the processes they start (npm
// servers, host serve, chromium, tmux, an authorization server): the
// package alone kept the 2-core reference machine 37% busy over 488 s.
// Such tests call t.Parallel, and make test runs them three at a time
// (go test -parallel 3), which took the package to about half that time.
// A test that calls t.Parallel must own everything it touches: its
// directories (t.TempDir, its own MCP_HOST_CACHE_DIR, HOME and config),
// its listeners (port 0), its tmux session (named after its directory)
// and its processes (found by a path of its own, never by name). Tests
// that measure memory (measuresMemory) or time stay serial: they run
// before the parallel ones, alone.
package e2e
