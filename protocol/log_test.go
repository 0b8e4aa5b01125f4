package protocol_test

import (
	"context"
	"log/slog"
	"sync"
)

type countHandler struct {
	mu *sync.Mutex
	n  *int
}

func (h countHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (h countHandler) Handle(context.Context, slog.Record) error {
	h.mu.Lock()
	*h.n++
	h.mu.Unlock()
	return nil
}
func (h countHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h countHandler) WithGroup(string) slog.Handler      { return h }

func slogCounter(mu *sync.Mutex, n *int) *slog.Logger { return slog.New(countHandler{mu, n}) }
