package testenv

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// startAttempts is how often StartEverything picks a new port when another
// process took the free one first.
const startAttempts = 3

// StartEverything starts @modelcontextprotocol/server-everything with Node 22
// in mode "streamableHttp" or "sse" on a free port, waits until it accepts
// connections, and returns its base URL (http://127.0.0.1:<port>). The server
// reads its port from $PORT; it binds every interface, and tests reach it on
// 127.0.0.1 only. It is killed when the test ends.
func StartEverything(t testing.TB, mode string) string {
	t.Helper()
	argv := append(NodeBin(t, "mcp-server-everything"), mode)
	var err error
	for range startAttempts {
		var port int
		if port, err = freePort(); err != nil {
			break
		}
		_, err = startProcess(t, ProcessOptions{
			Argv:      argv,
			Env:       []string{"PORT=" + strconv.Itoa(port)},
			ReadyPort: port,
		})
		if err == nil {
			return fmt.Sprintf("http://127.0.0.1:%d", port)
		}
		if !addrInUse(err) {
			break
		}
	}
	t.Fatalf("testenv: server-everything %s: %v", mode, err)
	return ""
}

// StartEverythingHTTP starts server-everything in its Streamable HTTP mode
// (see StartEverything) and returns its MCP endpoint,
// http://127.0.0.1:<port>/mcp.
func StartEverythingHTTP(t testing.TB) string {
	t.Helper()
	return StartEverything(t, "streamableHttp") + "/mcp"
}

// ConformanceBin returns the argv that runs the pinned
// @modelcontextprotocol/conformance command line with Node 22.
func ConformanceBin(t testing.TB) []string {
	t.Helper()
	return NodeBin(t, "conformance")
}

// addrInUse reports whether err is a child that exited because its port was
// taken.
func addrInUse(err error) bool {
	var early *earlyExitError
	return errors.As(err, &early) && strings.Contains(early.output, "EADDRINUSE")
}
