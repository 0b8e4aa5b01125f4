package markdown

import (
	"bytes"
	"net/url"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// goldmark's HTML renderer, without its unsafe option, already escapes
// every text and drops raw HTML for a comment; it still writes a link to
// any URL but javascript:, vbscript:, file: and data: (a relative URL, a
// mailto:, an unknown scheme), and an image as an <img> the browser
// fetches as soon as it is shown (a model can be made to put a secret in
// its URL). safeHTML replaces the renderers of those nodes: a link and an
// image become an anchor only for an absolute http(s) URL, and raw HTML is
// shown as the text it is, as host chat shows it.

// htmlRenderer is goldmark's renderer (with the table extension's) with
// safeHTML in front, made on first use.
var htmlRenderer = sync.OnceValue(func() renderer.Renderer {
	r := md().Renderer()
	r.AddOptions(renderer.WithNodeRenderers(util.Prioritized(safeHTML{}, 100)))
	return r
})

// safeHTML renders the nodes whose goldmark rendering a page must not
// trust: links, autolinks, images and raw HTML.
type safeHTML struct{}

// RegisterFuncs implements renderer.NodeRenderer.
func (safeHTML) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindLink, renderLink)
	reg.Register(ast.KindImage, renderLink)
	reg.Register(ast.KindAutoLink, renderAutoLink)
	reg.Register(ast.KindRawHTML, renderRawHTML)
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
}

// webURL returns dest when it is an absolute http(s) URL with a host, its
// scheme in lower case ("HTTPS://x" is https too: url.Parse lowers it, and
// the link says what it is), else nil.
func webURL(dest []byte) []byte {
	u, err := url.Parse(string(dest))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil
	}
	// The scheme is dest's first len(u.Scheme) bytes: Parse reads it from
	// the start.
	return append([]byte(u.Scheme), dest[len(u.Scheme):]...)
}

// openAnchor writes an anchor to href that opens in a new tab with no
// referrer and no opener.
func openAnchor(w util.BufWriter, href []byte) {
	_, _ = w.WriteString(`<a href="`)
	_, _ = w.Write(util.EscapeHTML(util.URLEscape(href, false)))
	_, _ = w.WriteString(`" rel="noopener noreferrer nofollow" target="_blank">`)
}

// renderLink renders a link or an image: an anchor around its text for an
// http(s) URL, else the text alone.
func renderLink(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	var dest []byte
	switch n := node.(type) {
	case *ast.Link:
		dest = n.Destination
	case *ast.Image:
		dest = n.Destination
	}
	href := webURL(dest)
	if href == nil {
		return ast.WalkContinue, nil
	}
	if !entering {
		_, _ = w.WriteString("</a>")
		return ast.WalkContinue, nil
	}
	openAnchor(w, href)
	if node.FirstChild() == nil {
		_, _ = w.Write(escape(href))
	}
	return ast.WalkContinue, nil
}

// renderAutoLink renders <https://…> as an anchor and any other autolink
// (an e-mail address, another scheme) as its text.
func renderAutoLink(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.AutoLink)
	label := escape(n.Label(source))
	if n.AutoLinkType != ast.AutoLinkURL {
		_, _ = w.Write(label)
		return ast.WalkContinue, nil
	}
	href := webURL(n.URL(source))
	if href == nil {
		_, _ = w.Write(label)
		return ast.WalkContinue, nil
	}
	openAnchor(w, href)
	_, _ = w.Write(label)
	_, _ = w.WriteString("</a>")
	return ast.WalkContinue, nil
}

// renderRawHTML shows inline HTML as its text.
func renderRawHTML(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		segs := node.(*ast.RawHTML).Segments
		for i := range segs.Len() {
			seg := segs.At(i)
			_, _ = w.Write(escape(seg.Value(source)))
		}
	}
	return ast.WalkSkipChildren, nil
}

// renderHTMLBlock shows a block of HTML as preformatted text.
func renderHTMLBlock(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.HTMLBlock)
	if !entering {
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString(`<pre class="md-html">`)
	lines := n.Lines()
	for i := range lines.Len() {
		line := lines.At(i)
		_, _ = w.Write(escape(line.Value(source)))
	}
	if n.HasClosure() {
		_, _ = w.Write(escape(n.ClosureLine.Value(source)))
	}
	_, _ = w.WriteString("</pre>\n")
	return ast.WalkSkipChildren, nil
}

// escape escapes text for HTML; a NUL becomes U+FFFD.
func escape(b []byte) []byte {
	return bytes.ReplaceAll(util.EscapeHTML(b), []byte{0}, []byte("\uFFFD"))
}
