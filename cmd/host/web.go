package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/web"
)

// runWeb is `host web`: the reference web UI on a loopback port, driving a
// `host serve` child over the UI protocol.
func runWeb(args []string, stdout, stderr io.Writer) int {
	fs := quietFlagSet("host web")
	var mf modelFlags
	mf.register(fs)
	perms := fs.String("permissions", "", "file keeping \"always allow\" answers (default: permissions.json next to the global config)")
	logFile := fs.String("log", "", "where the runtime's log goes (default: web.log next to the global config)")
	noBrowser := fs.Bool("no-browser", false, "only print the address; do not open a browser")
	addr := fs.String("addr", "127.0.0.1:0", "loopback address of the page (the default is a random port)")
	if _, code := parseArgs(fs, args, stdout, stderr); code >= 0 {
		return code
	}
	serve, log, err := serveChild("web", mf, *perms, *logFile)
	if err != nil {
		fmt.Fprintf(stderr, "host web: %v\n", err)
		return exitFailure
	}
	var open func(string) error
	if !*noBrowser {
		open = runtime.OpenBrowser
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := web.Run(ctx, web.Options{Serve: serve, Env: os.Environ(), LogFile: log, Out: stdout, Open: open, Addr: *addr}); err != nil {
		fmt.Fprintf(stderr, "host web: %v\n", err)
		return exitFailure
	}
	return exitOK
}
