// Command sdkcall is the one-shot go-sdk program `make bench` compares
// `host mcp call` with: it connects to a Streamable HTTP server, calls its
// echo tool once, prints the text and exits.
//
//	sdkcall <url>
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: sdkcall <url>")
		os.Exit(2)
	}
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "sdkcall", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: os.Args[1]}, nil)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sdkcall: connect %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hello"}`)})
	if err != nil {
		fmt.Fprintf(os.Stderr, "sdkcall: call echo: %v\n", err)
		os.Exit(1)
	}
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			fmt.Println(t.Text)
		}
	}
}
