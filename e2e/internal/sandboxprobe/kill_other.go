//go:build !unix

package main

import (
	"errors"
	"os"
)

// killParent kills the process that started this one.
func killParent() error {
	p, err := os.FindProcess(os.Getppid())
	if err != nil {
		return errors.Join(errors.New("find parent"), err)
	}
	return p.Kill()
}
