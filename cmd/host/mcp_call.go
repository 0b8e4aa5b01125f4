package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/term"
)

func (c *cli) call(args []string) int {
	fs := newFlagSet("call", c.stderr)
	argsJSON := fs.String("args", "{}", "tool arguments as a JSON object")
	yes := fs.Bool("yes", false, "allow the call without asking")
	asJSON := fs.Bool("json", false, "print the raw result as JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 2 {
		return c.failf(exitUsage, "call: want <server-id> <tool>")
	}
	id, tool := pos[0], pos[1]
	var obj map[string]any
	if err := json.Unmarshal([]byte(*argsJSON), &obj); err != nil {
		return c.failf(exitUsage, "call: --args must be a JSON object: %v", err)
	}
	e, _, err := c.entry(id)
	if err != nil {
		return c.failf(exitUsage, "call: %v", err)
	}
	m, st := c.connectOne(e, false)
	defer m.Close()
	if st.State != runtime.StateReady {
		return c.failf(exitFor(st), "call: server %q is %s: %s", id, st.State, st.LastError)
	}
	tools, err := m.Tools(id)
	if err != nil {
		return c.failf(exitFailure, "call: %v", err)
	}
	var def *mcp.Tool
	for _, t := range tools {
		if t.Name == tool {
			def = t
		}
	}
	if def == nil {
		return c.failf(exitUsage, "call: server %q has no tool %q (see: host mcp tools %s)", id, tool, id)
	}
	if !*yes && !e.Config.Trust {
		ok, err := c.confirm(id, def, obj)
		if err != nil {
			return c.failf(exitDenied, "call: %v", err)
		}
		if !ok {
			return c.failf(exitDenied, "call: denied")
		}
	}
	res, err := m.CallTool(context.Background(), id, tool, json.RawMessage(*argsJSON))
	if err != nil {
		return c.failf(exitFailure, "call: %v", err)
	}
	if *asJSON {
		c.writeJSON(res)
	} else {
		printResult(c.stdout, res)
	}
	if res.IsError {
		return exitFailure
	}
	return exitOK
}

// confirm asks on the terminal; without one it refuses.
func (c *cli) confirm(id string, def *mcp.Tool, args map[string]any) (bool, error) {
	f, ok := c.stdin.(*os.File)
	if !ok || !isTerminal(f) {
		return false, errors.New("refusing to call without confirmation: no terminal to ask on (pass --yes to allow)")
	}
	pretty, _ := json.MarshalIndent(args, "  ", "  ")
	fmt.Fprintf(c.stderr, "Allow MCP tool call?\n  server: %s\n  tool:   %s\n", id, def.Name)
	if def.Title != "" {
		fmt.Fprintf(c.stderr, "  title:  %s (from the server, untrusted)\n", def.Title)
	}
	fmt.Fprintf(c.stderr, "  args:   %s\nAllow? [y/N] ", pretty)
	line, _ := bufio.NewReader(c.stdin).ReadString('\n')
	answer := strings.ToLower(strings.TrimSpace(line))
	return answer == "y" || answer == "yes", nil
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

func printResult(w io.Writer, res *mcp.CallToolResult) {
	if res.IsError {
		fmt.Fprintln(w, "tool error:")
	}
	for _, ct := range res.Content {
		switch v := ct.(type) {
		case *mcp.TextContent:
			fmt.Fprintln(w, v.Text)
		case *mcp.ImageContent:
			fmt.Fprintf(w, "[image %s, %d bytes]\n", v.MIMEType, len(v.Data))
		case *mcp.AudioContent:
			fmt.Fprintf(w, "[audio %s, %d bytes]\n", v.MIMEType, len(v.Data))
		case *mcp.ResourceLink:
			fmt.Fprintf(w, "[resource link %s]\n", v.URI)
		case *mcp.EmbeddedResource:
			if v.Resource != nil {
				if v.Resource.Text != "" {
					fmt.Fprintf(w, "[resource %s]\n%s\n", v.Resource.URI, v.Resource.Text)
				} else {
					fmt.Fprintf(w, "[resource %s, %d bytes]\n", v.Resource.URI, len(v.Resource.Blob))
				}
			}
		default:
			b, _ := json.Marshal(ct)
			fmt.Fprintln(w, string(b))
		}
	}
	if res.StructuredContent != nil {
		b, _ := json.MarshalIndent(res.StructuredContent, "", "  ")
		fmt.Fprintf(w, "structured content:\n%s\n", b)
	}
}
