package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	demo "github.com/mcp-host/mcp-host/demo/servers"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/web"
)

// demoWebOptions configure the demo's last step.
type demoWebOptions struct {
	stdin       io.Reader
	stdout      io.Writer
	exe, dir    string
	model       modelFlags
	logger      *slog.Logger
	auto, force bool
	noBrowser   bool
}

// demoWeb is the demo's last step: the same demo servers behind the
// reference web UI (host web), opened in the browser, until Ctrl-C. It
// runs when a browser can open and the person says yes; an unattended run
// (--auto-approve) skips it unless --web asks for it.
func demoWeb(ctx context.Context, o demoWebOptions) error {
	if !o.force {
		if o.auto || o.noBrowser {
			return nil
		}
		if reason := runtime.Headless(); reason != "" {
			fmt.Fprintf(o.stdout, "\n(The web UI, host web, needs a browser; %s.)\n", reason)
			return nil
		}
		fmt.Fprint(o.stdout, "\nOpen the same demo in the web UI (host web) in your browser? [Y/n] ")
		line, _ := bufio.NewReader(o.stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "" && a != "y" && a != "yes" {
			return nil
		}
	}
	fmt.Fprintln(o.stdout, "\n== The web UI: chat, permission prompts, /mcp with the login button")
	env, err := demo.Start(ctx, demo.Options{AutoApprove: o.auto, Logger: o.logger})
	if err != nil {
		return fmt.Errorf("starting the demo servers for the web UI: %w", err)
	}
	defer env.Close()
	config := filepath.Join(o.dir, "web-config.json")
	if err := writeDemoJSON(config, map[string]any{"version": 1, "mcp": map[string]any{"servers": map[string]any{
		"notes": map[string]any{"transport": "http", "url": env.MCPURL},
		"local": map[string]any{"transport": "stdio", "command": o.exe, "args": []string{"demo-stdio-server"}},
	}}}); err != nil {
		return err
	}
	serve := []string{o.exe, "serve", "--permissions", filepath.Join(o.dir, "web-permissions.json")}
	switch {
	case o.model.model != "":
		serve = append(serve, "--model", o.model.model)
		if o.model.baseURL != "" {
			serve = append(serve, "--base-url", o.model.baseURL)
		}
		if o.model.apiKeyEnv != "" {
			serve = append(serve, "--api-key-env", o.model.apiKeyEnv)
		}
	case o.model.script != "":
		serve = append(serve, "--script", o.model.script)
	default:
		script := filepath.Join(o.dir, "web-script.json")
		if err := writeDemoJSON(script, demoWebScript()); err != nil {
			return err
		}
		serve = append(serve, "--script", script)
	}
	fmt.Fprintln(o.stdout, "Log in to notes from /mcp, then ask for the weather; Ctrl-C ends the demo.")
	// The runtime's tokens stay in the demo's directory, not in the keyring.
	envv := append(os.Environ(), "MCP_HOST_CONFIG="+config, "MCP_HOST_SERVERS=", "MCP_HOST_TOKEN_STORE=file")
	return web.Run(ctx, web.Options{
		Serve: serve, Env: envv, Dir: o.dir, LogFile: filepath.Join(o.dir, "web.log"),
		Out: o.stdout, Open: runtime.OpenBrowser,
	})
}

// demoWebScript is the scripted model of the web step, in the runs form
// (every run plays the steps from the top): each prompt checks the weather
// in Paris (a call behind the permission prompt) and answers.
func demoWebScript() map[string]any {
	weather := adapter.PublicName("notes", "get_weather")
	return map[string]any{"runs": []map[string]any{{"steps": []map[string]any{
		{"text": "Let me check the weather in Paris.", "calls": []map[string]any{{"name": weather, "arguments": map[string]any{"city": "Paris"}}}},
		{"when_result_contains": "Paris:", "text": "That is the weather in Paris. (This model is scripted: pass --model to use a real one.)"},
		{"text": "The call did not go through: it was denied, or notes waits for a login (open /mcp and log in)."},
	}}}}
}

func writeDemoJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
