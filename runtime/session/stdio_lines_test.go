package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime/hostfetch"
	"github.com/mcp-host/mcp-host/runtime/session"
)

func rawOptions(t *testing.T, env map[string]string) session.Options {
	if env == nil {
		env = map[string]string{}
	}
	env[stdioServerEnv] = modeRaw
	return stdioOptions(t, env)
}

func TestStdioNonJSONLinesMidSessionAreSkipped(t *testing.T) {
	s := connect(t, rawOptions(t, map[string]string{"RAW_BANNER": "time-mcp running on stdio|\x1b[32mready\x1b[0m"}))
	res, err := s.CallTool(context.Background(), "noise", nil)
	if err != nil {
		t.Fatalf("call that prints noise before its answer: %v", err)
	}
	if got := textOf(t, res); got != "after noise" {
		t.Errorf("noise = %q", got)
	}
	// The session goes on.
	res, err = s.CallTool(context.Background(), "echo", nil)
	if err != nil || textOf(t, res) != "ok" {
		t.Fatalf("echo after noise: %v", err)
	}
	tail := s.Stderr()
	for _, want := range []string{
		"[stdout, not JSON-RPC] (#1) time-mcp running on stdio",
		"[stdout, not JSON-RPC] (#2) ready\n", // terminal escapes dropped
		"[stdout, not JSON-RPC] (#3) log: working on it",
		"[stdout, not JSON-RPC] (#4) {not json",
		`[stdout, not JSON-RPC] (#5) {"level":30,"msg":"pino-style log line"}`,
		`[stdout, not JSON-RPC] (#6) {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}} trailing`,
	} {
		if !strings.Contains(tail, want) {
			t.Errorf("stderr tail lacks %q:\n%s", want, tail)
		}
	}
	if n := s.SkippedStdoutLines(); n != 6 {
		t.Errorf("SkippedStdoutLines = %d, want 6", n)
	}
}

func TestStdioGarbageOnlyServerTimesOut(t *testing.T) {
	o := rawOptions(t, map[string]string{"RAW_GARBAGE_ONLY": "1"})
	o.ConnectTimeout = time.Second
	start := time.Now()
	_, err := session.Connect(context.Background(), o)
	if err == nil {
		t.Fatal("a server that prints only garbage connected")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Connect took %s with a 1s connect timeout", d)
	}
	for _, want := range []string{"timed out", "[stdout, not JSON-RPC]", "garbage line"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to contain %q", err, want)
		}
	}
}

func TestStdioAnswerOverLineCapFailsTheCallNotTheSession(t *testing.T) {
	o := rawOptions(t, nil)
	o.MaxResponseBytes = 16 << 20 // "big" writes 17 MiB
	s := connect(t, o)
	start := time.Now()
	_, err := s.CallTool(context.Background(), "big", nil)
	if err == nil {
		t.Fatal("an answer over the line cap was accepted")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the call failed after %s, not at once", d)
	}
	for _, want := range []string{`server "local"`, `tools/call "big"`, "exceeds the response cap of 16 MiB (max_response_bytes)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q in it", err, want)
		}
	}
	if !errors.Is(err, session.ErrResponseTooLarge) {
		t.Errorf("err = %v, want it to match ErrResponseTooLarge", err)
	}
	res, err := s.CallTool(context.Background(), "echo", nil)
	if err != nil || textOf(t, res) != "ok" {
		t.Fatalf("echo after the big answer: %v", err)
	}
}

// TestStdioRequestIDsAreNeverAltered has the server send requests whose
// ids the SDK would change (it reads numbers as float64 and keeps int64:
// 1.5 becomes 1). Each must get an answer with its id exactly as sent: a
// result where the id survives the SDK, -32600 Invalid Request otherwise.
func TestStdioRequestIDsAreNeverAltered(t *testing.T) {
	ids := []string{`1.5`, `7`, `1e2`, `9007199254740993`, `"s-1"`, `-3`}
	s := connect(t, rawOptions(t, map[string]string{"RAW_ASK_IDS": strings.Join(ids, "|")}))
	var got map[string]string
	waitFor(t, "answers to every request of the server", 5*time.Second, func() bool {
		res, err := s.CallTool(context.Background(), "replies", nil)
		if err != nil {
			t.Fatal(err)
		}
		got = map[string]string{}
		for _, line := range strings.Split(textOf(t, res), "\n") {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  *struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			if line == "" || json.Unmarshal([]byte(line), &m) != nil {
				continue
			}
			switch {
			case m.Error != nil:
				got[string(m.ID)] = fmt.Sprintf("error %d", m.Error.Code)
			case m.Result != nil:
				got[string(m.ID)] = "result"
			}
		}
		return len(got) >= len(ids)
	})
	want := map[string]string{
		`1.5`: "error -32600", `1e2`: "error -32600", `9007199254740993`: "error -32600",
		`7`: "result", `"s-1"`: "result", `-3`: "result",
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("request id %s answered with %q, want %q (all answers: %v)", id, got[id], w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("answers under ids %v, want exactly %d", got, len(want))
	}
	if !strings.Contains(s.Stderr(), "id 1.5 is not an integer") {
		t.Errorf("stderr tail lacks a note about id 1.5:\n%s", s.Stderr())
	}
}

// A read whose context carries an answer cap (hostfetch.WithAnswerCap) is
// held to it over stdio too: a 20 MiB answer to a read capped at 1 MiB
// fails with ErrTooLarge and never reaches the SDK's decoder; when the id
// comes before the result, the line is not even kept past the cap. The
// session goes on, and an uncapped read of the same answer still works.
func TestStdioAnswerCapOfTheRead(t *testing.T) {
	s := connect(t, rawOptions(t, nil))
	for _, uri := range []string{"ui://idfirst", "ui://idlast"} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := s.ReadResource(hostfetch.WithAnswerCap(context.Background(), 1<<20), uri)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, hostfetch.ErrTooLarge) || !strings.Contains(err.Error(), "answer cap of 1 MiB") {
			t.Errorf("%s: err = %v, want the read's cap", uri, err)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %d KiB allocated", uri, alloc>>10)
		if uri == "ui://idfirst" && alloc > 16<<20 {
			t.Errorf("%s: %d MiB allocated reading a capped 20 MiB answer, want it cut at the cap", uri, alloc>>20)
		}
	}
	res, err := s.ReadResource(context.Background(), "ui://idfirst")
	if err != nil || len(res.Contents) != 1 || len(res.Contents[0].Text) != 20<<20 {
		t.Fatalf("the uncapped read: %v", err)
	}
}
