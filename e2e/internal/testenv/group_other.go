//go:build !unix

package testenv

import "os/exec"

// ownGroup leaves cmd as it is: the e2e peers run on unix only; this file
// keeps the package building on other systems.
func ownGroup(cmd *exec.Cmd) {}

// killGroup kills cmd itself (no process groups here).
func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
