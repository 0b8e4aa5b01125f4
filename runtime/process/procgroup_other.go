//go:build !unix && !windows

package process

import "os/exec"

// procTree is the server process alone: this system offers no way to reach
// its descendants.
type procTree struct{ cmd *exec.Cmd }

func newProcTree() *procTree                    { return &procTree{} }
func (t *procTree) prepare(*exec.Cmd)           {}
func (t *procTree) started(cmd *exec.Cmd) error { t.cmd = cmd; return nil }
func (t *procTree) scan(bool)                   {}
func (t *procTree) signal(bool)                 { _ = t.cmd.Process.Kill() }
func (t *procTree) alive() bool                 { return false }
func (t *procTree) release()                    {}
