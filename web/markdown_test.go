package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// POST /api/markdown renders a model's Markdown through internal/markdown
// behind the same guard as the rest of the API: the cookie, JSON only, no
// foreign origin. Raw HTML comes back as text.
func TestMarkdownEndpoint(t *testing.T) {
	s, _ := start(t, echoRuntime)
	c := login(t, s)
	body := `{"text":"## Result\n\n**bold** <img src=x onerror=alert(1)>"}`
	resp := do(t, "POST", base(s)+"/api/markdown", c, body, nil)
	var a markdownAnswer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%d: %v", resp.StatusCode, err)
	}
	if !strings.Contains(a.HTML, "<h2>Result</h2>") || !strings.Contains(a.HTML, "<strong>bold</strong>") ||
		strings.Contains(a.HTML, "<img") || !strings.Contains(a.HTML, "&lt;img src=x onerror=alert(1)&gt;") {
		t.Errorf("html %q", a.HTML)
	}
	for name, r := range map[string]*http.Response{
		"no cookie":      do(t, "POST", base(s)+"/api/markdown", nil, body, nil),
		"foreign origin": do(t, "POST", base(s)+"/api/markdown", c, body, map[string]string{"Origin": "http://127.0.0.1:1"}),
		"text/plain":     do(t, "POST", base(s)+"/api/markdown", c, "", map[string]string{"Content-Type": "text/plain"}),
	} {
		if r.StatusCode == http.StatusOK {
			t.Errorf("%s: 200", name)
		}
	}
}
