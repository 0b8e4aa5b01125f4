package archtest

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

var (
	// mdLink is an inline link or image: [text](target) or
	// [text](target "title").
	mdLink = regexp.MustCompile(`\]\(([^)\s]*)(?:\s+"[^"]*")?\)`)
	// mdRefDef is a reference definition: [label]: target.
	mdRefDef = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s+(\S+)`)
	// mdAutolink is an autolink: <scheme:...>.
	mdAutolink = regexp.MustCompile(`<[a-zA-Z][a-zA-Z0-9+.-]*:[^>\s]*>`)
	// mdScheme starts a target that leaves the repository.
	mdScheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	// mdHeadingLink is a link inside a heading: only its text counts.
	mdHeadingLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// maskCode returns text with fenced code blocks and inline code spans
// blanked (newlines kept, so offsets still give line numbers): neither
// holds links.
func maskCode(text string) string {
	lines := mdLines(text)
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if !l.code {
			b.WriteString(l.text)
		}
	}
	// Code spans end at a paragraph's end: mask paragraph by paragraph.
	paras := strings.Split(b.String(), "\n\n")
	for i, p := range paras {
		paras[i] = maskSpans(p)
	}
	return strings.Join(paras, "\n\n")
}

// maskSpans blanks the code spans of one paragraph.
func maskSpans(p string) string {
	out := []byte(p)
	for _, sp := range codeSpans(p) {
		for k := sp[0]; k < sp[1]; k++ {
			if out[k] != '\n' {
				out[k] = ' '
			}
		}
	}
	return string(out)
}

// codeSpans returns where the code spans of one paragraph are, backticks
// included: a run of backticks up to the next run of the same length (an
// unmatched run is literal text).
func codeSpans(p string) [][2]int {
	var out [][2]int
	run := func(i int) int { // the end of the run of backticks at i
		for i < len(p) && p[i] == '`' {
			i++
		}
		return i
	}
	for i := 0; i < len(p); {
		if p[i] != '`' {
			i++
			continue
		}
		j := run(i)
		end := -1
		for k := j; k < len(p); {
			if p[k] != '`' {
				k++
				continue
			}
			m := run(k)
			if m-k == j-i {
				end = m
				break
			}
			k = m
		}
		if end < 0 {
			i = j
			continue
		}
		out = append(out, [2]int{i, end})
		i = end
	}
	return out
}

// slug is GitHub's anchor of a heading's text: lower case, every character
// but letters, marks, digits, '_', '-' and spaces dropped, spaces turned
// into '-'. Inline code and links count by their text.
func slug(heading string) string {
	h := strings.TrimSpace(strings.TrimLeft(heading, "#"))
	h = mdHeadingLink.ReplaceAllString(h, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of a Markdown file's headings, a repeated
// one numbered as GitHub does (x, x-1, x-2).
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range mdLines(text) {
		if l.code || !strings.HasPrefix(l.text, "#") {
			continue
		}
		s := slug(l.text)
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// linkProblems reports the links of the file rel (relative to root, with
// forward slashes) whose target leaves the repository, names no existing
// file or directory, or has an anchor that no heading of its Markdown file
// has.
func linkProblems(root, rel, text string) []string {
	masked := maskCode(text)
	lineOf := func(off int) int { return strings.Count(masked[:off], "\n") + 1 }
	type found struct {
		line   int
		target string
	}
	var links []found
	for _, m := range mdLink.FindAllStringSubmatchIndex(masked, -1) {
		links = append(links, found{lineOf(m[0]), masked[m[2]:m[3]]})
	}
	for i, l := range strings.Split(masked, "\n") {
		if m := mdRefDef.FindStringSubmatch(l); m != nil {
			links = append(links, found{i + 1, m[1]})
		}
	}
	var out []string
	for _, m := range mdAutolink.FindAllStringIndex(masked, -1) {
		out = append(out, fmt.Sprintf("%s:%d: %s links outside the repository (the repository stands alone)", rel, lineOf(m[0]), masked[m[0]:m[1]]))
	}
	for _, l := range links {
		if p := checkTarget(root, rel, text, l.target); p != "" {
			out = append(out, fmt.Sprintf("%s:%d: (%s): %s", rel, l.line, l.target, p))
		}
	}
	return out
}

// checkTarget says what is wrong with one link target of the file rel
// (whose text is text), or "".
func checkTarget(root, rel, text, target string) string {
	if target == "" {
		return "an empty link"
	}
	if mdScheme.MatchString(target) {
		return "links outside the repository (the repository stands alone)"
	}
	file, anchor, _ := strings.Cut(target, "#")
	targetText := text
	if file != "" {
		if strings.HasPrefix(file, "/") {
			return "an absolute path: write it relative to " + rel
		}
		p := path.Clean(path.Join(path.Dir(rel), file))
		if p == ".." || strings.HasPrefix(p, "../") {
			return "leaves the repository"
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			if fi, serr := os.Stat(filepath.Join(root, filepath.FromSlash(p))); serr == nil && fi.IsDir() && anchor == "" {
				return ""
			}
			return fmt.Sprintf("no such file: %s", p)
		}
		if anchor == "" {
			return ""
		}
		if !strings.HasSuffix(p, ".md") {
			return fmt.Sprintf("an anchor into %s, which is not Markdown", p)
		}
		targetText = string(b)
	}
	if anchor != "" && !anchors(targetText)[anchor] {
		return fmt.Sprintf("no heading has the anchor #%s", anchor)
	}
	return ""
}

// Every link of README.md and docs/*.md resolves: to a file or directory
// of the repository, and an anchor to a heading of its file; none leaves
// the repository.
func TestDocLinksResolve(t *testing.T) {
	root := repoRoot(t)
	n := 0
	for _, d := range docFiles(t, root) {
		n += len(mdLink.FindAllString(maskCode(d.text), -1))
		for _, p := range linkProblems(root, d.rel, d.text) {
			t.Error(p)
		}
	}
	t.Logf("%d links checked", n)
	if n < 50 {
		t.Errorf("found only %d links in README.md and docs/*.md: the link scan is broken", n)
	}
}

// The link check finds each kind of broken link, with its line, and
// passes good ones.
func TestLinkProblemsFindsBrokenLinks(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	other := "# Other\n\n## `host chat`: the UI\n\nText.\n\n## Twice\n\nA.\n\n## Twice\n\nB.\n\n## `\"auto_allow\": \"read_only\"`\n\nC.\n"
	if err := os.WriteFile(filepath.Join(root, "docs", "OTHER.md"), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	good := "# Good\n\nSee [other](docs/OTHER.md), [chat](docs/OTHER.md#host-chat-the-ui),\n" +
		"[twice](docs/OTHER.md#twice-1), [auto](docs/OTHER.md#auto_allow-read_only), [top](#good),\n" +
		"[dir](docs) and `[not a link](nowhere.md)`.\n\n```\n[in code](nowhere.md)\n```\n"
	if p := linkProblems(root, "README.md", good); len(p) > 0 {
		t.Errorf("good links: %q", p)
	}
	broken := "# Broken\n\nA [missing file](docs/GONE.md).\n\nA [bad anchor](docs/OTHER.md#nowhere) and [here](#nowhere).\n\n" +
		"Out: [site](https://example.com), <https://example.com>, [up](../x.md).\n"
	got := strings.Join(linkProblems(root, "README.md", broken), "\n")
	for _, want := range []string{
		"README.md:3: (docs/GONE.md): no such file: docs/GONE.md",
		"README.md:5: (docs/OTHER.md#nowhere): no heading has the anchor #nowhere",
		"README.md:5: (#nowhere): no heading has the anchor #nowhere",
		"README.md:7: (https://example.com): links outside the repository",
		"README.md:7: <https://example.com> links outside the repository",
		"README.md:7: (../x.md): leaves the repository",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems of broken links lack %q:\n%s", want, got)
		}
	}
	if p := linkProblems(root, "docs/OTHER.md", "# X\n\n[readme](../README.md)\n"); len(p) != 1 || !strings.Contains(p[0], "no such file: README.md") {
		t.Errorf("a link from docs/ is not resolved from docs/: %q", p)
	}
}
