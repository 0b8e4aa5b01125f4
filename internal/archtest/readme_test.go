package archtest

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// The README is the front door and docs/ holds the reference; these tests
// keep both readable and true: paragraphs that start with a sentence and
// no empty section (here), links that resolve to a file and a heading
// (readme_links_test.go), and `host ...` commands that the built binary
// has (readme_commands_test.go). Each check is a function of a file's
// text, so it is also tried on broken text, and each problem is reported
// as file:line.

// mdDoc is one Markdown file: its path relative to the repository root,
// with forward slashes, and its text.
type mdDoc struct {
	rel, text string
}

// docFiles returns README.md and every docs/*.md of the repository.
func docFiles(t *testing.T, root string) []mdDoc {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	paths = append([]string{filepath.Join(root, "README.md")}, paths...)
	var out []mdDoc
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, mdDoc{rel: filepath.ToSlash(rel), text: string(b)})
	}
	if len(out) < 10 {
		t.Fatalf("found only %d Markdown files (README.md and docs/*.md)", len(out))
	}
	return out
}

// mdLine is one line of a Markdown file, numbered from 1; code is set for
// the lines of a fenced code block, its fences included.
type mdLine struct {
	n    int
	text string
	code bool
}

// mdLines splits text into lines and marks the fenced code blocks.
func mdLines(text string) []mdLine {
	var out []mdLine
	inCode := false
	for i, l := range strings.Split(text, "\n") {
		fence := strings.HasPrefix(strings.TrimLeft(l, " "), "```")
		if fence {
			inCode = !inCode
		}
		out = append(out, mdLine{n: i + 1, text: l, code: inCode || fence})
	}
	return out
}

// proseProblems reports the paragraphs of text that start mid-sentence (a
// lower-case word, the orphan an edit or a move leaves behind) and the
// sections without a line of their own before the next heading.
func proseProblems(name, text string) []string {
	var out []string
	prevBlank := true
	heading, headingLine, body := "", 0, 0
	endSection := func() {
		if heading != "" && body == 0 {
			out = append(out, fmt.Sprintf("%s:%d: section %q is empty", name, headingLine, heading))
		}
	}
	for _, l := range mdLines(text) {
		if l.code {
			body++
			prevBlank = false
			continue
		}
		if strings.HasPrefix(l.text, "#") {
			endSection()
			heading, headingLine, body, prevBlank = l.text, l.n, 0, true
			continue
		}
		if strings.TrimSpace(l.text) == "" {
			prevBlank = true
			continue
		}
		body++
		if prevBlank {
			word := strings.Fields(l.text)[0]
			if unicode.IsLower([]rune(word)[0]) && !isName(word) && !strings.HasPrefix(l.text, " ") {
				out = append(out, fmt.Sprintf("%s:%d: a paragraph starts mid-sentence: %q", name, l.n, l.text))
			}
		}
		prevBlank = false
	}
	endSection()
	return out
}

// isName reports whether word is a name that is written in lower case
// first, such as macOS: one with a capital letter after its first.
func isName(word string) bool {
	for _, r := range []rune(word)[1:] {
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// README and docs read whole: no paragraph starts mid-sentence, and no
// section is empty.
func TestREADMEParagraphsStartWithASentence(t *testing.T) {
	for _, d := range docFiles(t, repoRoot(t)) {
		for _, p := range proseProblems(d.rel, d.text) {
			t.Error(p)
		}
	}
}

// The prose check finds an orphan paragraph and an empty section, with
// their lines, and passes whole text.
func TestProseProblemsFindsBrokenText(t *testing.T) {
	good := "# Title\n\nIt starts.\n\nmacOS: a name.\n\n## Code\n\n```\nlower case in code\n```\n\n- a list item\n"
	if p := proseProblems("good.md", good); len(p) > 0 {
		t.Errorf("whole text: %q", p)
	}
	broken := "# Title\n\nIt starts.\n\nthe orphan of a move.\n\n## Empty\n\n## Last\n"
	got := strings.Join(proseProblems("broken.md", broken), "\n")
	for _, want := range []string{"broken.md:5: a paragraph starts mid-sentence", `broken.md:7: section "## Empty" is empty`, `broken.md:9: section "## Last" is empty`} {
		if !strings.Contains(got, want) {
			t.Errorf("problems of broken text lack %q:\n%s", want, got)
		}
	}
}
