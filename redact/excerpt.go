package redact

import (
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// DefaultExcerpt is the length of an [Excerpt] when none is given: enough
// to recognise a page, short enough for a status line.
const DefaultExcerpt = 256

// excerptInput bounds how much of a body Excerpt looks at.
const excerptInput = 64 << 10

// Excerpt renders the start of an untrusted response body for an error
// message: each of the known secret values (tokens, client secrets the
// caller sent; values shorter than 4 bytes are ignored) replaced by Mask,
// secrets masked as [JSON] and [String] do, values of secret keys in text
// that is not (or no longer, once cut) JSON masked too ("refresh_token":
// "...", client_secret=...), control characters, bidi controls and other
// invisible format characters dropped, whitespace collapsed to single
// spaces, and the result cut to at most max bytes of valid UTF-8 ending in
// "..." when cut. max <= 0 means DefaultExcerpt.
func Excerpt(body []byte, max int, secrets ...string) string {
	if max <= 0 {
		max = DefaultExcerpt
	}
	if len(body) > excerptInput {
		body = body[:excerptInput]
	}
	s := maskKnown(string(body), secrets)
	s = string(JSON([]byte(s)))
	s = secretPairs().ReplaceAllString(s, "${1}"+Mask)
	s = maskKnown(s, secrets) // in case re-encoding changed nothing, or a value reappeared
	return clip(printableLine(s), max)
}

// maskKnown replaces every occurrence of each secret in s.
func maskKnown(s string, secrets []string) string {
	for _, v := range secrets {
		if len(v) >= 4 {
			s = strings.ReplaceAll(s, v, Mask)
		}
	}
	return s
}

// secretPairs finds the values of secret keys in text: "key": "value",
// key=value, key: value.
var secretPairs = sync.OnceValue(func() *regexp.Regexp {
	keys := make([]string, 0, len(secretKeys))
	for k := range secretKeys {
		keys = append(keys, regexp.QuoteMeta(k))
		if d := strings.ReplaceAll(k, "_", "-"); d != k {
			keys = append(keys, regexp.QuoteMeta(d))
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(keys))) // longer alternatives first where they share a prefix
	return regexp.MustCompile(`(?i)((?:^|[^A-Za-z0-9_-])"?(?:` + strings.Join(keys, "|") + `)"?\s*[:=]\s*"?)(?:[^"&\s,;<>}]+)`)
})

// printableLine drops invalid UTF-8, control and format characters, and
// collapses whitespace.
func printableLine(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r):
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// clip cuts s to at most max bytes on a rune boundary, marking the cut.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const more = "..."
	if max <= len(more) {
		return more[:max]
	}
	n := max - len(more)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + more
}
