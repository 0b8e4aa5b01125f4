package permission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/termsafe"
)

// A Request asks the user whether one call may run. It leads with the
// call's identity from the host's own tables (Server, Tool, PublicName);
// everything the server says about the tool (Title, Description,
// Annotations) is a claim, stripped for terminals by [termsafe], bounded,
// and to be shown labelled as the server's.
type Request struct {
	// Server is the server id from the configuration; Tool the tool's
	// original name on that server (names with control or invisible
	// characters are never offered, see [adapter.SafeName]); PublicName the
	// name the model used. These are the host's own record of the call.
	Server     string `json:"server"`
	Tool       string `json:"tool"`
	PublicName string `json:"publicName"`
	// CallID is the model's id for the call, when the call belongs to a
	// run ("" for a direct call).
	CallID string `json:"callId,omitempty"`
	// Title is the tool's display name as the server claims it: one line,
	// at most [termsafe.DefaultLineMax] runes.
	Title string `json:"title"`
	// Description is the tool's description as the server claims it, at
	// most [MaxDescriptionRunes] runes, newlines kept.
	Description string `json:"description,omitempty"`
	// Arguments are the model's arguments, pretty-printed and bounded;
	// ArgumentsTruncated reports that they were cut.
	Arguments          string `json:"arguments"`
	ArgumentsTruncated bool   `json:"argumentsTruncated,omitempty"`
	// Annotations are the server's hints about the tool. They are claims
	// made by the server, not facts: a UI must show them as untrusted.
	Annotations *Annotations `json:"annotations,omitempty"`
	// Changed reports that the user always allowed this tool before, but
	// the server has changed its definition since.
	Changed bool `json:"changed"`
	// ChangedFields names what changed when Changed: "title",
	// "description", "input schema", "annotations" (see [ChangedFields]).
	// It is empty when the host cannot tell, see [Request.ChangeNote].
	ChangedFields []string `json:"changedFields,omitempty"`
}

// ChangeNote is a sentence for the user saying what changed since the
// tool was always allowed, or "" when the request is not about a changed
// definition.
func (r *Request) ChangeNote() string {
	switch {
	case !r.Changed:
		return ""
	case len(r.ChangedFields) == 0:
		return "The server changed this tool's definition since you always allowed it (the answer was recorded by an older version of mcp-host or names no part that changed, so what changed is not known)."
	}
	return "The server changed this tool's " + joinAnd(r.ChangedFields) + " since you always allowed it."
}

// joinAnd joins words as "a", "a and b", "a, b and c".
func joinAnd(words []string) string {
	if len(words) <= 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// MaxDescriptionRunes bounds [Request.Description].
const MaxDescriptionRunes = 1000

// Text renders the request for a terminal prompt: the host's identity of
// the call first, then the server's claims under a label that says so,
// then the arguments. Every line is terminal-safe; the answer keys are the
// caller's to add.
func (r *Request) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Allow tool %q of server %q?\n", r.Tool, r.Server)
	fmt.Fprintf(&b, "  public name: %s\n", r.PublicName)
	if r.Changed {
		b.WriteString("  Its definition CHANGED since you always allowed it")
		if len(r.ChangedFields) > 0 {
			b.WriteString(": " + strings.Join(r.ChangedFields, ", "))
		} else {
			b.WriteString(" (what changed is not known)")
		}
		b.WriteString(".\n")
	}
	var claims []string
	if r.Title != "" && r.Title != r.Tool {
		claims = append(claims, fmt.Sprintf("title: %q", r.Title))
	}
	if r.Description != "" {
		claims = append(claims, "description: "+strings.ReplaceAll(r.Description, "\n", "\n    "))
	}
	if h := r.Annotations.hints(); h != "" {
		claims = append(claims, "hints: "+h)
	}
	if len(claims) > 0 {
		b.WriteString("Claimed by the server (untrusted):\n  " + strings.Join(claims, "\n  ") + "\n")
	}
	b.WriteString("Arguments:\n" + r.Arguments + "\n")
	if r.ArgumentsTruncated {
		b.WriteString("(arguments cut for display)\n")
	}
	return termsafe.TextMax(strings.TrimSuffix(b.String(), "\n"), -1)
}

// hints lists the claimed hints that matter for a decision.
func (a *Annotations) hints() string {
	if a == nil {
		return ""
	}
	var h []string
	if a.ReadOnlyHint {
		h = append(h, "read-only")
	}
	if a.DestructiveHint != nil && *a.DestructiveHint {
		h = append(h, "destructive")
	}
	if a.IdempotentHint {
		h = append(h, "idempotent")
	}
	if a.OpenWorldHint != nil && *a.OpenWorldHint {
		h = append(h, "open world")
	}
	return strings.Join(h, ", ")
}

// Annotations are a tool's hints as its server claims them.
type Annotations struct {
	// Untrusted is always true: the server, not the host, says so.
	Untrusted       bool   `json:"untrusted"`
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  bool   `json:"idempotentHint"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Answer is the user's answer to a [Request].
type Answer string

// Answers.
const (
	// AllowOnce runs this call only.
	AllowOnce Answer = "allow_once"
	// AllowTool runs this call and, from now on, every call of this tool
	// while its definition stays the same.
	AllowTool Answer = "always_tool"
	// AllowServer runs this call and every later call of the server's tools.
	AllowServer Answer = "always_server"
	// Deny refuses the call and ends the turn.
	Deny Answer = "deny"
	// DenyWithReason refuses the call and tells the model the reason.
	DenyWithReason Answer = "deny_with_reason"
)

// A Response is an [Answer], with the reason for DenyWithReason.
type Response struct {
	Answer Answer `json:"answer"`
	Reason string `json:"reason,omitempty"`
}

// A Confirmer asks the user (through the UI). It should return when ctx is
// done; the gate stops waiting then in any case and denies the call.
type Confirmer interface {
	Confirm(ctx context.Context, req *Request) (Response, error)
}

// ConfirmFunc is a function that is a [Confirmer].
type ConfirmFunc func(ctx context.Context, req *Request) (Response, error)

// Confirm calls f.
func (f ConfirmFunc) Confirm(ctx context.Context, req *Request) (Response, error) {
	return f(ctx, req)
}

var errTimeout = errors.New("confirmation timed out")

// request builds the question about a call of t.
func (g *Gate) request(t *adapter.Tool, args json.RawMessage, changed bool) *Request {
	pretty, cut := prettyArgs(args, g.opts.MaxArgsBytes)
	req := &Request{
		Server:             termsafe.Strip(t.Server()),
		Tool:               termsafe.Strip(t.ToolName()),
		PublicName:         termsafe.Strip(t.Name()),
		Title:              termsafe.Line(t.Title()),
		Description:        termsafe.TextMax(t.Definition().Description, MaxDescriptionRunes),
		Arguments:          pretty,
		ArgumentsTruncated: cut,
		Changed:            changed,
	}
	if changed {
		server := t.Server()
		pinned := g.opts.Store.pinnedDigest(g.identity(server).storeKey(server), t.ToolName())
		req.ChangedFields, _ = ChangedFields(pinned, Digest(t.Definition()))
	}
	if a := t.Definition().Annotations; a != nil {
		req.Annotations = &Annotations{
			Untrusted:       true,
			Title:           termsafe.Line(a.Title),
			ReadOnlyHint:    a.ReadOnlyHint,
			DestructiveHint: a.DestructiveHint,
			IdempotentHint:  a.IdempotentHint,
			OpenWorldHint:   a.OpenWorldHint,
		}
	}
	return req
}

// ask waits for the Confirmer at most ConfirmTimeout. A Confirmer that
// ignores its context is left behind, never waited for.
func (g *Gate) ask(ctx context.Context, req *Request) (Response, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type answer struct {
		resp Response
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		resp, err := g.opts.Confirmer.Confirm(ctx, req)
		done <- answer{resp, err}
	}()
	timer := time.NewTimer(g.opts.ConfirmTimeout)
	defer timer.Stop()
	select {
	case a := <-done:
		return a.resp, a.err
	case <-timer.C:
		return Response{}, errTimeout
	case <-ctx.Done():
		return Response{}, ctx.Err()
	}
}
