// Package confine applies a stdio server's confinement to the calling
// thread just before it execs the server: no new privileges, the Landlock
// ruleset, no capabilities, the seccomp filter. The host calls [Restrict]
// on a thread of its own that starts the server and then ends.
//
// It is also the host-confine helper ([Main]), which the host starts in a
// user and mount namespace of the server's own when the server may write
// a directory that holds files which run code later outside the sandbox
// (a repository's .git/hooks and .git/config, .vscode, .envrc): Landlock
// cannot keep a subdirectory of a writable tree read-only, and a thread
// under Landlock may no longer mount, so the helper first binds those
// paths read-only over themselves ([Plan]), then restricts itself and
// execs the server. The helper links nothing but x/sys (a static binary
// that no dynamic loader starts): it runs on every such start, and its
// start is the cost.
package confine
