package web

import (
	"net/http"

	"github.com/mcp-host/mcp-host/internal/markdown"
)

// markdownRequest is the body of POST /api/markdown.
type markdownRequest struct {
	// Text is a model's answer, as Markdown.
	Text string `json:"text"`
}

// markdownAnswer is the answer to POST /api/markdown.
type markdownAnswer struct {
	// HTML is Text rendered by internal/markdown: the parser host chat
	// uses, every text escaped, raw HTML as text, links only to http(s).
	HTML string `json:"html"`
}

// serveMarkdown is POST /api/markdown: the page's way to show a model's
// answer as Markdown without a parser of its own. The page sends a text
// block of an answer once it is complete and puts the HTML in its place.
func serveMarkdown(w http.ResponseWriter, r *http.Request) {
	var req markdownRequest
	if !decodeBody(w, r, &req) {
		return
	}
	writeJSON(w, markdownAnswer{HTML: markdown.HTML(req.Text)})
}
