// Package process starts local (stdio) MCP servers and ends them: it builds
// a server's command (Windows command resolution included), gives it an
// environment by allowlist instead of the host's own, runs it in a process
// tree of its own (a process group and child subreaper on Linux, a Job
// Object on Windows), keeps the tail of its stderr, and shuts the whole tree
// down in bounded time. It knows nothing of MCP: the session speaks the
// protocol over the pipes a [Process] gives it.
package process
