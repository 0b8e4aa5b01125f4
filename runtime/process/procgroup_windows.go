//go:build windows

package process

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// procTree is one stdio server's Job Object: every process the server
// starts belongs to it too, and closing its handle (on close, or when the
// host dies) kills them all (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE).
type procTree struct {
	cmd *exec.Cmd

	mu  sync.Mutex
	job windows.Handle // 0 when none could be made
}

func newProcTree() *procTree { return &procTree{} }

// prepare starts the command without a console window, so none flashes up
// for a console program run from a GUI host, and suspended, so that it is
// in its job before it runs (see started). It keeps what the command
// already set (the command line of a batch file, see command).
func (t *procTree) prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NO_WINDOW | windows.CREATE_SUSPENDED
	cmd.SysProcAttr.HideWindow = true
}

// started puts the process, still suspended, in a new kill-on-close job
// and then lets it run, so every child it starts is in the job too. (It
// used to run at once: a child started before the assignment stayed
// outside and outlived the server; under wine, one full run in seven.) If
// it cannot be resumed it is killed.
func (t *procTree) started(cmd *exec.Cmd) error {
	t.cmd = cmd
	pid := uint32(cmd.Process.Pid)
	err := t.assign(pid)
	if rerr := resumeProcess(pid); rerr != nil {
		_ = cmd.Process.Kill()
		return errors.Join(err, fmt.Errorf("resume process %d: %w", pid, rerr))
	}
	return err
}

// resumeProcess resumes the threads of the suspended process pid (its
// main thread: Go's os/exec closes the handle CreateProcess returned, so
// it is found again through a thread snapshot).
func resumeProcess(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("thread snapshot: %w", err)
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		h, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("open thread %d: %w", te.ThreadID, err)
		}
		_, err = windows.ResumeThread(h)
		windows.CloseHandle(h)
		if err != nil {
			return fmt.Errorf("resume thread %d: %w", te.ThreadID, err)
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("no thread of process %d found", pid)
	}
	return nil
}

// assign puts process pid in a new kill-on-close job.
func (t *procTree) assign(pid uint32) error {
	job, err := newKillOnCloseJob()
	if err != nil {
		return err
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("assign process %d to a job object: %w", pid, err)
	}
	t.mu.Lock()
	t.job = job
	t.mu.Unlock()
	return nil
}

func newKillOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("create job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("set kill-on-close on a job object: %w", err)
	}
	return job, nil
}

// scan has nothing to remember: the job knows its members.
func (t *procTree) scan(bool) {}

// signal ends the job's processes. Windows has no polite signal for a
// process without a console, so "terminate" waits for the kill: closing
// stdin was the polite request.
func (t *procTree) signal(kill bool) {
	if !kill {
		return
	}
	t.mu.Lock()
	job := t.job
	t.mu.Unlock()
	if job != 0 {
		_ = windows.TerminateJobObject(job, 1)
		return
	}
	_ = t.cmd.Process.Kill()
}

// jobBasicAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobBasicAccounting struct {
	TotalUserTime             int64
	TotalKernelTime           int64
	ThisPeriodTotalUserTime   int64
	ThisPeriodTotalKernelTime int64
	TotalPageFaultCount       uint32
	TotalProcesses            uint32
	ActiveProcesses           uint32
	TotalTerminatedProcesses  uint32
}

// alive reports whether any process of the job is still running.
func (t *procTree) alive() bool {
	t.mu.Lock()
	job := t.job
	t.mu.Unlock()
	if job == 0 {
		return false
	}
	var info jobBasicAccounting
	if err := windows.QueryInformationJobObject(job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil); err != nil {
		return false
	}
	return info.ActiveProcesses > 0
}

// release closes the job, which kills whatever is left in it.
func (t *procTree) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job != 0 {
		windows.CloseHandle(t.job)
		t.job = 0
	}
}
