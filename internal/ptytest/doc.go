// Package ptytest opens pseudo-terminals for tests: the terminal a user's
// shell has, which a sandboxed server must not reach. Linux only.
package ptytest
