//go:build !unix

package sandbox

import "os/exec"

// ownSession: sessions and controlling terminals are Unix's.
func ownSession(*exec.Cmd) {}
