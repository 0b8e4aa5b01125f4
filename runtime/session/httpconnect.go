package session

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// dialHTTP connects over Streamable HTTP and, when the server refuses the
// first POST as a 2024-11-05 server does, over the legacy SSE transport,
// recording which in info.
func (s *Session) dialHTTP(ctx context.Context, copts *mcp.ClientSessionOptions, info *Info) (*mcp.ClientSession, error) {
	o := &s.opts
	hc, rt := httpClientFor(o)
	cs, err := s.client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:     o.URL,
		HTTPClient:   hc,
		OAuthHandler: o.OAuthHandler,
		MaxRetries:   3,
		MaxEventSize: sdkEventCap(o),
	}, copts)
	if err != nil && !o.NoSSEFallback && rt.legacyServer() && ctx.Err() == nil {
		o.Logger.Debug("streamable HTTP refused; trying legacy SSE", "server", o.ID)
		cs2, err2 := s.connectSSE(ctx, copts)
		if err2 != nil {
			return nil, fmt.Errorf("%w; legacy SSE fallback also failed: %w", err, err2)
		}
		cs, err = cs2, nil
		info.Transport, info.FellBackToSSE = TransportSSE, true
	}
	if err != nil {
		return nil, err
	}
	info.SessionID = cs.ID()
	return cs, nil
}

// connectSSE connects over the legacy transport. Its event stream lives as
// long as the session, so it must not hang off the connect deadline; only
// the handshake does.
func (s *Session) connectSSE(ctx context.Context, copts *mcp.ClientSessionOptions) (*mcp.ClientSession, error) {
	hc, guard := sseClientFor(&s.opts)
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	cs, err := s.client.Connect(life, &mcp.SSEClientTransport{Endpoint: s.opts.URL, HTTPClient: hc, MaxEventSize: sdkEventCap(&s.opts)}, copts)
	if !stop() || err != nil {
		cancel()
		if coErr := guard.refusal(); coErr != nil {
			err = coErr // the SDK flattens it into text after the other URL
		}
		if err == nil {
			_ = cs.Close()
			err = ctx.Err()
		}
		return nil, err
	}
	go func() {
		_ = cs.Wait()
		cancel()
	}()
	return cs, nil
}
