// Package skills is the host side of the MCP skills extension (SEP-2640,
// "io.modelcontextprotocol/skills"): it lists the skills a server offers,
// loads one only when it is used, and verifies every file it reads against
// the listing (size, sha256 digest and, for SKILL.md, the front matter)
// before anything of it is used. Nothing of a skill is read before it is
// loaded, and nothing more of a skill that failed verification is read.
//
// It must not import runtime or runtime/serve.
package skills

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/mcp-host/mcp-host/runtime/hostfetch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.yaml.in/yaml/v3"
)

// ExtensionID is the extension's name in capabilities.
const ExtensionID = "io.modelcontextprotocol/skills"

// Limits.
const (
	// MaxPages bounds skills/list pagination.
	MaxPages = 50
	// MaxFileBytes bounds one skill file.
	MaxFileBytes = 16 << 20
)

// Caller is what the package needs of a session: an extension request and
// a resource read. *session.Session implements it through [SessionCaller].
type Caller interface {
	Call(ctx context.Context, method string, params, result any) error
	ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error)
}

// Entry is one skill as skills/list describes it.
type Entry struct {
	// URI is the skill's SKILL.md, skill://<path>/SKILL.md.
	URI string `json:"uri"`
	// Frontmatter is the SKILL.md front matter as the server states it.
	Frontmatter map[string]any `json:"frontmatter"`
	// Resources lists the skill's files with their digests and sizes, or
	// is "dynamic" (RawResources) when the server cannot list them.
	Resources    []File          `json:"-"`
	RawResources json.RawMessage `json:"resources"`
}

// File is one file of a skill.
type File struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// Name is the skill's name (from the front matter, else the URI).
func (e *Entry) Name() string {
	if n, ok := e.Frontmatter["name"].(string); ok && n != "" {
		return n
	}
	parts := strings.Split(strings.TrimSuffix(e.URI, "/SKILL.md"), "/")
	return parts[len(parts)-1]
}

// Description is the front matter's description.
func (e *Entry) Description() string {
	d, _ := e.Frontmatter["description"].(string)
	return d
}

func (e *Entry) file(uri string) (File, bool) {
	for _, f := range e.Resources {
		if f.URI == uri {
			return f, true
		}
	}
	return File{}, false
}

type listResult struct {
	Skills     []json.RawMessage `json:"skills"`
	NextCursor string            `json:"nextCursor"`
}

// List returns every skill the server offers, following cursors (at most
// MaxPages pages, stopping at a repeated cursor). It reads no skill file.
// Malformed entries are skipped and reported in problems.
func List(ctx context.Context, c Caller) (entries []*Entry, problems []string, err error) {
	seen := map[string]bool{}
	cursor := ""
	for page := 0; page < MaxPages; page++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var res listResult
		if err := c.Call(ctx, "skills/list", params, &res); err != nil {
			return entries, problems, fmt.Errorf("skills/list: %w", err)
		}
		for i, raw := range res.Skills {
			e, err := decodeEntry(raw)
			if err != nil {
				problems = append(problems, fmt.Sprintf("skills/list entry %d: %v; skipped", i, err))
				continue
			}
			entries = append(entries, e)
		}
		if res.NextCursor == "" {
			return entries, problems, nil
		}
		if seen[res.NextCursor] {
			return entries, append(problems, "skills/list: the server repeated a cursor; stopped"), nil
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
	return entries, append(problems, fmt.Sprintf("skills/list: more than %d pages; stopped", MaxPages)), nil
}

func decodeEntry(raw json.RawMessage) (*Entry, error) {
	var e Entry
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, err
	}
	if !strings.HasSuffix(e.URI, "/SKILL.md") {
		return nil, fmt.Errorf("uri %q does not name a SKILL.md", e.URI)
	}
	if e.Frontmatter == nil {
		return nil, fmt.Errorf("skill %s has no frontmatter", e.URI)
	}
	if len(e.RawResources) > 0 && string(e.RawResources) != `"dynamic"` {
		if err := json.Unmarshal(e.RawResources, &e.Resources); err != nil {
			return nil, fmt.Errorf("skill %s: resources: %v", e.URI, err)
		}
	}
	return &e, nil
}

// ErrVerification matches every error about content that does not match
// the listing.
var ErrVerification = errors.New("skill verification failed")

// Skill is a loaded, verified skill.
type Skill struct {
	Entry *Entry
	// Body is SKILL.md after its front matter.
	Body string
	// Manifest is all of SKILL.md.
	Manifest string

	c Caller
}

// Load reads the skill's SKILL.md and verifies it: its size and digest
// against the listing (when the listing gives them), and its front matter,
// field by field, against the listed front matter. On any mismatch it
// returns an error matching ErrVerification, and the skill must not be
// used: no further file of it is read.
func Load(ctx context.Context, c Caller, e *Entry) (*Skill, error) {
	text, err := readVerified(ctx, c, e, e.URI)
	if err != nil {
		return nil, err
	}
	fm, body, err := splitFrontmatter(text)
	if err != nil {
		return nil, fmt.Errorf("skill %s: %w: %v", e.URI, ErrVerification, err)
	}
	if diff := compareFrontmatter(fm, e.Frontmatter); diff != "" {
		return nil, fmt.Errorf("skill %s: %w: front matter differs from the listing: %s", e.URI, ErrVerification, diff)
	}
	return &Skill{Entry: e, Body: body, Manifest: text, c: c}, nil
}

// Files lists the skill's supporting files (all but SKILL.md).
func (s *Skill) Files() []File {
	var out []File
	for _, f := range s.Entry.Resources {
		if f.URI != s.Entry.URI {
			out = append(out, f)
		}
	}
	return out
}

// Read reads one supporting file of a loaded skill, verified against the
// listing. Files the listing does not name are refused.
func (s *Skill) Read(ctx context.Context, uri string) (string, error) {
	return readVerified(ctx, s.c, s.Entry, uri)
}

// readVerified reads uri and checks it against the entry's listing.
func readVerified(ctx context.Context, c Caller, e *Entry, uri string) (string, error) {
	f, listed := e.file(uri)
	if !listed && string(e.RawResources) != `"dynamic"` && uri != e.URI {
		return "", fmt.Errorf("skill %s: %s is not one of its files", e.URI, uri)
	}
	// Bounded while read: a file over MaxFileBytes is cut on the wire.
	res, err := hostfetch.Read(ctx, c, uri, MaxFileBytes)
	if errors.Is(err, hostfetch.ErrTooLarge) {
		return "", fmt.Errorf("skill %s: %s: %w: %w", e.URI, uri, ErrVerification, err)
	}
	if err != nil {
		return "", fmt.Errorf("skill %s: read %s: %w", e.URI, uri, err)
	}
	var data []byte
	for _, rc := range res.Contents {
		if rc == nil || rc.URI != "" && rc.URI != uri {
			continue
		}
		if rc.Text != "" {
			data = []byte(rc.Text)
		} else {
			data = rc.Blob
		}
		break
	}
	if data == nil {
		return "", fmt.Errorf("skill %s: %s: %w: no content", e.URI, uri, ErrVerification)
	}
	if len(data) > MaxFileBytes {
		return "", fmt.Errorf("skill %s: %s: %w: %d bytes, over the %d limit", e.URI, uri, ErrVerification, len(data), MaxFileBytes)
	}
	if listed {
		if f.Size != 0 && int64(len(data)) != f.Size {
			return "", fmt.Errorf("skill %s: %s: %w: %d bytes, the listing says %d", e.URI, uri, ErrVerification, len(data), f.Size)
		}
		if f.Digest != "" {
			sum := sha256.Sum256(data)
			if got := "sha256:" + hex.EncodeToString(sum[:]); !strings.EqualFold(got, f.Digest) {
				return "", fmt.Errorf("skill %s: %s: %w: digest %s, the listing says %s", e.URI, uri, ErrVerification, got, f.Digest)
			}
		}
	}
	return string(data), nil
}

// splitFrontmatter parses the leading --- delimited YAML block.
func splitFrontmatter(text string) (map[string]any, string, error) {
	t := strings.TrimPrefix(text, "\ufeff")
	t = strings.ReplaceAll(t, "\r\n", "\n")
	if !strings.HasPrefix(t, "---\n") {
		return nil, "", errors.New("SKILL.md does not start with a --- front matter block")
	}
	rest := t[len("---\n"):]
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return nil, "", errors.New("SKILL.md front matter is not closed by ---")
	}
	var fm map[string]any
	dec := yaml.NewDecoder(bytes.NewReader([]byte(rest[:end])))
	if err := dec.Decode(&fm); err != nil {
		return nil, "", fmt.Errorf("SKILL.md front matter is not YAML: %v", err)
	}
	body := rest[end+len("\n---"):]
	body = strings.TrimLeft(strings.TrimPrefix(body, "\n"), "\n")
	return fm, body, nil
}

// compareFrontmatter compares the file's front matter with the listed one,
// field by field, as JSON values; it returns "" when they agree.
func compareFrontmatter(file, listed map[string]any) string {
	norm := func(m map[string]any) map[string]any {
		b, err := json.Marshal(m)
		if err != nil {
			return nil
		}
		var out map[string]any
		_ = json.Unmarshal(b, &out)
		return out
	}
	a, b := norm(file), norm(listed)
	var diffs []string
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	for k := range keys {
		if !reflect.DeepEqual(a[k], b[k]) {
			diffs = append(diffs, fmt.Sprintf("%s: file %v, listing %v", k, short(a[k]), short(b[k])))
		}
	}
	return strings.Join(diffs, "; ")
}

func short(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return fmt.Sprintf("%q", s)
}
