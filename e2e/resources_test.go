package e2e_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/permission"
)

// TestResourcesAndPromptsAsTools lists and reads server-everything's
// resources and renders one of its prompts through the local tools a run
// gets, each call asked about like any MCP tool call.
func TestResourcesAndPromptsAsTools(t *testing.T) {
	everything := testenv.NodeBin(t, "mcp-server-everything")
	entries := []config.ServerEntry{{ID: "everything", Source: "project", Config: config.ServerConfig{
		Transport: "stdio", Command: everything[0], Args: append(everything[1:], "stdio"),
	}}}
	c := &confirmer{answers: map[string]permission.Response{}}
	h := startAgentHost(t, entries, filepath.Join(t.TempDir(), "permissions.json"), c)
	ctx := context.Background()
	_, tools, _ := h.agent.Tools(ctx)
	byName := map[string]core.Tool{}
	for _, tool := range tools {
		byName[tool.Name()] = tool
	}
	for _, want := range []string{"mcp_resources_list", "mcp_resource_read", "mcp_resource_templates_list", "mcp_prompts_list", "mcp_prompt_get"} {
		if byName[want] == nil {
			t.Fatalf("tool %s not offered; tools: %v", want, keys(byName))
		}
	}
	if byName["mcp_skills_list"] != nil {
		t.Error("skills tools offered although no server declares the extension")
	}
	call := func(name, args string) *core.Result {
		t.Helper()
		res, err := byName[name].Call(ctx, json.RawMessage(args))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}

	c.set("resources/list", permission.AllowOnce, "")
	list := core.RenderResult(call("mcp_resources_list", `{"server":"everything"}`))
	uri := regexp.MustCompile(`(?m)^(\S+://\S+)`).FindString(strings.TrimPrefix(list, "[everything]\n"))
	if uri == "" {
		t.Fatalf("no resource URI in:\n%.500s", list)
	}
	if asked := c.take(); len(asked) != 1 || asked[0].Server != "everything" || asked[0].Tool != "resources/list" {
		t.Errorf("resources/list confirm: %+v", asked)
	}

	c.set("resources/read", permission.Deny, "")
	if res := call("mcp_resource_read", `{"server":"everything","uri":`+jsonString(uri)+`}`); !res.IsError {
		t.Errorf("a denied read returned content: %+v", res)
	}
	c.set("resources/read", permission.AllowOnce, "")
	read := call("mcp_resource_read", `{"server":"everything","uri":`+jsonString(uri)+`}`)
	if read.IsError || len(read.Content) == 0 || read.Content[0].URI != uri {
		t.Fatalf("read %s: %+v", uri, read)
	}
	t.Logf("read %s: %d content blocks", uri, len(read.Content))

	c.set("prompts/list", permission.AllowOnce, "")
	prompts := core.RenderResult(call("mcp_prompts_list", `{}`))
	m := regexp.MustCompile(`(?m)^([a-z][\w-]*)(?: —|$)`).FindStringSubmatch(strings.TrimPrefix(prompts, "[everything]\n"))
	if m == nil {
		t.Fatalf("no argument-free prompt in:\n%s", prompts)
	}
	c.set("prompts/get", permission.AllowOnce, "")
	got := call("mcp_prompt_get", `{"server":"everything","name":`+jsonString(m[1])+`}`)
	if got.IsError || !strings.Contains(core.RenderResult(got), "user:") {
		t.Errorf("prompt %s: %s", m[1], core.RenderResult(got))
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
