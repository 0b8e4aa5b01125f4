// Package sandbox confines local (stdio) MCP servers: the "sandbox" policy a
// config file writes ([Policy]), the policy resolved for one server start
// ([Resolve], [Effective]), its one-line [Effective.Summary] for status and
// approval prompts, and the OS mechanism that enforces it ([Wrap]).
//
// On Linux the start function [Wrap] returns applies Landlock (filesystem,
// TCP, signal and abstract-socket scoping) and a seccomp filter to a
// thread of the host that then forks and execs the server and ends, so the
// rules hold for the server and every child it starts and never for the
// host. On macOS the same
// policy becomes a Seatbelt profile run through sandbox-exec ([Profile]).
// Windows is not sandboxed: only the environment allowlist applies there.
//
// See docs/SANDBOX.md for the decisions and their limits.
package sandbox
