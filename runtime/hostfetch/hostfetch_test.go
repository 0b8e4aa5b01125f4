package hostfetch

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// reader serves one content of size bytes, after gate (if any) is closed,
// and records the answer cap of each read's context.
type reader struct {
	size  int
	gate  chan struct{}
	reads atomic.Int32
	caps  chan int
}

func (r *reader) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	r.reads.Add(1)
	if r.caps != nil {
		r.caps <- AnswerCap(ctx)
	}
	if r.gate != nil {
		<-r.gate
	}
	if c := AnswerCap(ctx); c > 0 && r.size > c {
		// As the session does: an answer over the cap is cut.
		return nil, errors.Join(errors.New("the answer exceeds the answer cap"), ErrTooLarge)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, Text: strings.Repeat("x", r.size)}}}, nil
}

// Read passes the answer cap down to the reader and refuses content over
// the limit, naming the URI and the limit.
func TestReadBoundsTheAnswerAndTheContent(t *testing.T) {
	r := &reader{size: 10, caps: make(chan int, 4)}
	if res, err := Read(context.Background(), r, "ui://a", 10); err != nil || len(res.Contents[0].Text) != 10 {
		t.Fatalf("Read = %v, %v", res, err)
	}
	if c := <-r.caps; c != WireBytes(10) {
		t.Errorf("answer cap %d, want %d", c, WireBytes(10))
	}
	_, err := Read(context.Background(), r, "ui://a", 9)
	<-r.caps
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), `"ui://a"`) || !strings.Contains(err.Error(), "10 bytes, over the bound of 9 bytes") {
		t.Errorf("over the limit: %v", err)
	}
	big := &reader{size: 30 << 20}
	_, err = Read(context.Background(), big, "ui://big", 2<<20)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "over the bound of 2097152 bytes; refused, the answer cut") {
		t.Errorf("cut on the wire: %v", err)
	}
}

// Concurrent reads of the same resource share one read; a refusal for size
// is answered from memory until RefusalTTL has passed, per server and URI.
func TestFetcherSharesReadsAndRemembersRefusals(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	f := &Fetcher{Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }}
	r := &reader{size: 100, gate: make(chan struct{})}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.Read(context.Background(), "srv", r, "ui://a", 50)
			errs <- err
		}()
	}
	time.Sleep(50 * time.Millisecond)
	close(r.gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), `server "srv"`) {
			t.Errorf("err = %v", err)
		}
	}
	if n := r.reads.Load(); n != 1 {
		t.Errorf("%d reads for 8 concurrent ones, want 1", n)
	}
	for range 3 {
		if _, err := f.Read(context.Background(), "srv", r, "ui://a", 50); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "not read again") {
			t.Errorf("remembered: %v", err)
		}
	}
	if n := r.reads.Load(); n != 1 {
		t.Errorf("%d reads, want the refusal remembered", n)
	}
	// Another server's resource of the same URI is its own.
	if _, err := f.Read(context.Background(), "other", r, "ui://a", 50); !errors.Is(err, ErrTooLarge) || r.reads.Load() != 2 {
		t.Errorf("other server: %v, reads %d", err, r.reads.Load())
	}
	mu.Lock()
	now = now.Add(DefaultRefusalTTL)
	mu.Unlock()
	r.size = 10
	if res, err := f.Read(context.Background(), "srv", r, "ui://a", 50); err != nil || len(res.Contents[0].Text) != 10 || r.reads.Load() != 3 {
		t.Errorf("after the TTL: %v, %v, reads %d", res, err, r.reads.Load())
	}
	// Other failures are not remembered.
	failing := &failReader{}
	for range 2 {
		f.Read(context.Background(), "srv", failing, "ui://f", 50)
	}
	if failing.reads.Load() != 2 {
		t.Errorf("a failed read was remembered: %d reads", failing.reads.Load())
	}
}

// A caller whose context ends leaves at once; the shared read goes on for
// the others.
func TestFetcherCallerLeavesOnItsContext(t *testing.T) {
	var f Fetcher
	r := &reader{size: 10, gate: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := f.Read(ctx, "srv", r, "ui://a", 50)
		done <- err
	}()
	other := make(chan error, 1)
	go func() {
		time.Sleep(20 * time.Millisecond)
		_, err := f.Read(context.Background(), "srv", r, "ui://a", 50)
		other <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want canceled", err)
	}
	close(r.gate)
	if err := <-other; err != nil {
		t.Errorf("the other caller: %v", err)
	}
}

// The memory of refusals is bounded.
func TestFetcherRefusalsAreBounded(t *testing.T) {
	var f Fetcher
	for i := range maxRefusals + 10 {
		f.remember(fetchKey{"s", strings.Repeat("u", i%50) + string(rune('a'+i%26)) + time.Duration(i).String(), 1}, ErrTooLarge)
	}
	if n := len(f.refused); n > maxRefusals {
		t.Errorf("%d refusals kept, bound %d", n, maxRefusals)
	}
}

type failReader struct{ reads atomic.Int32 }

func (r *failReader) ReadResource(context.Context, string) (*mcp.ReadResourceResult, error) {
	r.reads.Add(1)
	return nil, errors.New("boom")
}

// WithAnswerCap keeps the smaller of two caps and ignores n <= 0.
func TestWithAnswerCapKeepsTheSmaller(t *testing.T) {
	ctx := WithAnswerCap(context.Background(), 100)
	if got := AnswerCap(WithAnswerCap(ctx, 200)); got != 100 {
		t.Errorf("cap = %d, want 100", got)
	}
	if got := AnswerCap(WithAnswerCap(ctx, 50)); got != 50 {
		t.Errorf("cap = %d, want 50", got)
	}
	if got := AnswerCap(WithAnswerCap(context.Background(), 0)); got != 0 {
		t.Errorf("cap = %d, want 0", got)
	}
}
