package runtime_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/auth"
	"github.com/mcp-host/mcp-host/runtime/config"
)

// pasteUI is a LoginUI for paste-back logins: it says yes, and answers each
// PromptRedirect with the next of pastes ("" for the address the browser
// ends on, "browser" to let a browser reach the callback and wait).
type pasteUI struct {
	mu       sync.Mutex
	pastes   []string
	prompts  []runtime.LoginPrompt
	released bool // a waiting prompt's ctx ended
}

func (u *pasteUI) ConfirmLogin(context.Context, runtime.LoginPrompt) (bool, error) { return true, nil }

func (u *pasteUI) OpenURL(context.Context, runtime.LoginPrompt) error {
	return errors.New("no browser here")
}

func (u *pasteUI) PromptRedirect(ctx context.Context, p runtime.LoginPrompt) (string, error) {
	u.mu.Lock()
	u.prompts = append(u.prompts, p)
	next := "hello"
	if len(u.pastes) > 0 {
		next, u.pastes = u.pastes[0], u.pastes[1:]
	}
	u.mu.Unlock()
	switch next {
	case "":
		// Where the authorization server sends the browser, not followed.
		c := &http.Client{CheckRedirect: func(r *http.Request, _ []*http.Request) error {
			if strings.HasPrefix(r.URL.String(), p.RedirectURI) {
				return http.ErrUseLastResponse
			}
			return nil
		}}
		resp, err := c.Get(p.URL)
		if err != nil {
			return "", err
		}
		resp.Body.Close()
		return resp.Header.Get("Location"), nil
	case "browser":
		go func() {
			if resp, err := http.Get(p.URL); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		<-ctx.Done()
		u.mu.Lock()
		u.released = true
		u.mu.Unlock()
		return "", ctx.Err()
	}
	return next, nil
}

// TestPasteBackLoginRecovers: a paste-back login (no browser) asks again
// after a paste that is not the redirect, saying why; completes when a
// browser reaches the callback it listens on, without waiting out the
// login's time; and after too many bad pastes fails naming the server once.
func TestPasteBackLoginRecovers(t *testing.T) {
	env := startDemo(t, time.Hour)
	login := func(t *testing.T, ui *pasteUI) error {
		m := runtime.NewManager(runtime.ManagerOptions{AuthStore: auth.NewMemoryStore(), LoginUI: ui, MinBackoff: time.Hour})
		t.Cleanup(func() { m.Close() })
		m.Apply([]config.ServerEntry{httpEntry("notes", env.MCPURL)})
		waitState(t, m, "notes", runtime.StateAuthRequired, 10*time.Second)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		return m.Login(ctx, "notes", runtime.LoginOptions{NoBrowser: true, Timeout: 15 * time.Second})
	}

	t.Run("a bad paste is asked again", func(t *testing.T) {
		ui := &pasteUI{pastes: []string{"hello", ""}}
		if err := login(t, ui); err != nil {
			t.Fatalf("login after a bad paste, then the right one: %v", err)
		}
		if len(ui.prompts) != 2 || ui.prompts[0].Retry != "" || !strings.Contains(ui.prompts[1].Retry, "neither code nor error") {
			t.Errorf("prompts %+v; want two, the second saying why the first was not taken", ui.prompts)
		}
	})

	t.Run("the callback completes it", func(t *testing.T) {
		ui := &pasteUI{pastes: []string{"browser"}}
		start := time.Now()
		if err := login(t, ui); err != nil {
			t.Fatalf("login through the callback while the paste was asked: %v", err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("the login took %s: it waited for the paste", d)
		}
		ui.mu.Lock()
		defer ui.mu.Unlock()
		if !ui.released {
			t.Errorf("the paste prompt was not withdrawn when the callback arrived")
		}
	})

	t.Run("bad pastes end it, naming the server once", func(t *testing.T) {
		ui := &pasteUI{pastes: []string{"hello", "hello", "hello", "hello"}}
		err := login(t, ui)
		if err == nil || strings.Count(err.Error(), "notes") != 1 || !strings.Contains(err.Error(), "neither code nor error") {
			t.Errorf("after bad pastes: %v; want one error naming notes once and saying why", err)
		}
		if len(ui.prompts) != 3 {
			t.Errorf("asked %d times, want 3", len(ui.prompts))
		}
	})
}
