package session_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Modes of the test binary as a hostile stdio server (SESSION_TEST_STDIO_SERVER).
const (
	modeRaw     = "raw"     // a hand-written JSON-RPC server, see runRawServer
	modeSleeper = "sleeper" // ignores SIGTERM and sleeps
	modeSpawner = "spawner" // starts a setsid sleeper, records its pid, exits
)

// runHostileMode runs the mode named by the environment and reports whether
// there was one.
func runHostileMode() bool {
	switch os.Getenv(stdioServerEnv) {
	case modeRaw:
		runRawServer()
	case modeSleeper:
		signal.Ignore(syscall.SIGTERM)
		time.Sleep(time.Hour)
	case modeSpawner:
		pid := startSetsidSleeper()
		appendPid("orphan", pid)
	default:
		return false
	}
	return true
}

// startSetsidSleeper starts the test binary as a sleeper in a new session
// (so out of its parent's process group) and returns its pid.
func startSetsidSleeper() int {
	exe, _ := os.Executable()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), stdioServerEnv+"="+modeSleeper)
	cmd.SysProcAttr = setsidAttr()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "sleeper:", err)
		os.Exit(1)
	}
	return cmd.Process.Pid
}

// appendPid records "<role> <pid>" in the file named by RAW_PID_FILE.
func appendPid(role string, pid int) {
	f, err := os.OpenFile(os.Getenv("RAW_PID_FILE"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pid file:", err)
		os.Exit(1)
	}
	fmt.Fprintf(f, "%s %d\n", role, pid)
	f.Close()
}

type rawMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// runRawServer speaks newline-delimited JSON-RPC by hand, so it can do what
// no SDK server does. Environment:
//
//	RAW_BANNER        lines ("|"-separated) printed on stdout first
//	RAW_GARBAGE_ONLY  prints a non-JSON line every 10 ms, forever, and nothing else
//	RAW_PID_FILE      records "leader", "grandchild" (a setsid child) and
//	                  "orphan" (a setsid grandchild whose parent exited) pids
//	RAW_STUBBORN      ignores SIGTERM and stdin closing
//	RAW_ASK_IDS       after initialization, sends requests with these ids
//	                  ("|"-separated JSON literals)
//
// Tools: "echo" answers "ok"; "hang" never answers; "noise" prints non-JSON
// lines, then answers; "replies" answers with every answer the client sent;
// "big" answers with a line over the stdio line cap (result before id, as
// TypeScript servers write it).
func runRawServer() {
	var mu sync.Mutex
	send := func(line string) {
		mu.Lock()
		defer mu.Unlock()
		os.Stdout.WriteString(line + "\n")
	}
	if b := os.Getenv("RAW_BANNER"); b != "" {
		for _, l := range strings.Split(b, "|") {
			send(l)
		}
	}
	if os.Getenv("RAW_GARBAGE_ONLY") == "1" {
		for i := 0; ; i++ {
			send(fmt.Sprintf("garbage line %d", i))
			time.Sleep(10 * time.Millisecond)
		}
	}
	stubborn := os.Getenv("RAW_STUBBORN") == "1"
	if stubborn {
		signal.Ignore(syscall.SIGTERM)
	}
	if os.Getenv("RAW_PID_FILE") != "" {
		appendPid("leader", os.Getpid())
		appendPid("grandchild", startSetsidSleeper())
		exe, _ := os.Executable()
		sp := exec.Command(exe)
		sp.Env = append(os.Environ(), stdioServerEnv+"="+modeSpawner)
		if err := sp.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "spawner:", err)
			os.Exit(1)
		}
	}
	answer := func(id json.RawMessage, result string) {
		send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + `}`)
	}
	var replies []string
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var m rawMsg
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch m.Method {
		case "":
			replies = append(replies, sc.Text())
		case "initialize":
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(m.Params, &p)
			answer(m.ID, `{"protocolVersion":"`+p.ProtocolVersion+`","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}`)
		case "notifications/initialized":
			if ids := os.Getenv("RAW_ASK_IDS"); ids != "" {
				for _, id := range strings.Split(ids, "|") {
					send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
				}
			}
		case "ping":
			answer(m.ID, `{}`)
		case "tools/list":
			var tools []string
			for _, n := range []string{"echo", "hang", "noise", "replies", "big"} {
				tools = append(tools, `{"name":"`+n+`","inputSchema":{"type":"object"}}`)
			}
			answer(m.ID, `{"tools":[`+strings.Join(tools, ",")+`]}`)
		case "tools/call":
			var p struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(m.Params, &p)
			text := func(s string) string {
				b, _ := json.Marshal(s)
				return `{"content":[{"type":"text","text":` + string(b) + `}]}`
			}
			switch p.Name {
			case "echo":
				answer(m.ID, text("ok"))
			case "hang":
				fmt.Fprintln(os.Stderr, "hanging on purpose")
			case "noise":
				send("log: working on it")
				send("{not json")
				send(`{"level":30,"msg":"pino-style log line"}`)
				send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}} trailing`)
				answer(m.ID, text("after noise"))
			case "replies":
				answer(m.ID, text(strings.Join(replies, "\n")))
			case "big":
				pad := strings.Repeat("x", 17<<20)
				send(`{"result":{"content":[{"type":"text","text":"` + pad + `"}]},"jsonrpc":"2.0","id":` + string(m.ID) + `}`)
			}
		case "resources/read":
			// A UI resource of 20 MiB, the id before the result (as most
			// SDKs write it) or after it (as the TypeScript SDK does).
			var p struct {
				URI string `json:"uri"`
			}
			_ = json.Unmarshal(m.Params, &p)
			body := `{"contents":[{"uri":"` + p.URI + `","mimeType":"text/html;profile=mcp-app","text":"` + strings.Repeat("x", 20<<20) + `"}]}`
			if p.URI == "ui://idlast" {
				send(`{"result":` + body + `,"jsonrpc":"2.0","id":` + string(m.ID) + `}`)
			} else {
				answer(m.ID, body)
			}
		default:
			if len(m.ID) > 0 { // server/discover and the like: fall back to initialize
				send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"method not found"}}`)
			}
		}
	}
	if stubborn {
		select {}
	}
}
