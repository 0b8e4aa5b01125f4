package redact

import (
	"errors"
	"net/url"
	"strings"
)

// MaxErrorText bounds the message of an error passed through [ErrorText]:
// a server can put megabytes into an error it sends.
const MaxErrorText = 4 << 10

// errorWindow is how much of a long message is redacted before it is cut,
// so that a secret straddling the cut is still masked whole.
const errorWindow = MaxErrorText + 16<<10

// ErrorText is [String] for a message that leaves a package as an error or
// a status: it also drops the user info and masks every query value of
// each URL in it (a query carries expanded ${VAR} values under any name,
// and Go's *url.Error quotes the whole URL), and cuts it to at most
// [MaxErrorText] bytes.
func ErrorText(s string) string {
	cut := len(s) > MaxErrorText
	if len(s) > errorWindow {
		s = s[:errorWindow]
	}
	s = String(s)
	if strings.Contains(s, "://") {
		s = urlsIn().ReplaceAllStringFunc(s, bareURL)
	}
	if cut || len(s) > MaxErrorText {
		s = clip(s, MaxErrorText)
	}
	return s
}

// bareURL masks the user info and every query value of a URL. Punctuation
// that ends a sentence is not taken for part of it. A URL that does not
// parse loses everything after a '?', '#' or '@' in it.
func bareURL(match string) string {
	raw := strings.TrimRight(match, ").,;:!]}")
	return bareURL1(raw) + match[len(raw):]
}

func bareURL1(raw string) string {
	if !strings.ContainsAny(raw, "?#@") {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		scheme, rest, _ := strings.Cut(raw, "://")
		if i := strings.IndexAny(rest, "?#@"); i >= 0 {
			rest = rest[:i]
		}
		return scheme + "://" + rest + Mask
	}
	hadUser := u.User != nil
	u.User = nil
	changed := hadUser
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{Mask}
		}
		u.RawQuery = strings.ReplaceAll(q.Encode(), url.QueryEscape(Mask), Mask)
		changed = true
	}
	if u.Fragment != "" {
		u.Fragment, u.RawFragment = Mask, ""
		changed = true
	}
	if !changed {
		return raw
	}
	out := u.String()
	if hadUser {
		if scheme, rest, ok := strings.Cut(out, "://"); ok {
			out = scheme + "://" + Mask + "@" + rest
		}
	}
	return out
}

// Error returns err with its message passed through [ErrorText]; errors.Is
// and errors.As still see err's chain (whose own messages are not
// redacted: print the returned error, not what it wraps). nil stays nil,
// and an error already passed through Error is returned as is.
func Error(err error) error {
	if err == nil {
		return nil
	}
	var done *redactedError
	if errors.As(err, &done) && done == err {
		return err
	}
	msg := err.Error()
	if clean := ErrorText(msg); clean != msg {
		return &redactedError{msg: clean, err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
