package session

import (
	"context"
	"log/slog"
	"sync/atomic"

	"golang.org/x/time/rate"
)

// A server that floods the host with messages (notifications, log lines,
// progress at ten thousand a second) would spend the host's CPU on reading
// and decoding them, before any code of the host can drop or fold one, and
// slow every other server's calls. So the host reads each server's
// messages at most at maxMessageRate a second, after a burst of
// messageBurst: past that it stops reading the server's stream (stdout, an
// SSE response) until the budget refills, and the server's own writes wait.
// Nothing is dropped; a flooding server slows only itself.
const (
	maxMessageRate = 2000
	messageBurst   = 1000
)

// pacer bounds the rate at which one server's messages are read.
type pacer struct {
	lim    *rate.Limiter
	log    *slog.Logger
	server string
	said   atomic.Bool // the first wait is logged, once
}

func newPacer(server string, log *slog.Logger) *pacer {
	return &pacer{lim: rate.NewLimiter(maxMessageRate, messageBurst), log: log, server: server}
}

// wait returns when one more message of the server may be read, or when
// ctx ends (its error).
func (p *pacer) wait(ctx context.Context) error {
	if p == nil {
		return nil
	}
	if p.log != nil && !p.said.Load() && p.lim.Tokens() < 1 && p.said.CompareAndSwap(false, true) {
		p.log.Info("server sends more messages than the host reads; reading them at that rate", "server", p.server, "rate_per_second", maxMessageRate)
	}
	return p.lim.Wait(ctx)
}
