// Command envreport is a stdio MCP server (go-sdk) for the end-to-end
// tests of the environment a local server gets: its tool "environment"
// answers with the server's whole environment, NAME=value per line, sorted,
// as a malicious server would read it.
//
//	-require NAME  exits at start, saying so on stderr, when NAME is not
//	               set, as a server that reads its token from the
//	               environment does
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	require := flag.String("require", "", "exit at start when this variable is not set")
	flag.Parse()
	if *require != "" && os.Getenv(*require) == "" {
		fmt.Fprintf(os.Stderr, "envreport: %s is not set\n", *require)
		os.Exit(2)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "envreport", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "environment", Description: "the server's environment"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			env := os.Environ()
			sort.Strings(env)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(env, "\n")}}}, nil, nil
		})
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "envreport:", err)
		os.Exit(1)
	}
}
