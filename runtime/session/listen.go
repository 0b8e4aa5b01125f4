package session

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listenInBackground is a sending middleware that lets a 2026-07-28
// (stateless) connection open its subscriptions/listen stream without
// waiting for it.
//
// With a tool-list-changed handler set, the SDK's Connect opens that stream
// after server/discover and returns only when the server has acknowledged
// it: one more round trip before the first tools/list can even be sent,
// which made connecting to a stateless server take 1.74x the bare SDK's
// connect and list. The stream is the same here, opened at the same point,
// but Connect goes on at once and the first tools/list travels while the
// server sets the stream up.
//
// The catalog learns of every change the stream reports once the server
// has set the stream up. What this gives up: a change the server makes
// after it answered the first tools/list but before it registered the
// stream (the two requests travel together, so this is a window of about
// one request's handling) is seen only with the next change or reconnect.
// Refreshing after every late acknowledgement would close it, but would
// list every catalog twice and, on a 2026-07-28 server without list
// caching, briefly empty the SDK's record of x-mcp-header bindings while
// calls run. Resource subscriptions (ClientSession.Subscribe) keep the
// SDK's behaviour: their errors are the caller's.
func (s *Session) listenInBackground(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "subscriptions/listen" || !listChangesOnly(req) {
			return next(ctx, method, req)
		}
		go func() {
			if _, err := next(ctx, method, req); err != nil && ctx.Err() == nil {
				s.opts.Logger.Warn("could not subscribe to list changes; the tool catalog will not follow the server's changes",
					"server", s.opts.ID, "err", clean(err))
			}
		}()
		return &mcp.SubscriptionsListenResult{}, nil
	}
}

// listChangesOnly reports whether a subscriptions/listen request asks only
// for list-changed notifications, as the SDK's Connect sends it.
func listChangesOnly(req mcp.Request) bool {
	if req == nil {
		return false
	}
	p, ok := req.GetParams().(*mcp.SubscriptionsListenParams)
	return ok && p != nil && p.Notifications != nil && len(p.Notifications.ResourceSubscriptions) == 0
}

// listChangedHandler is the session's tools/list_changed handler: the
// cached catalog is forgotten and the tools are listed again. A one-shot
// session has none, so the SDK opens no list-changed stream for it.
func listChangedHandler(s *Session) func(context.Context, *mcp.ToolListChangedRequest) {
	if s.opts.OneShot {
		return nil
	}
	return func(context.Context, *mcp.ToolListChangedRequest) {
		s.forgetCachedTools()
		s.scheduleRefresh()
	}
}
