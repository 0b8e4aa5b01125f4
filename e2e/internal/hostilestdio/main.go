// Command hostilestdio is a stdio MCP server (go-sdk) that behaves as real
// servers do and as the host must survive, for the end-to-end tests:
//
//	-banner TEXT    prints TEXT on stdout before speaking JSON-RPC, as
//	                @agent-infra/mcp-server-commands and time-mcp do
//	-tree FILE      starts a setsid child and a setsid grandchild whose
//	                parent exits (so it is reparented away from the tree),
//	                and records "leader", "grandchild" and "orphan" pids in FILE
//	-stubborn       ignores SIGTERM and keeps running when stdin closes
//	-hang-file FILE the "hang" tool creates FILE, then never answers
//	-start-delay D  sleeps for D before reading stdin, as a server that is
//	                slow to start (npx fetching a package) does
//	-huge-app N     adds the tool "huge", an MCP App whose UI resource
//	                ui://evil/huge.html is N bytes of HTML
//	-reads FILE     appends a line to FILE for every read of that resource
//	-events FILE    appends "EVENT PID UNIXNANO" lines to FILE: "start" when
//	                the process starts, "ready" after -start-delay, "eof"
//	                when stdin closed, "sigterm" for each SIGTERM (-stubborn
//	                still ignores it): what the tests assert instead of
//	                timing whole commands
//	-crash MODE     crashes on purpose, saying so on stderr: "start" exits
//	                at once (status 3), "init" exits 50 ms after answering
//	                tools/list, that is right after the host's connect
//	                (status 4)
//
// Tools: "echo" returns its "text" argument; "hang" never answers and
// ignores cancellation.
//
// With -sleep it only sleeps (ignoring SIGTERM): the tree's members. With
// -spawn it starts a setsid sleeper, records it as "orphan" and exits.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	banner := flag.String("banner", "", "text printed on stdout before JSON-RPC")
	tree := flag.String("tree", "", "file recording the pids of a setsid process tree")
	stubborn := flag.Bool("stubborn", false, "ignore SIGTERM and stdin closing")
	hangFile := flag.String("hang-file", "", "file the hang tool creates")
	sleep := flag.Bool("sleep", false, "only sleep, ignoring SIGTERM")
	spawn := flag.Bool("spawn", false, "start a setsid sleeper, record it as orphan, exit")
	startDelay := flag.Duration("start-delay", 0, "sleep before reading stdin")
	hugeApp := flag.Int("huge-app", 0, "bytes of the huge app's UI resource (0: no huge app)")
	reads := flag.String("reads", "", "file recording each read of the huge app's UI resource")
	events := flag.String("events", "", "file recording start, ready, eof and sigterm")
	crash := flag.String("crash", "", `"start" or "init": exit at start, or right after the connect`)
	flag.Parse()
	event := func(kind string) {
		if *events != "" {
			appendLine(*events, fmt.Sprintf("%s %d %d", kind, os.Getpid(), time.Now().UnixNano()))
		}
	}
	event("start")
	time.Sleep(*startDelay)
	event("ready")
	if *crash == "start" {
		fmt.Fprintln(os.Stderr, "hostilestdio: crashing at start (on purpose)")
		os.Exit(3)
	}

	switch {
	case *sleep:
		signal.Ignore(syscall.SIGTERM)
		time.Sleep(time.Hour)
		return
	case *spawn:
		record(*tree, "orphan", startSleeper())
		return
	}
	if *stubborn && *events != "" {
		// Noted and otherwise ignored.
		sigs := make(chan os.Signal, 4)
		signal.Notify(sigs, syscall.SIGTERM)
		go func() {
			for range sigs {
				event("sigterm")
			}
		}()
	} else if *stubborn {
		signal.Ignore(syscall.SIGTERM)
	}
	if *banner != "" {
		fmt.Println(*banner)
	}
	if *tree != "" {
		record(*tree, "leader", os.Getpid())
		record(*tree, "grandchild", startSleeper())
		exe, _ := os.Executable()
		if out, err := exec.Command(exe, "-spawn", "-tree", *tree).CombinedOutput(); err != nil {
			fail("spawner: %v: %s", err, out)
		}
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "hostilestdio", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "returns text"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "hang", Description: "never answers"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		if *hangFile != "" {
			_ = os.WriteFile(*hangFile, []byte("hanging"), 0o600)
		}
		select {} // not even cancellation ends it
	})
	if *hugeApp > 0 {
		addHugeApp(server, *hugeApp, *reads)
	}
	if *crash == "init" {
		server.AddReceivingMiddleware(exitAfterList)
	}
	_ = server.Run(context.Background(), &mcp.StdioTransport{})
	event("eof")
	if *stubborn {
		select {}
	}
}

// startSleeper starts this program with -sleep in a new session, out of
// the caller's process group.
func startSleeper() int {
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-sleep")
	cmd.SysProcAttr = newSession()
	if err := cmd.Start(); err != nil {
		fail("sleeper: %v", err)
	}
	return cmd.Process.Pid
}

func record(file, role string, pid int) {
	appendLine(file, fmt.Sprintf("%s %d", role, pid))
}

// appendLine appends line to file in one write.
func appendLine(file, line string) {
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		fail("%s: %v", file, err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		fail("%s: %v", file, err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "hostilestdio: "+format+"\n", args...)
	os.Exit(1)
}

// addHugeApp adds the tool "huge" with an MCP App whose UI resource is
// size bytes of HTML, recording each read of it in the file reads.
func addHugeApp(server *mcp.Server, size int, reads string) {
	const uri = "ui://evil/huge.html"
	mcp.AddTool(server, &mcp.Tool{Name: "huge", Description: "an app with a huge UI", Meta: mcp.Meta{"ui": map[string]any{"resourceUri": uri}}},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "called huge"}}}, nil, nil
		})
	// Plain letters: encoding/json would write each < and > as six bytes.
	html := "<!DOCTYPE html>" + strings.Repeat("x", max(size-15, 0))
	server.AddResource(&mcp.Resource{URI: uri, Name: "huge", MIMEType: "text/html;profile=mcp-app"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		if reads != "" {
			record(reads, "read", os.Getpid())
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/html;profile=mcp-app", Text: html}}}, nil
	})
}

// exitAfterList makes the server exit (status 4) 50 ms after it answered
// tools/list, the last request of the host's connect.
func exitAfterList(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method == "tools/list" {
			go func() {
				time.Sleep(50 * time.Millisecond) // the answer goes out first
				fmt.Fprintln(os.Stderr, "hostilestdio: exiting right after the connect (on purpose)")
				os.Exit(4)
			}()
		}
		return res, err
	}
}
