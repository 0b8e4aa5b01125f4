//go:build !unix

package session

import "os/exec"

func setProcessGroup(*exec.Cmd) {}

func signalGroup(cmd *exec.Cmd, _ bool) { _ = cmd.Process.Kill() }

func groupAlive(*exec.Cmd) bool { return false }
