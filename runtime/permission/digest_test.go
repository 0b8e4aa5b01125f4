package permission

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestDigestPinsTitle: the confirm shows the title, so a changed title
// changes the digest and asks again (issue 11 item 6).
func TestDigestPinsTitle(t *testing.T) {
	base := &mcp.Tool{Name: "t", Title: "Read the README", Description: "d"}
	for _, other := range []*mcp.Tool{
		{Name: "t", Title: "Delete everything", Description: "d"},
		{Name: "t", Description: "d"},
	} {
		if Digest(other) == Digest(base) {
			t.Errorf("title %q digests like %q", other.Title, base.Title)
		}
	}
	if Digest(base) != Digest(&mcp.Tool{Name: "t", Title: "Read the README", Description: "d"}) {
		t.Error("one definition, two digests")
	}
}

// TestChangedFields: the digest says which part of a definition changed.
func TestChangedFields(t *testing.T) {
	schema := json.RawMessage(`{"type":"object"}`)
	base := &mcp.Tool{Name: "t", Title: "T", Description: "d", InputSchema: schema}
	for _, tc := range []struct {
		def  *mcp.Tool
		want []string
	}{
		{&mcp.Tool{Name: "t", Title: "T", Description: "d", InputSchema: json.RawMessage(`{ "type" : "object" }`)}, nil},
		{&mcp.Tool{Name: "t", Title: "U", Description: "d", InputSchema: schema}, []string{"title"}},
		{&mcp.Tool{Name: "t", Title: "T", Description: "e", InputSchema: schema}, []string{"description"}},
		{&mcp.Tool{Name: "t", Title: "T", Description: "d", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}, []string{"input schema"}},
		{&mcp.Tool{Name: "t", Title: "T", Description: "d", InputSchema: schema, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, []string{"annotations"}},
		{&mcp.Tool{Name: "t", Title: "U", Description: "e", InputSchema: schema, Annotations: &mcp.ToolAnnotations{}}, []string{"title", "description", "annotations"}},
	} {
		got, known := ChangedFields(Digest(base), Digest(tc.def))
		if !known || !slices.Equal(got, tc.want) {
			t.Errorf("%+v: changed %v (known %v), want %v", tc.def, got, known, tc.want)
		}
	}
	// A digest pinned before fields were recorded (a bare sha256) cannot say.
	if got, known := ChangedFields(strings.Repeat("a", 64), Digest(base)); known || got != nil {
		t.Errorf("old digest: %v %v", got, known)
	}
}

// TestChangedRequestSaysWhat: the request for a changed definition names
// what changed, and its text says so.
func TestChangedRequestSaysWhat(t *testing.T) {
	rec := &recorder{answers: []Response{{Answer: AllowTool}, {Answer: AllowOnce}, {Answer: AllowOnce}}}
	store, _ := OpenStore("")
	g := mustGate(t, Options{Confirmer: rec, Store: store})
	orig := newTool(t, "s", &mcp.Tool{Name: "t", Title: "Read the README", Description: "Reads it."})
	g.Check(context.Background(), orig, args)
	retitled := newTool(t, "s", &mcp.Tool{Name: "t", Title: "Delete everything", Description: "Deletes it."})
	if v, _ := g.Check(context.Background(), retitled, args); v.By != ByUser || rec.asked() != 2 {
		t.Fatalf("a changed title was not asked about: %+v", v)
	}
	r := rec.seen[1]
	if !r.Changed || !slices.Equal(r.ChangedFields, []string{"title", "description"}) {
		t.Errorf("changed=%v fields=%v", r.Changed, r.ChangedFields)
	}
	if want := "Its definition CHANGED since you always allowed it: title, description."; !strings.Contains(r.Text(), want) {
		t.Errorf("text lacks %q:\n%s", want, r.Text())
	}
	if note := r.ChangeNote(); note != "The server changed this tool's title and description since you always allowed it." {
		t.Errorf("ChangeNote = %q", note)
	}

	// An answer pinned by an older host (a bare sha256) asks again, saying
	// what it cannot tell.
	store.AllowTool("s", "old", strings.Repeat("a", 64))
	g.Check(context.Background(), newTool(t, "s", &mcp.Tool{Name: "old"}), args)
	if r := rec.seen[2]; !r.Changed || r.ChangedFields != nil || !strings.Contains(r.ChangeNote(), "older version") {
		t.Errorf("old pin: changed=%v fields=%v note=%q", r.Changed, r.ChangedFields, r.ChangeNote())
	}
}
