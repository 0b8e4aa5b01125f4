package e2e_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/e2e/internal/testenv"
)

// buildEnvReport builds e2e/internal/envreport, a stdio server that answers
// with its whole environment, into the test's temporary directory.
func buildEnvReport(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "envreport")
	cmd := exec.Command("go", "build", "-o", bin, "./e2e/internal/envreport")
	cmd.Dir = testenv.RepoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./e2e/internal/envreport: %v\n%s", err, out)
	}
	return bin
}

// envSecrets are what a user's environment holds and no local server may
// read unless granted by name.
var envSecrets = []string{
	"OPENAI_API_KEY=sk-e2e-env-openai",
	"GITHUB_TOKEN=ghp_e2eEnvGithubToken",
	"AWS_SECRET_ACCESS_KEY=e2e/env/aws+secret",
	"ANTHROPIC_API_KEY=sk-ant-e2e-env",
}

// TestStdioServerGetsOnlyItsEnvironment adds a server that reports its
// environment the normal way (host mcp add), and calls it through the real
// host with secrets in the host's environment: the server sees none of
// them, but sees its env value and the variable its env_vars names; host
// mcp get shows the names it gets and no value.
func TestStdioServerGetsOnlyItsEnvironment(t *testing.T) {
	h := newHostCLI(t)
	bin := buildEnvReport(t)
	if out, errOut, code := h.run(t, nil, "mcp", "add", "envsrv", "--env", "MODE=configured-e2e", "--env-var", "E2E_GRANTED", "--", bin); code != 0 {
		t.Fatalf("mcp add: code %d\n%s%s", code, out, errOut)
	}
	env := append([]string{"E2E_GRANTED=granted-e2e-value", "E2E_NOT_GRANTED=withheld-e2e-value"}, envSecrets...)

	out, errOut, code := h.run(t, env, "mcp", "call", "--yes", "--json", "envsrv", "environment")
	if code != 0 {
		t.Fatalf("mcp call: code %d\n%s%s", code, out, errOut)
	}
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Content) != 1 {
		t.Fatalf("mcp call output: %v\n%s", err, out)
	}
	seen := map[string]string{}
	for _, l := range strings.Split(res.Content[0].Text, "\n") {
		k, v, _ := strings.Cut(l, "=")
		seen[k] = v
	}
	for _, kv := range append([]string{"E2E_NOT_GRANTED=withheld-e2e-value"}, envSecrets...) {
		name, _, _ := strings.Cut(kv, "=")
		if v, ok := seen[name]; ok {
			t.Errorf("the server read %s=%q from the host's environment", name, v)
		}
	}
	if seen["MODE"] != "configured-e2e" || seen["E2E_GRANTED"] != "granted-e2e-value" {
		t.Errorf("the server lacks its env or env_vars: MODE=%q E2E_GRANTED=%q", seen["MODE"], seen["E2E_GRANTED"])
	}
	if seen["PATH"] == "" || seen["HOME"] == "" {
		t.Errorf("the server lacks the base set: PATH=%q HOME=%q", seen["PATH"], seen["HOME"])
	}

	// host mcp get, text and JSON: the names, never a value.
	text, errOut, code := h.run(t, env, "mcp", "get", "envsrv")
	if code != 0 {
		t.Fatalf("mcp get: code %d\n%s%s", code, text, errOut)
	}
	js, _, _ := h.run(t, env, "mcp", "get", "--json", "envsrv")
	var detail struct {
		Environment struct {
			Base    []string `json:"base"`
			Env     []string `json:"env"`
			EnvVars []string `json:"env_vars"`
		} `json:"environment"`
	}
	if err := json.Unmarshal([]byte(js), &detail); err != nil {
		t.Fatalf("mcp get --json: %v\n%s", err, js)
	}
	n := detail.Environment
	if !slices.Contains(n.Base, "PATH") || !slices.Contains(n.Base, "HOME") || !slices.Contains(n.Env, "MODE") || !slices.Contains(n.EnvVars, "E2E_GRANTED") {
		t.Errorf("mcp get --json environment = %+v, want PATH and HOME in base, MODE in env, E2E_GRANTED in env_vars", n)
	}
	for _, want := range []string{"PATH", "MODE", "E2E_GRANTED"} {
		if !strings.Contains(text, want) {
			t.Errorf("mcp get lacks %q:\n%s", want, text)
		}
	}
	for _, kv := range append([]string{"E2E_GRANTED=granted-e2e-value", "MODE=configured-e2e", "E2E_NOT_GRANTED=withheld-e2e-value"}, envSecrets...) {
		name, value, _ := strings.Cut(kv, "=")
		for what, o := range map[string]string{"mcp get": text, "mcp get --json": js} {
			if strings.Contains(o, value) || (name != "E2E_GRANTED" && name != "MODE" && strings.Contains(o, name)) {
				t.Errorf("%s shows %s or its value:\n%s", what, name, o)
			}
		}
	}
}

// TestStdioServerMissingAVariableSaysEnvVars: a server that needs a
// variable of the host's it is not granted exits at start; its error has
// its stderr and a hint naming env_vars, and granting the name fixes it.
func TestStdioServerMissingAVariableSaysEnvVars(t *testing.T) {
	h := newHostCLI(t)
	bin := buildEnvReport(t)
	if out, errOut, code := h.run(t, nil, "mcp", "add", "needy", "--", bin, "-require", "E2E_SERVICE_TOKEN"); code != 0 {
		t.Fatalf("mcp add: code %d\n%s%s", code, out, errOut)
	}
	env := []string{"E2E_SERVICE_TOKEN=tok-e2e-needed"}
	out, _, code := h.run(t, env, "mcp", "get", "needy")
	if code == 0 {
		t.Fatalf("mcp get of a server that exits: code 0\n%s", out)
	}
	for _, want := range []string{"E2E_SERVICE_TOKEN is not set", "only these environment variables", `"env_vars"`} {
		if !strings.Contains(out, want) {
			t.Errorf("mcp get lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "tok-e2e-needed") {
		t.Errorf("mcp get shows the variable's value:\n%s", out)
	}
	if out, errOut, code := h.run(t, nil, "mcp", "add", "needy", "--replace", "--env-var", "E2E_SERVICE_TOKEN", "--", bin, "-require", "E2E_SERVICE_TOKEN"); code != 0 {
		t.Fatalf("mcp add --replace: code %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code := h.run(t, env, "mcp", "get", "needy"); code != 0 || !strings.Contains(out, "ready") {
		t.Errorf("mcp get with env_vars: code %d\n%s%s", code, out, errOut)
	}
}
