//go:build !windows

package process

import "os/exec"

// command returns the process for o's command: os/exec's PATH lookup is
// what users of these systems expect.
func command(o *Options) (*exec.Cmd, error) { return exec.Command(o.Command, o.Args...), nil }
