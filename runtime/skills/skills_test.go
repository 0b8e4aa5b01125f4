package skills

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/runtime/hostfetch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeServer serves skills/list pages and resources, recording reads.
type fakeServer struct {
	pages [][]any
	next  []string
	files map[string]string
	reads []string
	caps  []int // the answer cap of each read's context
}

func (f *fakeServer) Call(_ context.Context, method string, params, result any) error {
	if method != "skills/list" {
		return fmt.Errorf("unexpected %s", method)
	}
	cursor, _ := params.(map[string]any)["cursor"].(string)
	i := 0
	if cursor != "" {
		fmt.Sscan(strings.TrimPrefix(cursor, "p"), &i)
	}
	b, _ := json.Marshal(map[string]any{"skills": f.pages[i], "nextCursor": f.next[i]})
	return json.Unmarshal(b, result)
}

func (f *fakeServer) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	f.reads = append(f.reads, uri)
	f.caps = append(f.caps, hostfetch.AnswerCap(ctx))
	text, ok := f.files[uri]
	if !ok {
		return nil, errors.New("no such resource")
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, Text: text}}}, nil
}

const (
	skillURI = "skill://pdf/SKILL.md"
	formsURI = "skill://pdf/FORMS.md"
	manifest = "---\nname: pdf\ndescription: PDF tools\nversion: 2\n---\n\nUse the forms.\n"
	forms    = "Supporting content.\n"
)

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func entry(m, f string) map[string]any {
	return map[string]any{
		"uri":         skillURI,
		"frontmatter": map[string]any{"name": "pdf", "description": "PDF tools", "version": 2},
		"resources": []any{
			map[string]any{"uri": skillURI, "digest": digest(m), "size": len(m)},
			map[string]any{"uri": formsURI, "digest": digest(f), "size": len(f)},
		},
	}
}

func server(served, listedManifest string) *fakeServer {
	return &fakeServer{
		pages: [][]any{{entry(listedManifest, forms)}}, next: []string{""},
		files: map[string]string{skillURI: served, formsURI: forms},
	}
}

func TestLoadVerifiedSkill(t *testing.T) {
	srv := server(manifest, manifest)
	ctx := context.Background()
	entries, problems, err := List(ctx, srv)
	if err != nil || len(entries) != 1 || len(problems) != 0 {
		t.Fatalf("list: %v %v %v", entries, problems, err)
	}
	if len(srv.reads) != 0 {
		t.Fatalf("listing read files: %v", srv.reads)
	}
	sk, err := Load(ctx, srv, entries[0])
	if err != nil {
		t.Fatal(err)
	}
	if sk.Body != "Use the forms.\n" || entries[0].Name() != "pdf" || entries[0].Description() != "PDF tools" {
		t.Errorf("skill: %+v", sk)
	}
	if fs := sk.Files(); len(fs) != 1 || fs[0].URI != formsURI {
		t.Fatalf("files: %v", fs)
	}
	if got, err := sk.Read(ctx, formsURI); err != nil || got != forms {
		t.Fatalf("read: %q %v", got, err)
	}
	if _, err := sk.Read(ctx, "skill://pdf/../../etc/passwd"); err == nil {
		t.Error("read a file the listing does not name")
	}
	// Every read is bounded on the wire (hostfetch), not only checked after.
	for i, c := range srv.caps {
		if c != hostfetch.WireBytes(MaxFileBytes) {
			t.Errorf("read %s had answer cap %d, want %d", srv.reads[i], c, hostfetch.WireBytes(MaxFileBytes))
		}
	}
}

func TestVerificationFailuresReadNothingMore(t *testing.T) {
	for name, served := range map[string]string{
		"digest":          strings.Replace(manifest, "Use the forms.", "Use the evil!", 1),
		"size":            manifest + "extra",
		"frontmatter":     strings.Replace(manifest, "description: PDF tools", "description: Exfiltrate credentials", 1),
		"no front matter": "Use the forms.\n",
	} {
		t.Run(name, func(t *testing.T) {
			listed := manifest
			if name == "frontmatter" || name == "no front matter" {
				listed = served // digest and size agree; only the front matter differs
			}
			srv := server(served, listed)
			entries, _, _ := List(context.Background(), srv)
			_, err := Load(context.Background(), srv, entries[0])
			if !errors.Is(err, ErrVerification) {
				t.Fatalf("load: %v, want a verification error", err)
			}
			if len(srv.reads) != 1 || srv.reads[0] != skillURI {
				t.Errorf("reads %v, want SKILL.md only", srv.reads)
			}
		})
	}
}

func TestListFollowsCursorsWithGuards(t *testing.T) {
	srv := &fakeServer{pages: [][]any{{entry(manifest, forms)}, {map[string]any{"uri": "skill://x/README"}}, {}}, next: []string{"p1", "p2", "p1"}}
	entries, problems, err := List(context.Background(), srv)
	if err != nil || len(entries) != 1 {
		t.Fatalf("entries %d, err %v", len(entries), err)
	}
	joined := strings.Join(problems, "\n")
	if !strings.Contains(joined, "does not name a SKILL.md") || !strings.Contains(joined, "repeated a cursor") {
		t.Errorf("problems: %v", problems)
	}
}
