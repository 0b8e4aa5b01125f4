// Package registry is a client of the MCP Registry API v0.1 (the official
// registry at https://registry.modelcontextprotocol.io and any registry that
// serves the same API, such as an organization's sub-registry) and turns a
// registry entry (server.json, schema 2025-12-11) into a configuration
// entry.
//
// It lists and searches servers with cursor paging (capped), fetches one
// version, keeps only entries whose registry status is "active", reads every
// answer through a size cap, and keeps a small cache in the user's cache
// directory whose age it reports. [Plan] maps a package (npm, pypi, oci,
// nuget, mcpb) or a remote to what the host will run, and says which
// variables the user must supply and which secrets must come from the
// environment: a secret is never put into an entry, only a ${VAR}
// reference. [InstallBundle] downloads an MCPB bundle, checks its SHA-256,
// and unpacks it with size caps and no path escaping its directory.
//
// It is a part of the runtime: it must not import the runtime or its serve
// package.
package registry
