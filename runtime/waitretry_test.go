package runtime_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/config"
)

// A call to a server between two connect attempts waits for the attempt
// its backoff scheduled (WaitRetry) instead of failing at once, and does
// not bring it forward: a server that failed its first start is ready
// after its second, started once more in all; a server that fails every
// start comes back with its next failure, not a hang.
func TestWaitRetry(t *testing.T) {
	const minB = 400 * time.Millisecond
	m := runtime.NewManager(runtime.ManagerOptions{MinBackoff: minB, MaxBackoff: minB, ShutdownGrace: 200 * time.Millisecond})
	defer m.Close()
	once, onceStarts := crashEntry(t, "once", "once")
	always, alwaysStarts := crashEntry(t, "always", "start")
	m.Apply([]config.ServerEntry{once, always})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	inBackoff := func(id string) runtime.Status {
		for {
			st, err := m.Get(id)
			if err != nil {
				t.Fatal(err)
			}
			if st.State == runtime.StateError && !st.NextRetryAt.IsZero() {
				return st
			}
			select {
			case <-ctx.Done():
				t.Fatalf("%s never waited for a retry: %+v", id, st)
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	inBackoff("once")
	st, err := m.WaitRetry(ctx, "once")
	if err != nil || st.State != runtime.StateReady {
		t.Fatalf("WaitRetry(once) = %s %q, %v; want ready after its scheduled retry", st.State, st.LastError, err)
	}
	if n := countLines(onceStarts); n != 2 {
		t.Errorf("once started %d times; want 2 (the failure, then the scheduled retry)", n)
	}
	first := inBackoff("always")
	startsBefore := countLines(alwaysStarts)
	st, err = m.WaitRetry(ctx, "always")
	if err != nil || st.State != runtime.StateError || !st.NextRetryAt.After(first.NextRetryAt) {
		t.Fatalf("WaitRetry(always) = %s next %v (was %v), %v; want its next failure", st.State, st.NextRetryAt, first.NextRetryAt, err)
	}
	if n := countLines(alwaysStarts) - startsBefore; n != 1 {
		t.Errorf("always started %d times while one call waited; want 1 (the scheduled retry, not one more)", n)
	}
	if time.Now().Before(first.NextRetryAt) {
		t.Errorf("WaitRetry returned before the scheduled attempt at %v", first.NextRetryAt)
	}
}
