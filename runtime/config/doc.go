// Package config is mcp-host's configuration: the JSON file format, its
// layers (global, project, MCP_HOST_SERVERS) merged by server id, validation
// that names the file, the server and the field, ${VAR} expansion at connect
// time, editing a file in place without losing unknown keys, and import of
// the mcpServers format other hosts use.
//
// It is a leaf of the runtime: it must not import the runtime, its serve,
// session, auth, adapter or permission packages, the MCP SDK, or cmd/.
package config
