package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcp-host/mcp-host/chat"
	"golang.org/x/term"
)

func runChat(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := quietFlagSet("host chat")
	var mf modelFlags
	mf.register(fs)
	perms := fs.String("permissions", "", "file keeping \"always allow\" answers (default: permissions.json next to the global config)")
	logFile := fs.String("log", "", "where the runtime's log goes (default: chat.log next to the global config)")
	if _, code := parseArgs(fs, args, stdout, stderr); code >= 0 {
		return code
	}
	in, inOK := stdin.(*os.File)
	if !inOK || !term.IsTerminal(int(in.Fd())) {
		fmt.Fprintln(stderr, "host chat: needs a terminal (stdin is not one); UIs should run `host serve` and speak protocol/PROTOCOL.md")
		return exitUsage
	}
	serve, log, err := serveChild("chat", mf, *perms, *logFile)
	if err != nil {
		fmt.Fprintf(stderr, "host chat: %v\n", err)
		return exitFailure
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := chat.Run(ctx, chat.Options{Serve: serve, Env: os.Environ(), LogFile: log, In: stdin, Out: stdout}); err != nil {
		fmt.Fprintf(stderr, "host chat: %v\n", err)
		return exitFailure
	}
	return exitOK
}
