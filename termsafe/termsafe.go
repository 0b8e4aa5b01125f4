// Package termsafe renders untrusted text for a terminal. Everything an MCP
// server sends (tool names, titles, descriptions, instructions, server
// info, results, stderr, error messages that quote it) goes through it
// before a CLI command, `host chat`, `host demo` or a login prompt prints
// it, and the runtime uses it to strip names and titles before they reach
// the UI protocol.
//
// The output never holds a byte that makes a terminal do something other
// than show a character: no C0 control (newline and tab only where the
// caller allows several lines), no DEL, no C1 control, no escape sequence
// (ESC, CSI, OSC, DCS, SOS, PM and APC sequences are dropped whole, in
// their 7-bit and 8-bit forms), no bidirectional control and no invisible
// format character that could hide or reorder text (Unicode category Cf:
// zero-width spaces and joiners, word joiners, BOM, tag characters, …),
// and no invalid UTF-8 (each bad run becomes U+FFFD). Its length is
// bounded; text that was cut ends in a visible "…".
//
// It must not import any other package of this module: every layer uses it.
package termsafe

import (
	"unicode"
	"unicode/utf8"
)

// Ellipsis ends text that was cut.
const Ellipsis = "…"

// Default bounds, in runes (the ellipsis included).
const (
	// DefaultLineMax bounds [Line]: names, titles, one-line messages.
	DefaultLineMax = 256
	// DefaultTextMax bounds [Text]: descriptions, results, stderr tails.
	DefaultTextMax = 8192
)

// Options say how [Sanitize] renders text.
type Options struct {
	// MultiLine keeps newlines and tabs (a lone CR, CRLF, U+2028 and
	// U+2029 become a newline). Without it the text is one line: each of
	// them becomes a space.
	MultiLine bool
	// Max bounds the output in runes, the ellipsis included: longer text is
	// cut to Max-1 runes followed by [Ellipsis]. Zero means the default of
	// the mode ([DefaultLineMax] or [DefaultTextMax]); a negative value
	// means no bound.
	Max int
}

// Line renders s as one line of at most [DefaultLineMax] runes.
func Line(s string) string { return Sanitize(s, Options{}) }

// LineMax renders s as one line of at most max runes (see [Options.Max]).
func LineMax(s string, max int) string { return Sanitize(s, Options{Max: max}) }

// Text renders s keeping its newlines and tabs, at most [DefaultTextMax]
// runes.
func Text(s string) string { return Sanitize(s, Options{MultiLine: true}) }

// TextMax renders s keeping its newlines and tabs, at most max runes (see
// [Options.Max]).
func TextMax(s string, max int) string { return Sanitize(s, Options{MultiLine: true, Max: max}) }

// Strip removes what Sanitize removes but never cuts: for names and titles
// that are identities rather than display text, and for text passed on to
// a model. Newlines and tabs become spaces.
func Strip(s string) string { return Sanitize(s, Options{Max: -1}) }

// Sanitize renders s for a terminal as o says. It returns s itself when
// there is nothing to change.
func Sanitize(s string, o Options) string {
	max := o.Max
	if max == 0 {
		max = DefaultLineMax
		if o.MultiLine {
			max = DefaultTextMax
		}
	}
	if plain(s, o.MultiLine, max) {
		return s
	}
	size := min(len(s), 1<<16)
	if max >= 0 {
		size = min(size, 4*max+len(Ellipsis))
	}
	w := writer{max: max, buf: make([]byte, 0, size)}
	newline := ' '
	if o.MultiLine {
		newline = '\n'
	}
	for i := 0; i < len(s) && !w.full; {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			// A run of invalid bytes becomes one U+FFFD.
			for i < len(s) {
				if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size > 1 {
					break
				}
				i++
			}
			w.rune(utf8.RuneError)
			continue
		case r == 0x1b:
			i = skipEscape(s, i+1)
			continue
		case r == 0x9b: // 8-bit CSI
			i = skipCSI(s, i+size)
			continue
		case r == 0x90 || r == 0x98 || r == 0x9d || r == 0x9e || r == 0x9f: // DCS, SOS, OSC, PM, APC
			i = skipString(s, i+size)
			continue
		case r == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				break // the \n that follows is the line break
			}
			w.rune(newline)
		case r == '\n' || r == 0x2028 || r == 0x2029:
			w.rune(newline)
		case r == '\t':
			if o.MultiLine {
				w.rune('\t')
			} else {
				w.rune(' ')
			}
		case isVariationSelector(r):
			// One selector after a visible character is how emoji and CJK
			// variants are spelled; more of them, or one on its own, can
			// only carry hidden data.
			if w.lastVisible() {
				w.rune(r)
			}
		case IsUnsafe(r):
		default:
			w.rune(r)
		}
		i += size
	}
	return w.string()
}

// plain reports whether s needs no change: printable ASCII (and newlines and
// tabs when multiLine) within the bound.
func plain(s string, multiLine bool, max int) bool {
	if max >= 0 && len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			continue
		}
		if multiLine && (c == '\n' || c == '\t') {
			continue
		}
		return false
	}
	return true
}

// IsUnsafe reports whether r is a rune Sanitize never outputs, wherever it
// stands: a C0 control other than newline and tab, DEL, a C1 control, a
// format character (Unicode category Cf, which holds the bidirectional
// controls U+202A-U+202E, U+2066-U+2069, U+200E, U+200F and U+061C, the
// zero-width characters U+200B-U+200D, U+2060-U+2064, U+FEFF and the tag
// characters U+E0000-U+E007F), the invisible fillers U+034F, U+115F, U+1160,
// U+17B4, U+17B5, U+3164 and U+FFA0, or U+FFFE/U+FFFF. Variation selectors
// are kept only right after a visible character, so they are not listed.
func IsUnsafe(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\n' && r != '\t'
	case r < 0x7f:
		return false
	case r <= 0x9f:
		return true
	case r < 0x034f:
		return r == 0x00ad // soft hyphen, Cf
	}
	switch r {
	case 0x034f, 0x115f, 0x1160, 0x17b4, 0x17b5, 0x3164, 0xffa0, 0xfffe, 0xffff:
		return true
	}
	return unicode.Is(unicode.Cf, r) || (r >= 0xe0000 && r <= 0xe007f)
}

// isVariationSelector reports whether r is one of U+FE00-U+FE0F,
// U+180B-U+180D, U+180F or U+E0100-U+E01EF.
func isVariationSelector(r rune) bool {
	return (r >= 0xfe00 && r <= 0xfe0f) || (r >= 0x180b && r <= 0x180f && r != 0x180e) || (r >= 0xe0100 && r <= 0xe01ef)
}

// writer collects the output up to max runes.
type writer struct {
	buf  []byte
	max  int  // runes; negative: no bound
	n    int  // runes written
	cut  int  // len(buf) after max-1 runes
	full bool // more than max runes came: buf ends in the ellipsis
	last rune
}

func (w *writer) rune(r rune) {
	if w.max >= 0 && w.n == w.max {
		w.buf = append(w.buf[:w.cut], Ellipsis...)
		w.full = true
		return
	}
	w.buf = utf8.AppendRune(w.buf, r)
	w.n++
	w.last = r
	if w.n == w.max-1 {
		w.cut = len(w.buf)
	}
}

// lastVisible reports whether the last rune written is one a variation
// selector may follow.
func (w *writer) lastVisible() bool {
	return w.n > 0 && !isVariationSelector(w.last) && !unicode.IsSpace(w.last)
}

func (w *writer) string() string { return string(w.buf) }

// skipEscape returns the index after the escape sequence whose ESC ends
// right before s[i]. A sequence cut short by the end of s ends there.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch c := s[i]; {
	case c == '[':
		return skipCSI(s, i+1)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		return skipString(s, i+1)
	case c >= 0x20 && c <= 0x2f: // nF: intermediates, then a final byte
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
			i++
		}
		if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
			i++
		}
		return i
	case c >= 0x30 && c <= 0x7e: // Fp, Fe, Fs: ESC and one byte
		return i + 1
	}
	return i // a lone ESC; what follows is text
}

// skipCSI returns the index after a control sequence whose introducer ends
// right before s[i]: parameter bytes, intermediate bytes and a final byte.
// Any other byte ends the sequence and is read as text again.
func skipCSI(s string, i int) int {
	for i < len(s) && s[i] >= 0x30 && s[i] <= 0x3f {
		i++
	}
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipString returns the index after a control string (OSC, DCS, SOS, PM,
// APC) whose introducer ends right before s[i]. It ends at BEL, at ST (ESC
// \ or U+009C), at CAN or SUB, or at the end of s; an ESC that does not
// start ST ends it too and is read again as the start of a new sequence.
func skipString(s string, i int) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case 0x07, 0x18, 0x1a:
			return i + 1
		case 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i
		case 0xc2:
			if i+1 < len(s) && s[i+1] == 0x9c {
				return i + 2
			}
		}
	}
	return i
}
