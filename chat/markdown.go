package chat

import (
	"regexp"
	"strings"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/glamour/styles"
	"github.com/charmbracelet/lipgloss"
	"github.com/mcp-host/mcp-host/termsafe"
)

// A finished answer is rendered as Markdown (glamour) when it moves into
// the transcript; while it streams it is shown as it comes. The text is
// cleaned before it is rendered (streamText); the rendering is cleaned
// again, keeping only the colour codes the renderer adds, because
// Markdown's character references (&#27;) would otherwise bring back the
// bytes the first cleaning removed.

// markdown renders Markdown for one width; it is rebuilt when the width
// changes.
type markdown struct {
	width int
	r     *glamour.TermRenderer
}

// render returns s rendered for width cells, or s itself when the
// renderer fails.
func (md *markdown) render(s string, width int) string {
	if strings.TrimSpace(s) == "" {
		return s
	}
	if md.r == nil || md.width != width {
		style := styles.DarkStyleConfig
		zero := uint(0)
		style.Document.Margin = &zero
		style.Document.BlockPrefix, style.Document.BlockSuffix = "", ""
		r, err := glamour.NewTermRenderer(glamour.WithStyles(style), glamour.WithWordWrap(width),
			glamour.WithColorProfile(lipgloss.ColorProfile()))
		if err != nil {
			return s
		}
		md.r, md.width = r, width
	}
	out, err := md.r.Render(s)
	if err != nil {
		return s
	}
	lines := strings.Split(strings.Trim(onlySGR(out), "\n"), "\n")
	for i, l := range lines {
		// Drop the padding at the end of a line, keeping its codes.
		for {
			t := trailingBlank.ReplaceAllString(l, "$1")
			if t == l {
				break
			}
			l = t
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

var (
	sgrCode       = regexp.MustCompile(`\x1b\[[0-9;:]*m`)
	trailingBlank = regexp.MustCompile(` +((?:\x1b\[[0-9;:]*m)*)$`)
)

// onlySGR keeps the colour codes (SGR) of s and cleans everything else
// with termsafe, newlines kept.
func onlySGR(s string) string {
	var b strings.Builder
	last := 0
	for _, loc := range sgrCode.FindAllStringIndex(s, -1) {
		b.WriteString(termsafe.Sanitize(s[last:loc[0]], termsafe.Options{MultiLine: true, Max: -1}))
		b.WriteString(s[loc[0]:loc[1]])
		last = loc[1]
	}
	b.WriteString(termsafe.Sanitize(s[last:], termsafe.Options{MultiLine: true, Max: -1}))
	return b.String()
}
