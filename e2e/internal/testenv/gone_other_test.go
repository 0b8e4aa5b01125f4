//go:build !unix

package testenv

import "os"

// gone reports that no process has the pid.
func gone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	p.Release()
	return false
}
