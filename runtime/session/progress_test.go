package session_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressServer is a go-sdk server whose tools report progress the way
// the test says. tokens records the progress token of every call by
// tool name; release lets "wait" return.
type progressServer struct {
	url     string
	mu      sync.Mutex
	tokens  map[string]any
	release chan struct{}
	// inject, when set, is called by "inject" with its session.
	inject func(ctx context.Context, ss *mcp.ServerSession, own any)
}

func (p *progressServer) token(name string) any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tokens[name]
}

// unblock lets every "wait" call return.
func (p *progressServer) unblock() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.release:
	default:
		close(p.release)
	}
}

func newProgressServer(t *testing.T) *progressServer {
	t.Helper()
	p := &progressServer{tokens: map[string]any{}, release: make(chan struct{})}
	srv := mcp.NewServer(&mcp.Implementation{Name: "progress", Version: "1"}, nil)
	tool := func(name string, fn func(ctx context.Context, req *mcp.CallToolRequest)) {
		mcp.AddTool(srv, &mcp.Tool{Name: name}, func(ctx context.Context, req *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
			p.mu.Lock()
			p.tokens[name] = req.Params.GetProgressToken()
			p.mu.Unlock()
			fn(ctx, req)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		})
	}
	notify := func(ctx context.Context, req *mcp.CallToolRequest, tok any, n float64, msg string) {
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: n, Total: 5, Message: msg})
	}
	tool("steps", func(ctx context.Context, req *mcp.CallToolRequest) {
		tok := req.Params.GetProgressToken()
		for i := 1; i <= 3; i++ {
			notify(ctx, req, tok, float64(i), "step\x1b]0;pwned\x07 \u202e"+strings.Repeat("x", 5000))
			time.Sleep(150 * time.Millisecond)
		}
	})
	tool("late", func(ctx context.Context, req *mcp.CallToolRequest) {
		tok := req.Params.GetProgressToken()
		notify(ctx, req, tok, 1, "")
		time.Sleep(200 * time.Millisecond)
		notify(ctx, req, tok, 2, "") // right before the answer
	})
	tool("flood", func(ctx context.Context, req *mcp.CallToolRequest) {
		tok := req.Params.GetProgressToken()
		for i := 1; i <= 10000; i++ {
			notify(ctx, req, tok, float64(i), "")
		}
	})
	tool("wait", func(ctx context.Context, req *mcp.CallToolRequest) {
		p.mu.Lock()
		p.tokens["wait started"] = true
		p.mu.Unlock()
		select {
		case <-p.release:
		case <-ctx.Done():
		}
	})
	tool("inject", func(ctx context.Context, req *mcp.CallToolRequest) {
		if p.inject != nil {
			p.inject(ctx, req.Session, req.Params.GetProgressToken())
		}
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(p.unblock) // before ts.Close: a waiting handler would hold it
	p.url = ts.URL
	return p
}

// recorder collects the reports delivered for one call.
type recorder struct {
	mu  sync.Mutex
	got []session.Progress
}

func (r *recorder) add(p session.Progress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, p)
}

func (r *recorder) reports() []session.Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]session.Progress(nil), r.got...)
}

func TestProgressDeliveredStrippedAndBounded(t *testing.T) {
	ps := newProgressServer(t)
	s := connect(t, session.Options{Transport: session.TransportHTTP, URL: ps.url})
	var rec recorder
	if _, err := s.CallTool(session.WithProgress(context.Background(), rec.add), "steps", nil); err != nil {
		t.Fatal(err)
	}
	if tok, ok := ps.token("steps").(string); !ok || tok == "" {
		t.Fatalf("the call carried progress token %#v, want a string", ps.token("steps"))
	}
	got := rec.reports()
	if len(got) != 3 {
		t.Fatalf("got %d reports, want 3: %+v", len(got), got)
	}
	for i, p := range got {
		if p.Progress != float64(i+1) || p.Total != 5 {
			t.Errorf("report %d = %v/%v", i, p.Progress, p.Total)
		}
		if strings.ContainsAny(p.Message, "\x1b\x07\u202e") || strings.Contains(p.Message, "pwned") {
			t.Errorf("report %d message not stripped: %q", i, p.Message)
		}
		if n := len([]rune(p.Message)); n > session.MaxProgressMessage {
			t.Errorf("report %d message has %d runes, want at most %d", i, n, session.MaxProgressMessage)
		}
	}
	// Without a listener the call carries no token.
	if _, err := s.CallTool(context.Background(), "steps", nil); err != nil {
		t.Fatal(err)
	}
	if tok := ps.token("steps"); tok != nil {
		t.Errorf("a call without a listener carried token %#v", tok)
	}
}

func TestProgressFloodIsRateLimitedAndEndsOnTheLast(t *testing.T) {
	ps := newProgressServer(t)
	s := connect(t, session.Options{Transport: session.TransportHTTP, URL: ps.url})
	var rec recorder
	start := time.Now()
	if _, err := s.CallTool(session.WithProgress(context.Background(), rec.add), "flood", nil); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	got := rec.reports()
	limit := int(elapsed/session.ProgressInterval) + 2
	t.Logf("10000 notifications in %v delivered as %d reports (limit %d)", elapsed, len(got), limit)
	if len(got) == 0 || len(got) > limit {
		t.Fatalf("delivered %d reports in %v, want 1..%d", len(got), elapsed, limit)
	}
	if last := got[len(got)-1]; last.Progress != 10000 {
		t.Errorf("last report = %v, want 10000 (the last one is always delivered)", last.Progress)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Progress <= got[i-1].Progress {
			t.Errorf("reports out of order: %v after %v", got[i].Progress, got[i-1].Progress)
		}
	}
}

func TestProgressForeignTokensIgnored(t *testing.T) {
	a := newProgressServer(t)
	b := newProgressServer(t)
	sa := connect(t, session.Options{ID: "a", Transport: session.TransportHTTP, URL: a.url})
	sb := connect(t, session.Options{ID: "b", Transport: session.TransportHTTP, URL: b.url})

	var recA, recB recorder
	done := make(chan error, 1)
	go func() {
		_, err := sa.CallTool(session.WithProgress(context.Background(), recA.add), "wait", nil)
		done <- err
	}()
	waitFor(t, "a's call to start", 10*time.Second, func() bool { return a.token("wait started") != nil })
	aToken := a.token("wait")
	// Server b knows a's token (the test tells it) and a made-up one, and
	// its own call's token ends before it sends one more.
	b.inject = func(ctx context.Context, ss *mcp.ServerSession, own any) {
		for _, tok := range []any{aToken, "mcp-host-guess-1", 1, nil} {
			_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1})
		}
	}
	if _, err := sb.CallTool(session.WithProgress(context.Background(), recB.add), "inject", nil); err != nil {
		t.Fatal(err)
	}
	bToken := b.token("inject")
	// A report for b's finished call comes too late.
	b.inject = func(ctx context.Context, ss *mcp.ServerSession, _ any) {
		_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: bToken, Progress: 7})
	}
	if _, err := sb.CallTool(context.Background(), "inject", nil); err != nil {
		t.Fatal(err)
	}
	a.unblock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := recA.reports(); len(got) != 0 {
		t.Errorf("server b reached a's call: %+v", got)
	}
	if got := recB.reports(); len(got) != 0 {
		t.Errorf("foreign or stale tokens reached b's call: %+v", got)
	}
	// A report going backwards, or not a number, is dropped too.
	var rec recorder
	a.inject = func(ctx context.Context, ss *mcp.ServerSession, own any) {
		for _, n := range []float64{2, 1, 2, 3} {
			_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: own, Progress: n})
			time.Sleep(session.ProgressInterval + 20*time.Millisecond)
		}
	}
	if _, err := sa.CallTool(session.WithProgress(context.Background(), rec.add), "inject", nil); err != nil {
		t.Fatal(err)
	}
	var vals []float64
	for _, p := range rec.reports() {
		vals = append(vals, p.Progress)
	}
	if len(vals) != 2 || vals[0] != 2 || vals[1] != 3 {
		t.Errorf("reports = %v, want [2 3] (non-increasing ones dropped)", vals)
	}
}

// The report a server sends right before its answer, long after the one
// before, is delivered before CallTool returns.
func TestProgressLastBeforeAnswerDelivered(t *testing.T) {
	ps := newProgressServer(t)
	s := connect(t, session.Options{Transport: session.TransportHTTP, URL: ps.url})
	for i := 0; i < 10; i++ {
		var rec recorder
		if _, err := s.CallTool(session.WithProgress(context.Background(), rec.add), "late", nil); err != nil {
			t.Fatal(err)
		}
		if got := rec.reports(); len(got) != 2 || got[1].Progress != 2 {
			t.Fatalf("call %d: reports %+v, want 1 and 2", i, got)
		}
	}
}
