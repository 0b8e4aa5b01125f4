// Command client is the mcp-host client that the official MCP conformance
// suite drives (its --command). It is thin glue: each scenario connects with
// the runtime's session package, as the host does, and makes the calls the
// scenario expects. No protocol logic lives here.
//
// Usage: client <server-url>, with MCP_CONFORMANCE_SCENARIO naming the
// scenario, and optionally MCP_CONFORMANCE_CONTEXT (JSON) and
// MCP_CONFORMANCE_PROTOCOL_VERSION.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/mcp-host/mcp-host/runtime/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// scenario runs against a connected session.
type scenario func(ctx context.Context, s *session.Session, conf map[string]any) error

var scenarios = map[string]scenario{
	"initialize":                          listOnly,
	"request-metadata":                    listOnly,
	"json-schema-ref-no-deref":            listOnly,
	"tools_call":                          callTool("add_numbers", map[string]any{"a": 5, "b": 3}),
	"elicitation-sep1034-client-defaults": callTool("test_client_elicitation_defaults", nil),
	"sse-retry":                           callTool("test_reconnection", nil),
	"json-schema-2020-12-preservation":    echoSchema,
	"sep-2322-client-request-state":       callEach("test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type"),
	"http-standard-headers":               exerciseAll,
	"http-custom-headers":                 callFromContext,
	"http-invalid-tool-headers":           callEveryTool(map[string]any{"region": "us-west1"}),
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("conformance-client: ")
	if len(os.Args) != 2 {
		log.Fatalf("usage: %s <server-url>", os.Args[0])
	}
	name := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	run, ok := scenarios[name]
	if !ok {
		names := make([]string, 0, len(scenarios))
		for n := range scenarios {
			names = append(names, n)
		}
		sort.Strings(names)
		log.Fatalf("unknown scenario %q; known: %s", name, strings.Join(names, ", "))
	}
	var conf map[string]any
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &conf); err != nil {
			log.Fatalf("MCP_CONFORMANCE_CONTEXT: %v", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	s, err := connect(ctx, name, conf, session.Options{
		ID:              "conformance",
		Transport:       session.TransportHTTP,
		URL:             os.Args[1],
		ProtocolVersion: os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION"),
		Elicit:          acceptDefaults,
	})
	if err != nil {
		log.Fatalf("scenario %s: %v", name, err)
	}
	defer s.Close()
	if err := run(ctx, s, conf); err != nil {
		log.Fatalf("scenario %s: %v", name, err)
	}
}

// acceptDefaults accepts a form elicitation with empty content; the SDK fills
// in the schema's defaults before answering.
func acceptDefaults(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
}

func listOnly(context.Context, *session.Session, map[string]any) error { return nil }

func callTool(name string, args map[string]any) scenario {
	return func(ctx context.Context, s *session.Session, _ map[string]any) error {
		_, err := s.CallTool(ctx, name, args)
		return err
	}
}

// callEach calls each tool, logging rejections: some are meant to fail.
func callEach(names ...string) scenario {
	return func(ctx context.Context, s *session.Session, _ map[string]any) error {
		for _, n := range names {
			if _, err := s.CallTool(ctx, n, nil); err != nil {
				log.Printf("call %s: %v", n, err)
			}
		}
		return nil
	}
}

func callEveryTool(args map[string]any) scenario {
	return func(ctx context.Context, s *session.Session, _ map[string]any) error {
		for _, t := range s.Tools() {
			if _, err := s.CallTool(ctx, t.Name, args); err != nil {
				log.Printf("call %s: %v", t.Name, err)
			}
		}
		return nil
	}
}

// callFromContext makes the tool calls the suite lists in its context.
func callFromContext(ctx context.Context, s *session.Session, conf map[string]any) error {
	calls, _ := conf["toolCalls"].([]any)
	for _, c := range calls {
		call, _ := c.(map[string]any)
		name, _ := call["name"].(string)
		if _, err := s.CallTool(ctx, name, call["arguments"]); err != nil {
			log.Printf("call %s: %v", name, err)
		}
	}
	return nil
}

// echoSchema sends the focal tool's input schema back through the echo tool,
// showing the schema arrived unchanged.
func echoSchema(ctx context.Context, s *session.Session, _ map[string]any) error {
	for _, t := range s.Tools() {
		if t.Name == "json_schema_2020_12_tool" {
			_, err := s.CallTool(ctx, "json_schema_echo", map[string]any{"schema": t.InputSchema})
			return err
		}
	}
	return fmt.Errorf("tool json_schema_2020_12_tool not listed")
}

// exerciseAll makes one request of each kind the server offers.
func exerciseAll(ctx context.Context, s *session.Session, _ map[string]any) error {
	if tools := s.Tools(); len(tools) > 0 {
		if _, err := s.CallTool(ctx, tools[0].Name, nil); err != nil {
			log.Printf("call %s: %v", tools[0].Name, err)
		}
	}
	cs, err := s.ClientSession()
	if err != nil {
		return err
	}
	if res, err := cs.ListResources(ctx, nil); err == nil && len(res.Resources) > 0 {
		_, _ = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: res.Resources[0].URI})
	}
	if res, err := cs.ListPrompts(ctx, nil); err == nil && len(res.Prompts) > 0 {
		_, _ = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: res.Prompts[0].Name, Arguments: map[string]string{}})
	}
	return nil
}
