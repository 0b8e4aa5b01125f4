package chat

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// inline renders the inline Markdown of a paragraph or heading as one
// styled string: code spans, emphasis, links, images, autolinks,
// backslash escapes, character references, and hard line breaks (two
// spaces or a backslash at the end of a line), which become newlines; a
// plain line break is a space. Every piece of text is cleaned for the
// terminal after escapes and references are resolved, so &#27; cannot
// bring back an ESC; the only control sequences are the styles added here.
func inline(src string) string { return inlineAt(src, 0) }

// maxInlineDepth bounds emphasis and links inside each other; deeper
// markup is shown as text. With it, and with the parser's memory of
// searches that failed, rendering stays linear in the text's length
// whatever a model writes (BenchmarkMarkdownHostile).
const maxInlineDepth = 8

func inlineAt(src string, depth int) string {
	p := inlineParser{src: src, depth: depth}
	return p.run()
}

// inlineParser renders one run of inline Markdown.
type inlineParser struct {
	src   string
	depth int
	out   strings.Builder
	text  strings.Builder // plain text not yet cleaned

	// noCloser remembers, per emphasis delimiter or backtick run, that a
	// search for its closer found none: no later opener can find one.
	noCloser map[string]bool
	// match holds the index of the bracket or parenthesis that closes the
	// one at each index ('[' and '('), or -1; made on first use.
	match []int
}

func (p *inlineParser) flush() {
	if p.text.Len() > 0 {
		p.out.WriteString(uncut(p.text.String()))
		p.text.Reset()
	}
}

func (p *inlineParser) run() string {
	src := p.src
	for i := 0; i < len(src); {
		if end, ok := p.markup(i); ok {
			i = end
			continue
		}
		p.text.WriteByte(src[i])
		i++
	}
	p.flush()
	return strings.TrimRight(p.out.String(), " ")
}

// markup renders the markup that starts at src[i], if any, and returns the
// index after it.
func (p *inlineParser) markup(i int) (int, bool) {
	src := p.src
	c := src[i]
	switch {
	case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
		p.flush()
		p.out.WriteByte('\n')
		return i + 2, true
	case c == '\\' && i+1 < len(src) && isASCIIPunct(src[i+1]):
		p.text.WriteByte(src[i+1])
		return i + 2, true
	case c == '\n':
		p.flush()
		if strings.HasSuffix(src[:i], "  ") {
			p.out.WriteByte('\n')
		} else {
			p.out.WriteByte(' ')
		}
		return i + 1, true
	case c == '`':
		if code, end, ok := p.codeSpan(i); ok {
			p.flush()
			p.out.WriteString(mdCode.Render(uncut(code)))
			return end, true
		}
	case (c == '*' || c == '_') && p.depth < maxInlineDepth:
		if inner, end, level, ok := p.emphasis(i); ok {
			p.flush()
			style := [...]lipgloss.Style{mdEmph, mdStrong, mdStrong.Italic(true)}[level-1]
			p.out.WriteString(style.Render(inlineAt(inner, p.depth+1)))
			return end, true
		}
	case (c == '[' || c == '!' && i+1 < len(src) && src[i+1] == '[') && p.depth < maxInlineDepth:
		img := c == '!'
		start := i
		if img {
			start++
		}
		if label, dest, end, ok := p.link(start); ok {
			p.flush()
			label = inlineAt(label, p.depth+1)
			if img {
				p.out.WriteString("[image: " + label + "] " + uncut(dest))
			} else {
				p.out.WriteString(mdLink.Render(label))
				if d := uncut(dest); d != "" && d != ansi.Strip(label) {
					p.out.WriteString(" (" + d + ")")
				}
			}
			return end, true
		}
	case c == '<':
		if end := strings.IndexByte(src[i:min(len(src), i+2048)], '>'); end > 1 {
			if u := src[i+1 : i+end]; isAutolink(u) {
				p.flush()
				p.out.WriteString(mdLink.Render(uncut(u)))
				return i + end + 1, true
			}
		}
	case c == '&':
		if end := strings.IndexByte(src[i:min(len(src), i+40)], ';'); end > 1 {
			if ref := src[i : i+end+1]; html.UnescapeString(ref) != ref {
				p.text.WriteString(html.UnescapeString(ref))
				return i + end + 1, true
			}
		}
	}
	return 0, false
}

// codeSpan reads the code span whose opening backticks start at src[i].
func (p *inlineParser) codeSpan(i int) (code string, end int, ok bool) {
	src := p.src
	n := 0
	for i+n < len(src) && src[i+n] == '`' {
		n++
	}
	fence := src[i : i+n]
	if p.noCloser[fence] {
		return "", 0, false
	}
	for j := i + n; j < len(src); {
		k := strings.Index(src[j:], fence)
		if k < 0 {
			break
		}
		k += j
		if k+n < len(src) && src[k+n] == '`' { // a longer run: not the closer
			for k < len(src) && src[k] == '`' {
				k++
			}
			j = k
			continue
		}
		code = strings.ReplaceAll(src[i+n:k], "\n", " ")
		if len(code) > 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
			code = code[1 : len(code)-1]
		}
		return code, k + n, true
	}
	p.failed(fence)
	return "", 0, false
}

// failed remembers that no closer for delim follows.
func (p *inlineParser) failed(delim string) {
	if p.noCloser == nil {
		p.noCloser = make(map[string]bool)
	}
	p.noCloser[delim] = true
}

// emphasis reads the emphasis whose delimiter run starts at src[i]: * or _
// for emphasis (level 1), ** or __ for strong (2), *** or ___ for both
// (3), closed by the same run. An opener must be followed, and a closer
// preceded, by something other than space; _ does not open or close inside
// a word.
func (p *inlineParser) emphasis(i int) (inner string, end, level int, ok bool) {
	src := p.src
	c := src[i]
	n := 1
	for n < 3 && i+n < len(src) && src[i+n] == c {
		n++
	}
	delim := src[i : i+n]
	if i+n >= len(src) || isSpaceByte(src[i+n]) || c == '_' && wordBefore(src, i) || p.noCloser[delim] {
		return "", 0, 0, false
	}
	// Whether src[j] closes depends on src around j alone, so a search
	// that fails fails for every later opener too.
	for j := i + n; j < len(src); j++ {
		switch {
		case src[j] == '\\':
			j++
			continue
		case !strings.HasPrefix(src[j:], delim) || isSpaceByte(src[j-1]):
			continue
		case j+n < len(src) && src[j+n] == c:
			j += n // part of a longer run: not this closer
			continue
		case c == '_' && j+n < len(src) && isWordByte(src, j+n):
			continue
		}
		if j == i+n {
			return "", 0, 0, false
		}
		return src[i+n : j], j + n, n, true
	}
	p.failed(delim)
	return "", 0, 0, false
}

// link reads [label](destination "title") starting at src[i] ('[').
func (p *inlineParser) link(i int) (label, dest string, end int, ok bool) {
	src := p.src
	j := p.closer(i)
	if j < 0 || j+1 >= len(src) || src[j+1] != '(' {
		return "", "", 0, false
	}
	k := p.closer(j + 1)
	if k < 0 {
		return "", "", 0, false
	}
	dest = strings.TrimSpace(src[j+2 : k])
	if sp := strings.IndexAny(dest, " \n"); sp >= 0 { // a title after the destination
		dest = dest[:sp]
	}
	dest = strings.TrimSuffix(strings.TrimPrefix(dest, "<"), ">")
	return src[i+1 : j], html.UnescapeString(dest), k + 1, true
}

// closer returns the index of the ']' or ')' that closes the '[' or '(' at
// src[i], or -1. The matches of the whole text are found in one pass, on
// first use; backslash-escaped brackets do not count.
func (p *inlineParser) closer(i int) int {
	if p.match == nil {
		p.match = make([]int, len(p.src))
		var square, round []int
		for k := 0; k < len(p.src); k++ {
			p.match[k] = -1
			switch p.src[k] {
			case '\\':
				if k+1 < len(p.src) {
					k++
					p.match[k] = -1
				}
			case '[':
				square = append(square, k)
			case '(':
				round = append(round, k)
			case ']':
				if n := len(square); n > 0 {
					p.match[square[n-1]], square = k, square[:n-1]
				}
			case ')':
				if n := len(round); n > 0 {
					p.match[round[n-1]], round = k, round[:n-1]
				}
			}
		}
	}
	return p.match[i]
}

// isAutolink reports whether u, between < and >, is an absolute URI or an
// email address.
func isAutolink(u string) bool {
	if strings.ContainsAny(u, " <>\n") {
		return false
	}
	if scheme, _, ok := strings.Cut(u, ":"); ok && len(scheme) >= 2 && len(scheme) <= 32 {
		for i, r := range scheme {
			if !(r < utf8.RuneSelf && (unicode.IsLetter(r) || i > 0 && (unicode.IsDigit(r) || strings.ContainsRune("+.-", r)))) {
				return false
			}
		}
		return true
	}
	at := strings.IndexByte(u, '@')
	return at > 0 && strings.Contains(u[at:], ".")
}

func isASCIIPunct(c byte) bool {
	return c < utf8.RuneSelf && unicode.IsPunct(rune(c)) || strings.IndexByte("$+<=>^`|~", c) >= 0
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\n' || c == '\t' }

// wordBefore reports whether a letter or digit ends src[:i].
func wordBefore(src string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(src[:i])
	return i > 0 && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// isWordByte reports whether a letter or digit starts src[i:].
func isWordByte(src string, i int) bool {
	r, _ := utf8.DecodeRuneInString(src[i:])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}
