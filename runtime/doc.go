// Package runtime is the MCP host: configuration (layered files, validation,
// ${VAR} expansion, editing, import from other hosts), the server manager
// (one goroutine and state machine per server) and its status snapshots.
//
// The package is named after the layout's directory; importers that also
// need the standard library's runtime package should rename one of them.
package runtime
