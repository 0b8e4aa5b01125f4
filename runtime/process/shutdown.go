package process

import (
	"errors"
	"time"
)

// Bounds of a shutdown while the server is busy (requests in flight): the
// server is likely stuck in one, so it gets short waits instead of the full
// grace period. Their sum, with the final wait after the kill, is under 3
// seconds.
const (
	busyStdinWait = 500 * time.Millisecond // after closing stdin
	busyTermWait  = time.Second            // after SIGTERM
	killWait      = time.Second            // after SIGKILL, for the tree to be gone
	// exitedWait is how long the rest of the tree may take to follow a
	// leader that exited on its own.
	exitedWait = 250 * time.Millisecond
	pollEvery  = 50 * time.Millisecond
)

// Shutdown ends the server and everything it started, in bounded time:
//
//  1. busy (when not nil) is called once the tree's members are recorded
//     and before anything is closed: the caller tells the server to cancel
//     its requests in flight there, and reports whether there were any;
//     then stdin is closed, which asks a well-behaved server to exit;
//  2. if the server or anything it started is still running after the grace
//     period, SIGTERM goes to the process group and to every descendant
//     that left it (Linux; on Windows the Job Object is terminated in step
//     3, as Windows has no polite signal for a windowless process);
//  3. after another grace period, SIGKILL the same way, and a last wait.
//
// When the server was busy it is likely stuck, so the waits are short:
// everything is over within about 2.5 seconds, instead of two grace
// periods plus the kill. Adopted descendants are reaped. Later calls return
// the first one's result at once.
func (p *Process) Shutdown(busy func() bool) error {
	p.closeOnce.Do(func() {
		p.tree.scan(true) // while the parent chains are intact
		stdinWait, termWait := p.grace, p.grace
		if busy != nil && busy() {
			stdinWait, termWait = min(p.grace, busyStdinWait), min(p.grace, busyTermWait)
		}
		p.stdin.Close()
		if !p.settle(stdinWait) {
			p.tree.signal(false)
			if !p.settle(termWait) {
				p.tree.signal(true)
				p.settle(killWait)
			}
		}
		p.tree.release()
		p.stdout.Close()
		select {
		case <-p.exited:
		default:
			p.closeErr = errors.New("stdio server did not exit")
		}
	})
	return p.closeErr
}

// settle waits up to d for the leader to exit and the rest of the tree to
// follow it, and reports whether both happened. The rest of the tree gets
// at most exitedWait once the leader is gone.
func (p *Process) settle(d time.Duration) bool {
	deadline := time.Now().Add(d)
	select {
	case <-p.exited:
	case <-time.After(d):
		return false
	}
	if rest := time.Now().Add(exitedWait); rest.Before(deadline) {
		deadline = rest
	}
	for {
		if !p.tree.alive() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollEvery)
	}
}
