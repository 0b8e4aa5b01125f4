package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	demo "github.com/mcp-host/mcp-host/demo/servers"
	"github.com/mcp-host/mcp-host/demo/tour"
)

func runDemo(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := quietFlagSet("host demo")
	var mf modelFlags
	mf.register(fs)
	auto := fs.Bool("auto-approve", false, "answer every question with yes and log in without a browser (unattended runs, CI)")
	noBrowser := fs.Bool("no-browser", false, "print the login URL and paste the redirect back instead of opening a browser")
	debug := fs.Bool("debug", os.Getenv("MCP_HOST_DEBUG") == "1", "show the runtime's logs on stderr")
	openWeb := fs.Bool("web", false, "end with the web UI (host web) against the demo servers, also with --auto-approve; Ctrl-C ends it")
	if _, code := parseArgs(fs, args, stdout, stderr); code >= 0 {
		return code
	}
	prov, model, err := mf.provider()
	if err != nil {
		fmt.Fprintf(stderr, "host demo: %v\n", err)
		return exitUsage
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "host demo: %v\n", err)
		return exitFailure
	}
	dir, err := os.MkdirTemp("", "mcp-host-demo-")
	if err != nil {
		fmt.Fprintf(stderr, "host demo: %v\n", err)
		return exitFailure
	}
	defer os.RemoveAll(dir)
	logger := slog.New(slog.DiscardHandler)
	if *debug {
		logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintln(stdout, "mcp-host demo: a protected MCP server, an authorization server and a local stdio server, all on this machine.")
	err = tour.Run(ctx, tour.Options{
		Out: stdout, In: stdin, AutoApprove: *auto, NoBrowser: *noBrowser,
		Provider: prov, ModelName: model,
		StdioCommand: []string{exe, "demo-stdio-server"},
		Dir:          dir, Logger: logger,
	})
	if err == nil {
		err = demoWeb(ctx, demoWebOptions{
			stdin: stdin, stdout: stdout, exe: exe, dir: dir, model: mf, logger: logger,
			auto: *auto, force: *openWeb, noBrowser: *noBrowser,
		})
	}
	if err != nil {
		// The error may quote a demo server or the runtime.
		fmt.Fprintf(stderr, "host demo: %s\n", message("%v", err))
		return exitFailure
	}
	return exitOK
}

// runDemoStdio is the demo's local MCP server, on stdin/stdout.
func runDemoStdio(stderr io.Writer) int {
	if err := demo.ServeStdio(context.Background()); err != nil {
		fmt.Fprintf(stderr, "host demo-stdio-server: %v\n", err)
		return exitFailure
	}
	return exitOK
}
