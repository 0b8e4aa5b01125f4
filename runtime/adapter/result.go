package adapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/mcp-host/mcp-host/core"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ConvertResult turns an MCP tool result into a core result. Text, images,
// audio, resource links and embedded resources become core content; the
// structured content is kept; isError is carried over with the server's
// content. Invalid UTF-8 is replaced with U+FFFD.
//
// The output counted against maxOut is the bytes of text, binary data, URIs,
// names and titles, plus the structured content. When it exceeds maxOut
// (<= 0 means [DefaultMaxOutputBytes]), blocks are kept in order while they
// fit; the first that does not is cut on a UTF-8 boundary if it is text and
// dropped otherwise, everything after it is dropped, and a final text block
// says "[output truncated: N of M bytes omitted]".
func ConvertResult(res *mcp.CallToolResult, maxOut int) *core.Result {
	out, _ := convert(res, maxOut)
	return out
}

// convert is ConvertResult that also reports whether the result was cut.
func convert(res *mcp.CallToolResult, maxOut int) (*core.Result, bool) {
	if maxOut <= 0 {
		maxOut = DefaultMaxOutputBytes
	}
	out := &core.Result{IsError: res.IsError}
	cut := false
	blocks := make([]core.Content, 0, len(res.Content)+1)
	total := 0
	for _, c := range res.Content {
		b := convertContent(c)
		total += size(&b)
		blocks = append(blocks, b)
	}
	structured, note := encodeStructured(res.StructuredContent)
	total += len(structured)

	if total <= maxOut {
		out.Content = blocks
		out.Structured = structured
	} else {
		used := 0
		kept := blocks[:0]
		for i := range blocks {
			b := blocks[i]
			n := size(&b)
			if used+n <= maxOut {
				kept = append(kept, b)
				used += n
				continue
			}
			if b.Data == nil && (b.Type == core.ContentText || b.Type == core.ContentResource) {
				if room := maxOut - used - (n - len(b.Text)); room > 0 {
					b.Text = cutUTF8(b.Text, room)
					kept = append(kept, b)
					used += size(&b)
				}
			}
			break // nothing after a block that did not fit
		}
		if used+len(structured) <= maxOut {
			out.Structured = structured
			used += len(structured)
		}
		cut = true
		omitted := total - used
		out.Content = append(kept, core.Content{
			Type: core.ContentText,
			Text: fmt.Sprintf("[output truncated: %d of %d bytes omitted]", omitted, total),
		})
	}
	if note != "" {
		out.Content = append(out.Content, core.Content{Type: core.ContentText, Text: note})
	}
	if out.IsError && len(out.Content) == 0 {
		out.Content = append(out.Content, core.Content{Type: core.ContentText, Text: "the tool reported an error without details"})
	}
	return out, cut
}

// size is the number of output bytes b counts for.
func size(b *core.Content) int {
	return len(b.Text) + len(b.Data) + len(b.URI) + len(b.Name) + len(b.Title)
}

// cutUTF8 returns the longest prefix of the valid UTF-8 string s that has
// at most n bytes and ends on a rune boundary.
func cutUTF8(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// convertContent converts one MCP content block.
func convertContent(c mcp.Content) core.Content {
	switch c := c.(type) {
	case *mcp.TextContent:
		return core.Content{Type: core.ContentText, Text: validUTF8(c.Text)}
	case *mcp.ImageContent:
		return core.Content{Type: core.ContentImage, Data: c.Data, MIMEType: validUTF8(c.MIMEType)}
	case *mcp.AudioContent:
		return core.Content{Type: core.ContentAudio, Data: c.Data, MIMEType: validUTF8(c.MIMEType)}
	case *mcp.ResourceLink:
		return core.Content{
			Type:     core.ContentLink,
			URI:      validUTF8(c.URI),
			Name:     validUTF8(c.Name),
			Title:    validUTF8(c.Title),
			Text:     validUTF8(c.Description),
			MIMEType: validUTF8(c.MIMEType),
		}
	case *mcp.EmbeddedResource:
		if c.Resource == nil {
			return core.Content{Type: core.ContentText, Text: "[embedded resource without contents omitted]"}
		}
		r := c.Resource
		out := core.Content{Type: core.ContentResource, URI: validUTF8(r.URI), MIMEType: validUTF8(r.MIMEType)}
		if r.Blob != nil {
			out.Data = r.Blob
		} else {
			out.Text = validUTF8(r.Text)
		}
		return out
	case nil:
		return core.Content{Type: core.ContentText, Text: "[empty content block omitted]"}
	}
	return core.Content{Type: core.ContentText, Text: fmt.Sprintf("[unsupported content block %T omitted]", c)}
}

// encodeStructured returns the structured content as JSON, or a note when
// it cannot be passed on.
func encodeStructured(v any) (json.RawMessage, string) {
	switch s := v.(type) {
	case nil:
		return nil, ""
	case json.RawMessage:
		if len(s) == 0 {
			return nil, ""
		}
		if !json.Valid(s) {
			return nil, "[structured content omitted: not valid JSON]"
		}
		if !utf8.Valid(s) {
			return bytes.ToValidUTF8(s, []byte("\uFFFD")), ""
		}
		return s, ""
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Sprintf("[structured content omitted: %v]", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), ""
}
