package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/mcp-host/mcp-host/protocol"
)

// callStreams makes echo calls to everything, sc.Parallel at a time,
// until it has made sc.Calls and the other work is done (so the traffic
// lasts the whole run). Every one must succeed.
func (w *soakWork) callStreams(ctx context.Context) error {
	errs := make(chan error, w.sc.Parallel)
	var next = make(chan struct{})
	go func() {
		defer close(next)
		for i := 0; ; i++ {
			if i >= w.sc.Calls {
				select {
				case <-w.othersDone:
					return
				default:
				}
			}
			select {
			case next <- struct{}{}:
			case <-ctx.Done():
				return
			}
		}
	}()
	for range w.sc.Parallel {
		go func() {
			for range next {
				if _, err := w.h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "everything", Tool: "echo", Arguments: json.RawMessage(`{"message":"soak"}`)}); err != nil {
					errs <- fmt.Errorf("call %d: %w", w.calls.Load(), err)
					return
				}
				w.calls.Add(1)
			}
			errs <- nil
		}()
	}
	var first error
	for range w.sc.Parallel {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// reconnectWaves reconnects the OAuth server in waves of ten, each
// waited back to ready, and records the goroutines a wave left behind
// once settled.
func (w *soakWork) reconnectWaves(ctx context.Context) error {
	time.Sleep(time.Second)
	for w.reconnects.Load() < int64(w.sc.Reconnects) {
		before, beforeFDs := w.goroutines(), w.fds()
		for i := 0; i < 10 && w.reconnects.Load() < int64(w.sc.Reconnects); i++ {
			if _, err := w.h.rt.MCPReconnect(ctx, &protocol.ServerParams{ID: "oauth"}); err != nil {
				return fmt.Errorf("reconnect: %w", err)
			}
			if err := w.h.waitFor(ctx, "oauth", protocol.StateReady); err != nil {
				return err
			}
			w.reconnects.Add(1)
		}
		time.Sleep(time.Second)
		if g := int64(w.goroutines() - before); g > w.waveGrowth.Load() {
			w.waveGrowth.Store(g)
		}
		if f := int64(w.fds() - beforeFDs); f > w.waveFDs.Load() {
			w.waveFDs.Store(f)
		}
	}
	return nil
}

// crashLoop kills the crashy server's process and waits for the host to
// bring it back, sc.Crashes times.
func (w *soakWork) crashLoop(ctx context.Context) error {
	for w.crashes.Load() < int64(w.sc.Crashes) {
		pids := withMarker(w.marker)
		if len(pids) == 0 {
			return fmt.Errorf("crash %d: no process of the crashy server", w.crashes.Load()+1)
		}
		for _, p := range pids {
			killPID(p)
		}
		if err := w.backAfterCrash(ctx, pids); err != nil {
			return err
		}
		w.crashes.Add(1)
	}
	return nil
}

// backAfterCrash waits until a new process of the crashy server is there
// and the server is ready.
func (w *soakWork) backAfterCrash(ctx context.Context, killed []int) error {
	ctx, cancel := context.WithTimeout(ctx, soakWait)
	defer cancel()
	for {
		now := withMarker(w.marker)
		st, last, err := w.h.state(ctx, "crashy")
		if err != nil {
			return fmt.Errorf("crash %d: %w", w.crashes.Load()+1, err)
		}
		if st == protocol.StateReady && len(now) > 0 && !slices.Contains(killed, now[0]) {
			return nil
		}
		if st == protocol.StateError || st == protocol.StateIdle {
			// A server that starts on first use (stdio's default in host
			// serve) waits in error for its next use after a crash: use it.
			wake := json.RawMessage(`{"text":"wake"}`)
			_, _ = w.h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "crashy", Tool: "echo", Arguments: wake, WaitReadyMS: 30000})
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("crash %d: the server never came back (%s: %s)", w.crashes.Load()+1, st, last)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// refreshLoop calls the OAuth server each time its token has expired,
// until the authorization server has issued sc.Refreshes tokens more.
func (w *soakWork) refreshLoop(ctx context.Context) error {
	start := w.demo.TokensIssued()
	for w.demo.TokensIssued()-start < w.sc.Refreshes {
		time.Sleep(w.sc.TokenLife + 100*time.Millisecond)
		if _, err := w.h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "oauth", Tool: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`), WaitReadyMS: 60000}); err != nil {
			return fmt.Errorf("call after token expiry %d: %w", w.demo.TokensIssued()-start, err)
		}
		w.refreshes.Store(int64(w.demo.TokensIssued() - start))
	}
	return nil
}

// runLoop starts sc.Runs runs, one after another; each calls crashy/echo,
// whose confirm the UI allows, and ends with a final event.
func (w *soakWork) runLoop(ctx context.Context) error {
	for i := range w.sc.Runs {
		r, err := w.h.rt.RunStart(ctx, &protocol.RunStartParams{Prompt: "soak run " + strconv.Itoa(i)})
		if err != nil {
			return fmt.Errorf("run %d: %w", i, err)
		}
		select {
		case <-w.h.ui.runDone(r.RunID):
		case <-time.After(soakWait):
			return fmt.Errorf("run %d never ended", i)
		}
		w.runs.Add(1)
	}
	return nil
}

// lazyLoop calls the lazy server sc.Lazy times, each after it has idled
// out (its timeout is a second).
func (w *soakWork) lazyLoop(ctx context.Context) error {
	for range w.sc.Lazy {
		if err := w.h.waitFor(ctx, "lazy", protocol.StateIdle); err != nil {
			return err
		}
		if _, err := w.h.rt.ToolCall(ctx, &protocol.ToolCallParams{Server: "lazy", Tool: "echo", Arguments: json.RawMessage(`{"message":"wake"}`), WaitReadyMS: 60000}); err != nil {
			return fmt.Errorf("lazy call: %w", err)
		}
		w.lazy.Add(1)
	}
	return nil
}

// soakChecks are the soak's bounds: after warm-up (the sample at a tenth
// of the traffic), the host's RSS and Go heap stay within +10 % (and
// 4 MiB, the collector's own swing at this size), its goroutines within
// five and its descriptors within three of that sample once the traffic
// has stopped, a reconnect wave (ten, on a quiet host) leaves at most two
// goroutines and one descriptor (the sampler's own swing), the
// processes below it and the files it keeps are no more, no process is
// left once it has stopped, and every piece of work was done.
func soakChecks(samples []SoakSample, traffic time.Duration, end SoakSample, w *soakWork, leftover int) []SoakCheck {
	warm := samples[0]
	for _, s := range samples {
		if s.At >= traffic/10 {
			warm = s
			break
		}
	}
	within := func(end, warm int64) bool { return end <= warm+warm/10 || end <= warm+4<<20 }
	c := func(what, want, got string, ok bool) SoakCheck {
		return SoakCheck{What: what, Want: want, Got: got, OK: ok}
	}
	return []SoakCheck{
		c("RSS after the run", "≤ +10 % of "+mib(warm.RSS)+" (at "+warm.At.Round(time.Second).String()+")", mib(end.RSS), within(end.RSS, warm.RSS)),
		c("Go heap in use after the run", "≤ +10 % of "+mib(int64(warm.HeapInuse)), mib(int64(end.HeapInuse)), within(int64(end.HeapInuse), int64(warm.HeapInuse))),
		c("goroutines after the run", fmt.Sprintf("≤ %d + 5", warm.Goroutines), strconv.Itoa(end.Goroutines), end.Goroutines <= warm.Goroutines+5),
		c("goroutines a reconnect wave left (most of any)", "≤ 2", strconv.FormatInt(w.waveGrowth.Load(), 10), w.waveGrowth.Load() <= 2),
		c("descriptors a reconnect wave left (most of any)", "≤ 1", strconv.FormatInt(w.waveFDs.Load(), 10), w.waveFDs.Load() <= 1),
		c("open descriptors after the run", fmt.Sprintf("≤ %d + 3", warm.FDs), strconv.Itoa(end.FDs), end.FDs <= warm.FDs+3),
		c("processes below the host after the run", fmt.Sprintf("≤ %d", warm.Children), strconv.Itoa(end.Children), end.Children <= warm.Children),
		c("files in its cache and state", fmt.Sprintf("≤ %d + 10", warm.Files), strconv.Itoa(end.Files), end.Files <= warm.Files+10),
		c("processes left after it stopped", "0", strconv.Itoa(leftover), leftover == 0),
		c("work done", fmt.Sprintf("≥ %d calls, %d crashes, %d runs", w.sc.Calls, w.sc.Crashes, w.sc.Runs),
			fmt.Sprintf("%d, %d, %d", w.calls.Load(), w.crashes.Load(), w.runs.Load()),
			w.calls.Load() >= int64(w.sc.Calls) && w.crashes.Load() == int64(w.sc.Crashes) && w.runs.Load() == int64(w.sc.Runs)),
	}
}

// thin keeps at most n samples, evenly spread, the last included.
func thin(s []SoakSample, n int) []SoakSample {
	if len(s) <= n {
		return s
	}
	out := make([]SoakSample, 0, n)
	for i := range n - 1 {
		out = append(out, s[i*len(s)/(n-1)])
	}
	return append(out, s[len(s)-1])
}
