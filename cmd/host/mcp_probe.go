package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// probeTimeout bounds host mcp test's probe call.
const probeTimeout = 60 * time.Second

// probe is host mcp test's first real call on a ready server, so that a
// refusal of its sandbox shows before the first real use: the tool the
// user named with --probe (with --args), else the first tool the server
// says only reads and takes no required argument. A server with neither
// is not probed (calling an arbitrary tool could change something). It
// returns exitOK, or the exit code of a failed call.
func (c *cli) probe(m *runtime.Manager, id, tool, args string) int {
	if tool == "" {
		tools, err := m.Tools(id)
		if err != nil {
			return exitOK
		}
		for _, t := range tools {
			if readOnlyNoArgs(t) {
				tool, args = t.Name, "{}"
				break
			}
		}
		if tool == "" {
			fmt.Fprintf(c.stdout, "probe: %s has no read-only tool without arguments; name one with --probe TOOL --args JSON\n", termsafe.Line(id))
			return exitOK
		}
	}
	if args == "" {
		args = "{}"
	}
	if !json.Valid([]byte(args)) {
		return c.failf(exitUsage, "test: --args is not JSON: %s", termsafe.Line(args))
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	res, err := m.CallTool(ctx, id, tool, json.RawMessage(args))
	switch {
	case err != nil:
		fmt.Fprintf(c.stdout, "probe failed: %s/%s: %s\n", termsafe.Line(id), termsafe.Line(tool), termsafe.LineMax(err.Error(), maxErrorLine))
		return exitFailure
	case res.IsError:
		fmt.Fprintf(c.stdout, "probe failed: %s/%s answered an error:\n", termsafe.Line(id), termsafe.Line(tool))
		printResult(c.stdout, res)
		if h := m.SandboxHint(id, resultText(res)); h != "" {
			fmt.Fprintln(c.stdout, termsafe.LineMax(h, maxErrorLine))
		}
		return exitFailure
	}
	fmt.Fprintf(c.stdout, "probe: %s/%s answered\n", termsafe.Line(id), termsafe.Line(tool))
	return exitOK
}

// readOnlyNoArgs reports a tool that says it only reads and needs no
// argument.
func readOnlyNoArgs(t *mcp.Tool) bool {
	if t.Annotations == nil || !t.Annotations.ReadOnlyHint {
		return false
	}
	s, ok := t.InputSchema.(map[string]any)
	if !ok {
		return t.InputSchema == nil
	}
	req, _ := s["required"].([]any)
	return len(req) == 0
}

// resultText is the text of a result, for finding a refused path in it.
func resultText(res *mcp.CallToolResult) string {
	var s string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			s += t.Text + "\n"
		}
	}
	return s
}
