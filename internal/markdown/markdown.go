// Package markdown is the one Markdown parser of the reference UIs: goldmark
// (CommonMark) with its GFM table extension, fed only text whose
// quadratic shapes [Bound] has escaped. host chat walks the syntax tree
// [Parse] returns with its own terminal writer; host web shows the HTML
// [HTML] makes from the same tree: every text escaped, raw HTML shown as
// text, links only to http(s) URLs and no images.
//
// It must not import any other package of this module.
package markdown

import (
	"bytes"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	mdtext "github.com/yuin/goldmark/text"
)

// md is goldmark with the table extension, made on first use (its tables
// are not built by commands that render no Markdown). Table cells are
// aligned with the align attribute: host web's Content Security Policy
// refuses style attributes.
var md = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(goldmark.WithExtensions(
		extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
	))
})

// Parser returns the parser: goldmark's CommonMark parser with the table
// extension.
func Parser() parser.Parser { return md().Parser() }

// Parse parses the Markdown s, bounded first ([Bound]), and returns the
// document and the source its nodes' segments point into.
func Parse(s string) (ast.Node, []byte) {
	src := []byte(Bound(s))
	return Parser().Parse(mdtext.NewReader(src)), src
}

// MaxHTMLSource bounds the text [HTML] parses as Markdown; longer text is
// shown as escaped plain text.
const MaxHTMLSource = 1 << 20

// HTML renders the Markdown s (untrusted: a model's answer) as HTML to be
// put into a page. Every text is escaped; raw HTML in s is shown as its
// text, never as markup; a link keeps its target only when it is an
// absolute http(s) URL (and opens in a new tab, with no referrer and no
// opener), otherwise it is its text; an image is a link to its URL, so
// that nothing is fetched unasked. No element has an id. Text longer than
// [MaxHTMLSource] is one escaped paragraph.
func HTML(s string) string {
	if len(s) > MaxHTMLSource {
		var b bytes.Buffer
		b.WriteString(`<p class="md-plain">`)
		b.Write(escape([]byte(s)))
		b.WriteString("</p>\n")
		return b.String()
	}
	doc, src := Parse(s)
	var b bytes.Buffer
	if err := htmlRenderer().Render(&b, src, doc); err != nil {
		// A renderer writing to memory does not fail; if it ever does, the
		// text is still shown, escaped.
		return `<p class="md-plain">` + string(escape([]byte(s))) + "</p>\n"
	}
	return b.String()
}
