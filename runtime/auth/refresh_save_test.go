package auth

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"
)

// fullStore saves nothing once full: a disk that filled up.
type fullStore struct {
	Store
	full bool
}

func (s *fullStore) Save(ctx context.Context, key Key, rec *Record) error {
	if s.full {
		return &saveErr{}
	}
	return s.Store.Save(ctx, key, rec)
}

type saveErr struct{}

func (*saveErr) Error() string { return "mcp-auth.json not saved: no space left on device" }
func (*saveErr) Unwrap() error { return syscall.ENOSPC }

// A refresh whose new tokens cannot be saved (a full disk) keeps them for
// the running process: the server has rotated the refresh token, so
// dropping the new tokens would leave only dead ones and cost a login.
func TestRefreshedTokensKeptWhenTheyCannotBeSaved(t *testing.T) {
	as := newTestAS(t)
	rs := newTestRS(t, as)
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	store := &fullStore{Store: NewMemoryStore()}
	h := newHandler(t, rs, &testPrompter{}, store, func(o *Options) { o.Now = clk.Now })
	if err := h.Login(context.Background()); err != nil {
		t.Fatal(err)
	}
	store.full = true
	clk.Add(2 * time.Hour)
	if got := currentToken(t, h); got != "access-2" {
		t.Fatalf("token after a refresh on a full disk = %q, want access-2 (kept in memory)", got)
	}
	clk.Add(10 * time.Minute)
	if got := currentToken(t, h); got != "access-2" {
		t.Errorf("the next use = %q, want access-2 still", got)
	}
	rec, err := store.Store.Load(context.Background(), Key{ServerID: "srv", URL: rs.URL()})
	if err != nil || rec.Token == nil || rec.Token.AccessToken != "access-1" {
		t.Errorf("the store holds %+v (%v), want the old tokens untouched", rec, err)
	}
	if !errors.Is(&saveErr{}, syscall.ENOSPC) {
		t.Fatal("saveErr is not ENOSPC")
	}
}
