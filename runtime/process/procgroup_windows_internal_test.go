//go:build windows

package process

import (
	"os/exec"
	"syscall"
	"testing"

	"golang.org/x/sys/windows"
)

// TestPrepareHidesConsoleKeepsCommandLine: every stdio server starts with
// no console window (CREATE_NO_WINDOW), and a batch file's command line
// built by command survives it.
func TestPrepareHidesConsoleKeepsCommandLine(t *testing.T) {
	const line = `"C:\Windows\System32\cmd.exe" /d /v:off /s /c ""C:\n\npx.cmd" -y"`
	for _, attr := range []*syscall.SysProcAttr{nil, {CmdLine: line}} {
		cmd := exec.Command("x.exe")
		cmd.SysProcAttr = attr
		newProcTree().prepare(cmd)
		a := cmd.SysProcAttr
		if a == nil || a.CreationFlags&windows.CREATE_NO_WINDOW == 0 || !a.HideWindow {
			t.Errorf("prepare left %+v: want CREATE_NO_WINDOW and HideWindow", a)
		}
		if attr != nil && a.CmdLine != line {
			t.Errorf("prepare dropped the command line: %q", a.CmdLine)
		}
	}
}
