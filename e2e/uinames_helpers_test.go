package e2e_test

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/redact"
)

// The host's own UIs (host web, host chat) run `host serve` as their child,
// out of the harness's reach; run with MCP_HOST_DEBUG=1 (uiDebugEnv), the
// runtime logs every message it receives and sends (secrets masked) to the
// UI's --log file. checkOwnUI puts those messages through the schema check
// (those the log masked a value of, through its old-names part only),
// which for them also refuses the old names the schema marks deprecated
// (PROTOCOL.md "Aliases"): the host's own UIs speak this protocol version's
// names only, so that the aliases can go at the next one.

// uiDebugEnv makes a host UI's runtime log its protocol traffic.
const uiDebugEnv = "MCP_HOST_DEBUG=1"

// checkOwnUI fails t when the messages in the runtime log at logPath (of
// host UI ui) do not match the schema or the UI sent an old name. It
// fails too when the log holds no message from the UI: the check would
// then check nothing.
func checkOwnUI(t *testing.T, ui, logPath string) {
	t.Helper()
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Errorf("%s: schema check: %v", ui, err)
		return
	}
	s := newSchemaCheck(t)
	s.ownUI = ui
	fromUI, masked := 0, 0
	for _, line := range bytes.Split(log, []byte("\n")) {
		from, msg, ok := loggedMessage(string(line))
		if !ok {
			continue
		}
		if from == protocol.UIToRuntime {
			fromUI++
		}
		// The log masks secret-looking values (an error's "code" too):
		// such a line is no longer what went over the wire.
		whole := !strings.Contains(msg, redact.Mask)
		if !whole {
			masked++
		}
		s.checkLine(from, []byte(msg), whole)
	}
	if masked > 0 {
		t.Logf("%s: schema check: %d logged messages had masked values: checked for old names only", ui, masked)
	}
	if fromUI == 0 {
		t.Errorf("%s: schema check: no message from the UI in %s (is %s set?)", ui, logPath, uiDebugEnv)
	}
	s.verify(t)
}

// loggedMessage reads a runtime log line `... msg=recv msg="{...}"` (or
// send): the message and who sent it.
func loggedMessage(line string) (protocol.Direction, string, bool) {
	for _, d := range []struct {
		marker string
		from   protocol.Direction
	}{{" msg=recv msg=", protocol.UIToRuntime}, {" msg=send msg=", protocol.RuntimeToUI}} {
		_, rest, ok := strings.Cut(line, d.marker)
		if !ok {
			continue
		}
		quoted, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return "", "", false
		}
		msg, err := strconv.Unquote(quoted)
		return d.from, msg, err == nil
	}
	return "", "", false
}

// oldNames is the error for a message of the host's own UI that uses an
// old name.
func oldNames(ui string, names []string, line []byte) error {
	return fmt.Errorf("%s sent the old name %s (PROTOCOL.md \"Aliases\": send the new one)\n  message: %.300s",
		ui, strings.Join(names, ", "), line)
}
