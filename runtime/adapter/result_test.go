package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcp-host/mcp-host/core"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEveryContentTypeFromRealServer: each MCP content type crosses the
// wire from a go-sdk server and arrives as the matching core content.
func TestEveryContentTypeFromRealServer(t *testing.T) {
	png := []byte{0x89, 'P', 'N', 'G', 0, 1, 2}
	wav := []byte("RIFF\x00\x01wav")
	blob := []byte{0, 0xff, 0x10}
	size := int64(42)
	p := newPeer(t, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "all", InputSchema: objectSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{
				Content: []mcp.Content{
					&mcp.TextContent{Text: "héllo"},
					&mcp.ImageContent{Data: png, MIMEType: "image/png"},
					&mcp.AudioContent{Data: wav, MIMEType: "audio/wav"},
					&mcp.ResourceLink{URI: "file:///a.txt", Name: "a.txt", Title: "A", Description: "the a file", MIMEType: "text/plain", Size: &size},
					&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://t", MIMEType: "text/markdown", Text: "# doc"}},
					&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://b", MIMEType: "application/octet-stream", Blob: blob}},
				},
				StructuredContent: map[string]any{"count": 2, "tag": "<x>"},
			}, nil
		})
	})
	tool, err := New("s", p.tools(t)[0], p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.Call(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []core.Content{
		{Type: core.ContentText, Text: "héllo"},
		{Type: core.ContentImage, Data: png, MIMEType: "image/png"},
		{Type: core.ContentAudio, Data: wav, MIMEType: "audio/wav"},
		{Type: core.ContentLink, URI: "file:///a.txt", Name: "a.txt", Title: "A", Text: "the a file", MIMEType: "text/plain"},
		{Type: core.ContentResource, URI: "mem://t", MIMEType: "text/markdown", Text: "# doc"},
		{Type: core.ContentResource, URI: "mem://b", MIMEType: "application/octet-stream", Data: blob},
	}
	if !reflect.DeepEqual(res.Content, want) {
		t.Errorf("content:\n got %+v\nwant %+v", res.Content, want)
	}
	if string(res.Structured) != `{"count":2,"tag":"<x>"}` {
		t.Errorf("structured = %s", res.Structured)
	}
	if res.IsError {
		t.Error("IsError set")
	}
}

// TestIsErrorFromRealServer: a tool error keeps the server's content.
func TestIsErrorFromRealServer(t *testing.T) {
	p := newPeer(t, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "fail", InputSchema: objectSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "disk full"}}}, nil
		})
	})
	tool, _ := New("s", p.tools(t)[0], p, Options{})
	res, err := tool.Call(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || len(res.Content) != 1 || res.Content[0].Text != "disk full" {
		t.Errorf("result = %+v", res)
	}
	// An error without content still tells the model something.
	empty := ConvertResult(&mcp.CallToolResult{IsError: true}, 0)
	if !empty.IsError || len(empty.Content) != 1 || empty.Content[0].Text == "" {
		t.Errorf("empty error result = %+v", empty)
	}
}

func TestOddContent(t *testing.T) {
	res := ConvertResult(&mcp.CallToolResult{Content: []mcp.Content{
		&mcp.EmbeddedResource{},
		nil,
		// The only content types ConvertResult does not support are the
		// deprecated sampling ones, which a server can still send.
		//lint:ignore SA1019 the test needs a content type ConvertResult does not support
		&mcp.ToolUseContent{Name: "x"},
		&mcp.TextContent{Text: "ok \xff\xfe end"},
		&mcp.ResourceLink{URI: "u\xff", Name: "n\xc3"},
	}, StructuredContent: json.RawMessage(`{"a":`)}, 0)
	texts := []string{}
	for _, c := range res.Content {
		if !utf8.ValidString(c.Text) || !utf8.ValidString(c.URI) || !utf8.ValidString(c.Name) {
			t.Errorf("invalid UTF-8 passed on: %+v", c)
		}
		texts = append(texts, c.Text)
	}
	joined := strings.Join(texts, "|")
	for _, want := range []string{"embedded resource without contents", "empty content block", "unsupported content block *mcp.ToolUseContent", "ok \uFFFD end", "structured content omitted: not valid JSON"} {
		if !strings.Contains(joined, want) {
			t.Errorf("content %q lacks %q", joined, want)
		}
	}
	if res.Structured != nil {
		t.Errorf("invalid structured JSON kept: %s", res.Structured)
	}
	if _, err := json.Marshal(res); err != nil {
		t.Errorf("result does not marshal: %v", err)
	}
	raw := ConvertResult(&mcp.CallToolResult{StructuredContent: json.RawMessage("{\"a\":\"\xff\"}")}, 0)
	if !utf8.Valid(raw.Structured) || !json.Valid(raw.Structured) {
		t.Errorf("structured = %q", raw.Structured)
	}
}

func textBlocks(texts ...string) *mcp.CallToolResult {
	res := &mcp.CallToolResult{}
	for _, s := range texts {
		res.Content = append(res.Content, &mcp.TextContent{Text: s})
	}
	return res
}

func note(omitted, total int) string {
	return fmt.Sprintf("[output truncated: %d of %d bytes omitted]", omitted, total)
}

func TestTruncationBoundaries(t *testing.T) {
	const limit = 100
	for _, tc := range []struct {
		name string
		res  *mcp.CallToolResult
		want []string // texts of the content blocks
	}{
		{"exact limit", textBlocks(strings.Repeat("a", 60), strings.Repeat("b", 40)),
			[]string{strings.Repeat("a", 60), strings.Repeat("b", 40)}},
		{"limit+1", textBlocks(strings.Repeat("a", 60), strings.Repeat("b", 41)),
			[]string{strings.Repeat("a", 60), strings.Repeat("b", 40), note(1, 101)}},
		// "é" is 2 bytes and would straddle byte 100: it goes whole.
		{"rune at the boundary", textBlocks(strings.Repeat("a", 99) + "é"),
			[]string{strings.Repeat("a", 99), note(2, 101)}},
		// "🙂" is 4 bytes starting at byte 98.
		{"4-byte rune at the boundary", textBlocks(strings.Repeat("a", 98) + "🙂" + "zz"),
			[]string{strings.Repeat("a", 98), note(6, 104)}},
		{"blocks after a cut are dropped", textBlocks(strings.Repeat("a", 150), "b"),
			[]string{strings.Repeat("a", 100), note(51, 151)}},
		{"binary that does not fit is dropped", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: strings.Repeat("a", 50)},
			&mcp.ImageContent{Data: make([]byte, 51), MIMEType: "image/png"},
		}}, []string{strings.Repeat("a", 50), note(51, 101)}},
		{"structured counts", &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: strings.Repeat("a", 90)}},
			StructuredContent: json.RawMessage(`{"k":"0123456789"}`),
		}, []string{strings.Repeat("a", 90), note(18, 108)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := ConvertResult(tc.res, limit)
			var got []string
			kept := 0
			for _, c := range res.Content {
				got = append(got, c.Text)
				if !strings.HasPrefix(c.Text, "[output truncated") {
					kept += size(&c)
				}
				if !utf8.ValidString(c.Text) {
					t.Errorf("cut inside a rune: %q", c.Text)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("texts:\n got %q\nwant %q", got, tc.want)
			}
			if kept+len(res.Structured) > limit {
				t.Errorf("kept %d bytes, over the limit %d", kept+len(res.Structured), limit)
			}
		})
	}
}

func TestDefaultOutputLimit(t *testing.T) {
	tool, _ := New("s", &mcp.Tool{Name: "t", InputSchema: objectSchema}, textResult(strings.Repeat("x", 223456)), Options{})
	res, err := tool.Call(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 2 || len(res.Content[0].Text) != DefaultMaxOutputBytes || res.Content[1].Text != note(123456, 223456) {
		t.Errorf("got %d blocks, first %d bytes, last %q", len(res.Content), len(res.Content[0].Text), res.Content[len(res.Content)-1].Text)
	}
	embedded := ConvertResult(&mcp.CallToolResult{Content: []mcp.Content{
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://x", Text: string(bytes.Repeat([]byte("y"), 200))}},
	}}, 107)
	if embedded.Content[0].URI != "mem://x" || len(embedded.Content[0].Text) != 100 || embedded.Content[1].Text != note(100, 207) {
		t.Errorf("embedded text resource cut: %+v", embedded.Content)
	}
}
