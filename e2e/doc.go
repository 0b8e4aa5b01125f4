// Package e2e holds the end-to-end tests of mcp-host: the runtime against
// real MCP servers from npm (started by the tests), the official conformance
// suite, and benchmarks. Missing tools skip loudly, and fail when
// E2E_REQUIRED=1; scripts/deps.sh installs them.
package e2e
