package redact

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strings"
	"testing"
)

func TestErrorTextStripsURLQueriesAndUserInfo(t *testing.T) {
	in := `connect: Post "http://bob:pw-9911@127.0.0.1:1/mcp?k=qv-7788&x=1#frag-55": dial tcp 127.0.0.1:1: refused; also https://h.example/p?q=zz-1 and http://[::1`
	out := ErrorText(in)
	for _, leak := range []string{"pw-9911", "bob", "qv-7788", "frag-55", "zz-1"} {
		if strings.Contains(out, leak) {
			t.Errorf("%q left in %q", leak, out)
		}
	}
	for _, kept := range []string{"http://***@127.0.0.1:1/mcp?k=***&x=***", "dial tcp 127.0.0.1:1: refused", "https://h.example/p?q=***"} {
		if !strings.Contains(out, kept) {
			t.Errorf("%q lost from %q", kept, out)
		}
	}
	punct := `names another origin (http://127.0.0.1:3832) than (http://h:1/x?k=v1v1v1), "http://h/p"; ok.`
	if got := ErrorText(punct); got != `names another origin (http://127.0.0.1:3832) than (http://h:1/x?k=***), "http://h/p"; ok.` {
		t.Errorf("punctuation: %q", got)
	}
	if got := ErrorText("no urls here"); got != "no urls here" {
		t.Errorf("plain text changed: %q", got)
	}
}

func TestErrorTextBoundsLongMessages(t *testing.T) {
	Register("long-secret-value-abcdef")
	long := strings.Repeat("x", MaxErrorText-10) + "long-secret-value-abcdef" + strings.Repeat("y", 1<<20)
	out := ErrorText(long)
	if len(out) > MaxErrorText || strings.Contains(out, "long-secret") {
		t.Errorf("%d bytes, secret part shown: %v", len(out), strings.Contains(out, "long-secret"))
	}
}

func TestErrorKeepsTheChain(t *testing.T) {
	base := &url.Error{Op: "Post", URL: "http://h/mcp?k=qv-3344", Err: fs.ErrNotExist}
	err := Error(fmt.Errorf("server %q: %w", "s", base))
	if strings.Contains(err.Error(), "qv-3344") {
		t.Errorf("message: %v", err)
	}
	var ue *url.Error
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &ue) {
		t.Error("the chain was lost")
	}
	if Error(err) != err {
		t.Error("redacting twice wrapped again")
	}
	if Error(nil) != nil {
		t.Error("nil became an error")
	}
	plain := errors.New("nothing to hide")
	if Error(plain) != plain {
		t.Error("an error with nothing to mask was wrapped")
	}
}
