package serve

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode"

	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/permission"
	"github.com/mcp-host/mcp-host/runtime/sandbox"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// payload is what a hostile server puts in its strings: OSC title, cursor
// up and erase, 8-bit CSI, BEL, a bidi override, a zero-width space.
const payload = "\x1b]0;PWNED\x07\x1b[1A\x1b[2K\u009b2J\a\u202e\u200b"

// controls lists the runes of s a terminal would act on or that hide
// text; newlines and tabs count only when lines is false.
func controls(s string, lines bool) []rune {
	var out []rune
	for _, r := range s {
		if lines && (r == '\n' || r == '\t') {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || unicode.Is(unicode.Cf, r) {
			out = append(out, r)
		}
	}
	return out
}

// The runtime strips names, titles and server info before they reach the
// protocol, and descriptions too (lines kept, never cut: the UI decides
// how much to show).
func TestWireStripsServerText(t *testing.T) {
	long := strings.Repeat("d", 10000)
	info := wireToolDef("s", "mcp_s_x_1", &mcp.Tool{
		Name: "x", Title: "Title\n" + payload, Description: "Line one." + payload + "\nLine two.\t" + long,
	})
	if c := controls(info.Title, false); len(c) > 0 || strings.Contains(info.Title, "PWNED") || strings.TrimSpace(info.Title) != "Title" {
		t.Errorf("title %q holds %U", info.Title, c)
	}
	if c := controls(info.Description, true); len(c) > 0 || strings.Contains(info.Description, "PWNED") {
		t.Errorf("description %.80q… holds %U", info.Description, c)
	}
	if want := "Line one.\nLine two.\t" + long; info.Description != want {
		t.Errorf("description lost its lines or was cut: %.80q…", info.Description)
	}
	annotated := wireToolDef("s", "p", &mcp.Tool{Name: "x", Annotations: &mcp.ToolAnnotations{Title: "Ann" + payload}})
	if annotated.Title != "Ann" {
		t.Errorf("title from the annotations = %q, want %q", annotated.Title, "Ann")
	}

	st := wireStatus(runtime.Status{ID: "s", ServerName: "srv" + payload, ServerVersion: "1.0" + payload})
	if st.ServerName != "srv" || st.ServerVersion != "1.0" {
		t.Errorf("server info = %q %q, want it stripped", st.ServerName, st.ServerVersion)
	}
}

// confirmUI records the confirm it is asked.
type confirmUI struct {
	protocol.Client
	got *protocol.ConfirmParams
}

func (u *confirmUI) Confirm(_ context.Context, p *protocol.ConfirmParams) (*protocol.ConfirmResult, error) {
	u.got = p
	return &protocol.ConfirmResult{Answer: protocol.AnswerDeny}, nil
}

func (u *confirmUI) Log(context.Context, *protocol.LogParams) error { return errors.New("unexpected") }

// A confirm about a changed definition says what changed, in the message
// and as changed_fields, and carries the server's description as a claim.
func TestConfirmToolSaysWhatChanged(t *testing.T) {
	u := &confirmUI{}
	s := &service{ui: u}
	req := &permission.Request{
		Server: "s", Tool: "x", PublicName: "mcp_s_x_1", Title: "X", Description: "Does x.\nCarefully.",
		Arguments: "{}", Changed: true, ChangedFields: []string{"title", "description"},
	}
	resp, err := s.confirmTool(context.Background(), req)
	if err != nil || resp.Answer != permission.Deny {
		t.Fatalf("confirmTool: %+v %v", resp, err)
	}
	p := u.got
	if p == nil || p.Tool == nil {
		t.Fatal("no confirm was asked")
	}
	if !strings.Contains(p.Message, req.ChangeNote()) {
		t.Errorf("message %q does not say what changed (%q)", p.Message, req.ChangeNote())
	}
	if strings.Join(p.Tool.ChangedFields, ",") != "title,description" || !p.Tool.Changed {
		t.Errorf("changed_fields = %q (changed %v)", p.Tool.ChangedFields, p.Tool.Changed)
	}
	if p.Tool.Description != req.Description {
		t.Errorf("description = %q, want %q", p.Tool.Description, req.Description)
	}

	req.Changed, req.ChangedFields = false, nil
	s.confirmTool(context.Background(), req)
	if strings.Contains(u.got.Message, "changed") || u.got.Tool.ChangedFields != nil {
		t.Errorf("an unchanged tool's confirm speaks of a change: %q %q", u.got.Message, u.got.Tool.ChangedFields)
	}
}

// A stdio server's sandbox reaches the wire as the runtime has it.
func TestWireCarriesSandbox(t *testing.T) {
	st := wireStatus(runtime.Status{ID: "s", Sandbox: &sandbox.Status{State: sandbox.StateActive, Detail: "Landlock ABI 7", Summary: "default: reads system, toolchains, own files", Protections: []string{"files: enforced (Landlock ABI 7: reads and writes by grant)"}}})
	if sb := st.Sandbox; sb == nil || sb.State != "active" || sb.Detail != "Landlock ABI 7" || sb.Summary != "default: reads system, toolchains, own files" || len(sb.Protections) != 1 {
		t.Errorf("sandbox on the wire: %+v", st.Sandbox)
	}
	if st := wireStatus(runtime.Status{ID: "h"}); st.Sandbox != nil {
		t.Errorf("an http server has a sandbox: %+v", st.Sandbox)
	}
}
