// Command primserver is a stdio MCP server (go-sdk) for the end-to-end
// tests of what the host hands the model and the user: a server's
// instructions, a result over the output budget, and tool annotations.
//
//	-instructions TEXT  the instructions its initialize answer gives
//	-big N              the size in bytes of the "big" tool's result
//
// Tools: "look" claims readOnlyHint: true and openWorldHint: false and
// answers "looked"; "poke" has no annotations and answers "poked"; "big"
// answers one text block of N bytes, lines of 100 bytes each
// ("line 000001 " then dots, a newline), the last one marked "THE END".
//
// Prompt: "picture" answers two user messages, a question and a 16x16
// PNG image (always the same bytes).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	instructions := flag.String("instructions", "", "the server's instructions")
	big := flag.Int("big", 5<<20, "bytes of the big tool's result")
	flag.Parse()
	server := mcp.NewServer(&mcp.Implementation{Name: "primserver", Version: "1"}, &mcp.ServerOptions{Instructions: *instructions})
	closed := false
	mcp.AddTool(server, &mcp.Tool{Name: "look", Description: "looks at something",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &closed}},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "looked"}}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "poke", Description: "changes something"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "poked"}}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "big", Description: "answers a very large text"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: bigText(*big)}}}, nil, nil
		})
	server.AddPrompt(&mcp.Prompt{Name: "picture", Description: "asks about a picture"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: "What is in this picture?"}},
				{Role: "user", Content: &mcp.ImageContent{MIMEType: "image/png", Data: picture()}},
			}}, nil
		})
	_ = server.Run(context.Background(), &mcp.StdioTransport{})
}

// picture is a 16x16 PNG: a red square on white.
func picture() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for y := range 16 {
		for x := range 16 {
			c := color.RGBA{255, 255, 255, 255}
			if x >= 4 && x < 12 && y >= 4 && y < 12 {
				c = color.RGBA{255, 0, 0, 255}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

// bigText is n bytes of 100-byte numbered lines.
func bigText(n int) string {
	var b bytes.Buffer
	b.Grow(n)
	for i := 1; b.Len()+100 <= n; i++ {
		line := fmt.Sprintf("line %06d ", i)
		if b.Len()+200 > n {
			line += "THE END "
		}
		b.WriteString(line)
		b.Write(bytes.Repeat([]byte("."), 99-len(line)))
		b.WriteByte('\n')
	}
	return b.String()
}
