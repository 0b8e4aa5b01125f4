package core_test

import (
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/core"
)

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"echo":                  true,
		"mcp_fs_read_1a2b3c4d":  true,
		"A-b_9":                 true,
		strings.Repeat("x", 64): true,
		"":                      false,
		strings.Repeat("x", 65): false,
		"has space":             false,
		"dot.name":              false,
		"slash/name":            false,
		"ünïcode":               false,
		"new\nline":             false,
		"trailing\n":            false,
	} {
		if got := core.ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestRegistry(t *testing.T) {
	var r core.Registry // the zero value is usable
	for _, n := range []string{"b", "a", "c"} {
		if err := r.Add(&echoTool{name: n}); err != nil {
			t.Fatalf("Add(%s): %v", n, err)
		}
	}
	if err := r.Add(&echoTool{name: "a"}); err == nil || !strings.Contains(err.Error(), `"a"`) || !strings.Contains(err.Error(), "already registered") {
		t.Errorf("duplicate Add error = %v", err)
	}
	if err := r.Add(&echoTool{name: "bad name"}); err == nil || !strings.Contains(err.Error(), `"bad name"`) {
		t.Errorf("invalid-name Add error = %v", err)
	}
	if err := r.Add(nil); err == nil {
		t.Error("Add(nil) succeeded")
	}
	if tl, ok := r.Lookup("a"); !ok || tl.Name() != "a" {
		t.Errorf("Lookup(a) = %v, %v", tl, ok)
	}
	if _, ok := r.Lookup("zzz"); ok {
		t.Error("Lookup of an absent tool succeeded")
	}
	snap := r.Snapshot()
	if got := names(snap); got != "b,a,c" {
		t.Errorf("snapshot = %s, want insertion order b,a,c", got)
	}
	if !r.Remove("a") || r.Remove("a") {
		t.Error("Remove(a) twice should report true then false")
	}
	if err := r.Add(&echoTool{name: "d"}); err != nil {
		t.Fatal(err)
	}
	if got := names(snap); got != "b,a,c" {
		t.Errorf("old snapshot changed to %s", got)
	}
	if got := names(r.Snapshot()); got != "b,c,d" || r.Len() != 3 {
		t.Errorf("snapshot after remove/add = %s (len %d)", got, r.Len())
	}
	if _, err := core.NewRegistry(&echoTool{name: "x"}, &echoTool{name: "x"}); err == nil {
		t.Error("NewRegistry accepted duplicate names")
	}
}

func names(ts []core.Tool) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name())
	}
	return strings.Join(out, ",")
}

func TestRenderResult(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   *core.Result
		want string
	}{
		{"nil", nil, ""},
		{"text", core.TextResult("hi"), "hi"},
		{"error", core.ErrorResult("boom"), "Error: boom"},
		{"mixed", &core.Result{Content: []core.Content{
			{Type: core.ContentText, Text: "a"},
			{Type: core.ContentImage, MIMEType: "image/png", Data: []byte{1, 2, 3}},
			{Type: core.ContentAudio, Data: []byte{1}},
			{Type: core.ContentLink, URI: "file:///x", Name: "x"},
			{Type: core.ContentResource, URI: "file:///t", Text: "body"},
			{Type: core.ContentResource, URI: "file:///b", MIMEType: "application/octet-stream", Data: []byte{0, 0}},
		}}, "a\n[image: image/png, 3 bytes]\n[audio: unknown, 1 bytes]\n[resource link: file:///x (x)]\n[resource file:///t]\nbody\n[resource file:///b: application/octet-stream, 2 bytes]"},
		{"structured only", &core.Result{Structured: []byte(`{"n":1}`)}, `{"n":1}`},
		{"structured with text", &core.Result{Content: []core.Content{{Type: core.ContentText, Text: "t"}}, Structured: []byte(`{"n":1}`)}, "t"},
	} {
		if got := core.RenderResult(tc.in); got != tc.want {
			t.Errorf("%s: RenderResult = %q, want %q", tc.name, got, tc.want)
		}
	}
}
