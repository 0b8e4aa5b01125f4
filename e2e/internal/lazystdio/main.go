// Command lazystdio is a stdio MCP server (go-sdk) for the end-to-end
// tests of servers that start on first use: what it offers is read from a
// file at each start, so a test can change it while the host keeps the
// server stopped, and each start is recorded.
//
//	-tools FILE   one line per tool: "name description…"; a first line
//	              "FAIL" makes the server exit at once with an error on
//	              stderr instead
//	-starts FILE  a line with the process id is appended at each start
//
// Every tool answers "<name> ran in <pid>". The server also offers the
// resource lazy://watched, which can be subscribed to.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	toolsFile := flag.String("tools", "", "the file listing the tools")
	startsFile := flag.String("starts", "", "the file each start is recorded in")
	flag.Parse()
	if f, err := os.OpenFile(*startsFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
		fmt.Fprintf(f, "%d\n", os.Getpid())
		_ = f.Close()
	}
	raw, err := os.ReadFile(*toolsFile)
	if err != nil {
		fmt.Fprintf(os.Stderr, "lazystdio: %v\n", err)
		os.Exit(2)
	}
	if strings.HasPrefix(string(raw), "FAIL") {
		fmt.Fprintln(os.Stderr, "lazystdio: told to fail at start")
		os.Exit(3)
	}
	noop := func(context.Context, *mcp.SubscribeRequest) error { return nil }
	server := mcp.NewServer(&mcp.Implementation{Name: "lazystdio", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler:   noop,
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	for sc.Scan() {
		name, desc, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		if name == "" {
			continue
		}
		text := fmt.Sprintf("%s ran in %d", name, os.Getpid())
		mcp.AddTool(server, &mcp.Tool{Name: name, Description: desc},
			func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
			})
	}
	server.AddResource(&mcp.Resource{URI: "lazy://watched", Name: "watched", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "lazy://watched", Text: "watched"}}}, nil
		})
	_ = server.Run(context.Background(), &mcp.StdioTransport{})
}
