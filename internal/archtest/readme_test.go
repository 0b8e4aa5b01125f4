package archtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// README reads whole: no paragraph starts mid-sentence (a lower-case
// word, the orphan an edit leaves behind), and no section is empty.
func TestREADMEParagraphsStartWithASentence(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	inCode, prevBlank := false, true
	heading := ""
	body := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			inCode = !inCode
			prevBlank = false
			continue
		}
		if inCode {
			continue
		}
		if strings.HasPrefix(l, "#") {
			if heading != "" && body == 0 {
				t.Errorf("README.md:%d: section %q is empty", i, heading)
			}
			heading, body, prevBlank = l, 0, true
			continue
		}
		if strings.TrimSpace(l) == "" {
			prevBlank = true
			continue
		}
		body++
		if prevBlank {
			r := []rune(strings.TrimSpace(l))[0]
			if unicode.IsLower(r) && !strings.HasPrefix(l, " ") {
				t.Errorf("README.md:%d: a paragraph starts mid-sentence: %q", i+1, l)
			}
		}
		prevBlank = false
	}
}
