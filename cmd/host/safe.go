package main

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/mcp-host/mcp-host/termsafe"
)

// What an MCP server sends (names, titles, descriptions, server info,
// results, error messages, stderr), what a project file says (ids,
// commands, URLs) and what an authorization server says (issuer, URLs) is
// untrusted: every CLI command renders it with [termsafe] before it
// reaches the terminal. Names, titles and one-line messages go through
// termsafe.Line, descriptions and stderr through termsafe.Text, URLs a
// person copies through termsafe.Strip (never cut), tool results through
// [result] (lines kept, never cut: the output is the point of `host mcp
// call`). JSON output keeps every string exactly, but escapes what a
// terminal would act on (see [jsonSafe]).

// maxErrorLine bounds one-line values that may be long errors (last
// error, status lines), in runes.
const maxErrorLine = 1000

// result renders a tool result's text for the terminal: stripped, lines
// kept, not cut.
func result(s string) string {
	return termsafe.Sanitize(s, termsafe.Options{MultiLine: true, Max: -1})
}

// message renders an error or warning, which may quote a server or a
// config file, for the terminal: stripped, lines kept, bounded.
func message(format string, args ...any) string {
	return termsafe.TextMax(fmt.Sprintf(format, args...), 4096)
}

// jsonSafe rewrites JSON text so that no byte of it drives a terminal:
// every rune termsafe would drop (DEL, C1 controls, bidi and other
// invisible format characters; encoding/json already escapes C0) becomes
// a \uXXXX escape. Such runes only occur inside JSON strings, so the
// result decodes to exactly the same values.
func jsonSafe(b []byte) []byte {
	if !needsEscape(b) {
		return b
	}
	out := make([]byte, 0, len(b)+64)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && size <= 1:
			out = append(out, `\ufffd`...) // encoding/json never writes invalid UTF-8; be safe anyway
		case termsafe.IsUnsafe(r) && r >= 0x20:
			if r > 0xffff {
				r -= 0x10000
				out = fmt.Appendf(out, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
		default:
			out = append(out, b[:size]...)
		}
		b = b[size:]
	}
	return out
}

// needsEscape reports whether b holds a byte jsonSafe may rewrite: DEL or
// any non-ASCII byte.
func needsEscape(b []byte) bool {
	return bytes.IndexFunc(b, func(r rune) bool { return r >= 0x7f }) >= 0
}
