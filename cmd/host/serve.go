package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/core/openai"
	"github.com/mcp-host/mcp-host/core/scripted"
	"github.com/mcp-host/mcp-host/internal/runstats"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/listcache"
	"github.com/mcp-host/mcp-host/runtime/permission"
	"github.com/mcp-host/mcp-host/runtime/policy"
	"github.com/mcp-host/mcp-host/runtime/serve"
)

// modelFlags select the model behind run.start; shared by serve, chat and
// demo.
type modelFlags struct {
	model, baseURL, apiKeyEnv, script string
	// scriptLog, with script, is a file each model call is recorded to.
	scriptLog string
}

func (mf *modelFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&mf.model, "model", os.Getenv("MCP_HOST_MODEL"), "model name for an OpenAI-compatible chat completions API ($MCP_HOST_MODEL)")
	fs.StringVar(&mf.baseURL, "base-url", os.Getenv("MCP_HOST_BASE_URL"), "API base URL, e.g. http://127.0.0.1:11434/v1 for Ollama ($MCP_HOST_BASE_URL; default OpenAI)")
	fs.StringVar(&mf.apiKeyEnv, "api-key-env", "", "environment variable holding the API key (default OPENAI_API_KEY when set)")
	fs.StringVar(&mf.script, "script", "", "play a scripted model from a JSON file of steps instead of calling a model")
	fs.StringVar(&mf.scriptLog, "script-log", "", "with --script, append what each model call received (system messages, tool names, the last tool results) to this file as JSON lines")
}

// provider builds the model; nil when none is configured.
func (mf *modelFlags) provider() (core.Provider, string, error) {
	switch {
	case mf.script != "" && mf.model != "":
		return nil, "", fmt.Errorf("--script and --model are exclusive")
	case mf.script != "":
		data, err := os.ReadFile(mf.script)
		if err != nil {
			return nil, "", fmt.Errorf("--script: %w", err)
		}
		steps, err := scripted.Parse(data)
		if err != nil {
			return nil, "", fmt.Errorf("--script %s: %w", mf.script, err)
		}
		var p core.Provider = scripted.New(steps...)
		if mf.scriptLog != "" {
			p = &loggedModel{next: p, path: mf.scriptLog}
		}
		return p, "scripted (" + filepath.Base(mf.script) + ")", nil
	case mf.scriptLog != "":
		return nil, "", fmt.Errorf("--script-log needs --script")
	case mf.model != "":
		keyEnv := mf.apiKeyEnv
		if keyEnv == "" && os.Getenv("OPENAI_API_KEY") != "" {
			keyEnv = "OPENAI_API_KEY"
		}
		if keyEnv == "" && mf.baseURL == "" {
			// Every prompt would fail at OpenAI's API for want of a key.
			return nil, "", fmt.Errorf("--model %s calls OpenAI's API (no --base-url), which needs a key: set OPENAI_API_KEY or name the variable with --api-key-env; for another OpenAI-compatible server give --base-url (http://127.0.0.1:11434/v1 for Ollama)", mf.model)
		}
		p, err := openai.New(openai.Options{BaseURL: mf.baseURL, Model: mf.model, APIKeyEnv: keyEnv})
		if err != nil {
			return nil, "", fmt.Errorf("--model: %w", err)
		}
		return p, mf.model, nil
	}
	return nil, "", nil
}

// defaultPermissions is the global permissions file, next to the global
// config.
func defaultPermissions(globalConfig string) string {
	return filepath.Join(filepath.Dir(globalConfig), "permissions.json")
}

func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := quietFlagSet("host serve")
	var mf modelFlags
	mf.register(fs)
	debug := fs.Bool("debug", os.Getenv("MCP_HOST_DEBUG") == "1", "log UI protocol and server HTTP traffic to stderr, secrets masked ($MCP_HOST_DEBUG=1)")
	perms := fs.String("permissions", "", "file keeping \"always allow\" answers (default: permissions.json next to the global config)")
	confirmTimeout := fs.Duration("confirm-timeout", permission.DefaultConfirmTimeout, "how long to wait for the UI to answer a confirm before denying")
	var allow, deny multiFlag
	fs.Var(&allow, "allow", "allow rule server/tool (globs), repeatable")
	fs.Var(&deny, "deny", "deny rule server/tool (globs), repeatable")
	clientMetadata := fs.String("client-metadata-url", os.Getenv("MCP_HOST_CLIENT_METADATA_URL"), "https URL of the embedding application's OAuth Client ID Metadata Document, used as client_id where the authorization server supports it instead of registering ($MCP_HOST_CLIENT_METADATA_URL)")
	if _, code := parseArgs(fs, args, stdout, stderr); code >= 0 {
		return code
	}
	if err := checkClientMetadataURL(*clientMetadata); err != nil {
		fmt.Fprintf(stderr, "host serve: --client-metadata-url: %v\n", err)
		return exitUsage
	}
	prov, model, err := mf.provider()
	if err != nil {
		fmt.Fprintf(stderr, "host serve: %v\n", err)
		return exitUsage
	}
	allowRules, err := parseRules("--allow", allow)
	if err != nil {
		fmt.Fprintf(stderr, "host serve: %v\n", err)
		return exitUsage
	}
	denyRules, err := parseRules("--deny", deny)
	if err != nil {
		fmt.Fprintf(stderr, "host serve: %v\n", err)
		return exitUsage
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "host serve: %v\n", err)
		return exitFailure
	}
	global, project := config.DefaultPaths(cwd)
	if *perms == "" {
		*perms = defaultPermissions(global)
	}
	level := slog.LevelInfo
	if *debug {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	mo := runtime.ManagerOptions{MaxBackoff: 30 * time.Second, ClientMetadataURL: *clientMetadata, Sandbox: sandboxOptions(global, project)}
	if dir, err := listcache.DefaultPath(); err == nil {
		mo.ToolsCache = &listcache.Dir{Path: dir, Logger: logger}
	}
	// Kept catalogs let lazy servers start on first use.
	if dir, err := listcache.CacheDir("catalogs"); err == nil {
		mo.Catalogs = &listcache.Catalogs{Dir: listcache.Dir{Path: dir, Logger: logger}}
	}
	if store, err := openTokenStore(global, func(w string) { logger.Warn(w) }); err != nil {
		logger.Error("token store unavailable; tokens are kept in memory for this process", "error", err)
	} else {
		mo.AuthStore, mo.AuthStorage = store, store.Describe()
	}
	if mo.Approvals, err = openApprovals(global); err != nil {
		logger.Error("approvals file unreadable; project servers stay unapproved", "error", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if path := os.Getenv(runstats.EnvFile); path != "" {
		// The soak bench's probe (docs/PERFORMANCE.md, "Soak").
		go func() {
			if err := runstats.Write(ctx, path, 250*time.Millisecond); err != nil {
				logger.Warn("stats file", "error", err)
			}
		}()
	}
	err = serve.Serve(ctx, stdin, stdout, serve.ServeOptions{
		Config:         config.LoadOptions{GlobalPath: global, ProjectPath: project, EnvServers: os.Getenv("MCP_HOST_SERVERS")},
		Policy:         policy.DefaultSource(),
		Manager:        mo,
		Provider:       prov,
		ModelName:      model,
		Permissions:    *perms,
		Allow:          allowRules,
		Deny:           denyRules,
		ConfirmTimeout: *confirmTimeout,
		Version:        version,
		Logger:         logger,
		Debug:          *debug,
		Registry:       newInstaller("", policy.DefaultSource().Load, config.SourceGlobal, global),
	})
	if err != nil {
		logger.Error("serve ended", "error", err)
		return exitFailure
	}
	return exitOK
}

// parseRules reads server/tool rules.
func parseRules(flagName string, vals []string) ([]permission.Rule, error) {
	var out []permission.Rule
	for _, v := range vals {
		server, tool, ok := strings.Cut(v, "/")
		if !ok || server == "" {
			return nil, fmt.Errorf("%s %q: want server/tool (globs allowed, e.g. files/read_*)", flagName, v)
		}
		out = append(out, permission.Rule{Server: server, Tool: tool})
	}
	return out, nil
}

// checkClientMetadataURL accepts what may be a Client ID Metadata
// Document's URL, the client_id itself: empty (none), or https with a host
// and a path.
func checkClientMetadataURL(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" || u.Fragment != "" {
		return fmt.Errorf("%q is not an https URL with a path (a Client ID Metadata Document's URL is the client_id)", raw)
	}
	return nil
}
