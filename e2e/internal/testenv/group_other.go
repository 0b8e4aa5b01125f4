//go:build !unix

package testenv

import "os/exec"

// OwnGroup leaves cmd as it is: the e2e peers run on unix only; this file
// keeps the package building on other systems.
func OwnGroup(cmd *exec.Cmd) {}

// KillGroup kills cmd itself (no process groups here).
func KillGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
