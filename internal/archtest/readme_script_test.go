package archtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/core/scripted"
)

// scriptBlocks returns the JSON code blocks of text's section heading
// (up to the next heading of its level or above) that are scripts of the
// scripted model: an array of steps or an object of runs.
func scriptBlocks(text, heading string) []string {
	var out []string
	level := strings.Count(strings.Fields(heading)[0], "#")
	in, inBlock := false, false
	var block strings.Builder
	for _, l := range mdLines(text) {
		if !l.code && strings.HasPrefix(l.text, "#") {
			h := strings.Fields(l.text)[0]
			if l.text == heading {
				in = true
			} else if strings.Trim(h, "#") == "" && len(h) <= level {
				in = false
			}
			continue
		}
		if !in || !l.code {
			continue
		}
		switch {
		case strings.HasPrefix(l.text, "```json"):
			inBlock = true
			block.Reset()
		case strings.HasPrefix(l.text, "```"):
			if inBlock {
				s := strings.TrimSpace(block.String())
				if strings.HasPrefix(s, "[") || strings.HasPrefix(s, `{"runs"`) {
					out = append(out, s)
				}
			}
			inBlock = false
		case inBlock:
			block.WriteString(l.text + "\n")
		}
	}
	return out
}

// The scripts docs/SERVE.md shows for the scripted model are scripts
// host serve --script takes: no field the format does not know.
func TestDocScriptsParse(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "SERVE.md"))
	if err != nil {
		t.Fatal(err)
	}
	scripts := scriptBlocks(string(b), "## The scripted model")
	if len(scripts) == 0 {
		t.Fatal(`docs/SERVE.md, "The scripted model", shows no script`)
	}
	for _, s := range scripts {
		if _, err := scripted.Parse([]byte(s)); err != nil {
			t.Errorf("docs/SERVE.md's script does not parse: %v\n%s", err, s)
		}
	}
}
