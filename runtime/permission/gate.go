// Package permission is the confirm-by-default gate in front of every MCP
// tool call: deny rules, then allow rules, then the server's explicit trust,
// then "always" answers remembered per tool (pinned to the tool's
// definition) or per server, and otherwise a question to the user through a
// [Confirmer] — or, in a non-interactive run, a [Policy].
//
// It must not import runtime or runtime/serve: they hand it a [Confirmer].
package permission

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/mcp-host/mcp-host/core"
	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of [Options].
const (
	// DefaultConfirmTimeout is how long the gate waits for an answer.
	DefaultConfirmTimeout = 2 * time.Minute
	// DefaultMaxArgsBytes bounds the arguments shown in a [Request].
	DefaultMaxArgsBytes = 8 << 10
)

// A Rule matches tool calls by server id and original tool name, each a
// path.Match glob; an empty field matches everything.
type Rule struct {
	Server string `json:"server,omitempty"`
	Tool   string `json:"tool,omitempty"`
}

// Matches reports whether the rule covers the server's tool.
func (r Rule) Matches(server, tool string) bool {
	return glob(r.Server, server) && glob(r.Tool, tool)
}

func glob(pattern, s string) bool {
	if pattern == "" || pattern == "*" {
		return true
	}
	ok, _ := path.Match(pattern, s)
	return ok
}

// String returns the rule as "server/tool".
func (r Rule) String() string {
	s, t := r.Server, r.Tool
	if s == "" {
		s = "*"
	}
	if t == "" {
		t = "*"
	}
	return s + "/" + t
}

// Policy is what a non-interactive run does with calls nobody can confirm.
type Policy string

// Non-interactive policies.
const (
	// PolicyDeny (the default) denies every MCP tool call: with no one to
	// ask, nothing runs.
	PolicyDeny Policy = "deny"
	// PolicyRulesOnly lets deny rules, allow rules, trusted servers and
	// remembered "always" answers decide, and denies what would need a
	// confirmation.
	PolicyRulesOnly Policy = "rules-only"
)

// Options configure a [Gate].
type Options struct {
	// Deny and Allow are the configured rules; deny rules win.
	Deny, Allow []Rule
	// Trusted reports servers configured with "trust": true, whose calls
	// need no confirmation. Only explicit configuration may set it.
	Trusted func(server string) bool
	// AutoAllowReadOnly reports servers configured with "auto_allow":
	// "read_only", whose tools that claim to be read-only and closed-world
	// need no confirmation (see [ReadOnlyClaim]). Only the user's global
	// configuration may set it.
	AutoAllowReadOnly func(server string) bool
	// Identity, when set, says who a server id stands for right now (see
	// [Identity]): remembered answers are kept per identity, and allow
	// rules apply only to servers the user's own configuration defines.
	// Nil treats every server as its id alone, vouched for.
	Identity func(server string) Identity
	// Store holds the "always" answers; nil remembers them in memory for
	// the life of the gate.
	Store *Store
	// Confirmer asks the user. Nil makes the gate non-interactive.
	Confirmer Confirmer
	// NonInteractive is the policy without a Confirmer; default PolicyDeny.
	NonInteractive Policy
	// ConfirmTimeout bounds the wait for an answer, which then counts as a
	// deny. Default DefaultConfirmTimeout.
	ConfirmTimeout time.Duration
	// MaxArgsBytes bounds the pretty-printed arguments in a request.
	// Default DefaultMaxArgsBytes.
	MaxArgsBytes int
	// Warn, when set, receives problems that do not change a decision
	// (see [Verdict.Warning]).
	Warn func(msg string)
}

// A Gate decides whether MCP tool calls may run. Safe for concurrent use.
type Gate struct {
	opts Options
	ro   readOnlyPins
}

// New checks the options and returns a gate.
func New(opts Options) (*Gate, error) {
	for kind, rules := range map[string][]Rule{"deny": opts.Deny, "allow": opts.Allow} {
		for _, r := range rules {
			for field, g := range map[string]string{"server": r.Server, "tool": r.Tool} {
				if _, err := path.Match(g, ""); err != nil {
					return nil, fmt.Errorf("permission: %s rule %s: bad %s glob %q: %w", kind, r, field, g, err)
				}
			}
		}
	}
	switch opts.NonInteractive {
	case "":
		opts.NonInteractive = PolicyDeny
	case PolicyDeny, PolicyRulesOnly:
	default:
		return nil, fmt.Errorf("permission: unknown non-interactive policy %q (want %q or %q)", opts.NonInteractive, PolicyDeny, PolicyRulesOnly)
	}
	if opts.Store == nil {
		opts.Store, _ = OpenStore("")
	}
	if opts.ConfirmTimeout <= 0 {
		opts.ConfirmTimeout = DefaultConfirmTimeout
	}
	if opts.MaxArgsBytes <= 0 {
		opts.MaxArgsBytes = DefaultMaxArgsBytes
	}
	return &Gate{opts: opts}, nil
}

// What decided a [Verdict].
const (
	ByDenyRule   = "deny rule"
	ByAllowRule  = "allow rule"
	ByTrust      = "trusted server"
	ByReadOnly   = "read-only claim (auto_allow)"
	ByRemembered = "remembered answer"
	ByUser       = "user"
	ByPolicy     = "non-interactive policy"
	ByTimeout    = "timeout"
)

// A Verdict is the gate's decision about one call.
type Verdict struct {
	// Allow reports that the call may run.
	Allow bool
	// By says what decided: one of the By* constants.
	By string
	// Reason, for a denied call, is the message the model sees, e.g.
	// "denied by user: <reason>".
	Reason string
	// UserReason is the reason the user typed, if any.
	UserReason string
	// EndTurn reports a plain deny by the user, which ends the turn.
	EndTurn bool
	// Warning reports a problem that did not change the decision, such as
	// an "always" answer that could not be saved.
	Warning string
}

// Check decides whether t may be called with args, asking the Confirmer
// when the rules and remembered answers do not decide. It returns an error
// only when ctx ends while waiting for the user.
func (g *Gate) Check(ctx context.Context, t *adapter.Tool, args json.RawMessage) (Verdict, error) {
	return g.check(ctx, t, args, "")
}

// check is Check for the model's call callID ("" outside a run), which the
// Request names.
func (g *Gate) check(ctx context.Context, t *adapter.Tool, args json.RawMessage, callID string) (Verdict, error) {
	v, err := g.decide(ctx, t, args, callID)
	if err == nil && v.Allow && v.By != ByDenyRule {
		// A read-only tool the user let run after its annotations changed
		// runs unasked again under these annotations.
		g.ro.repin(t)
	}
	return v, err
}

// decide is check without the pinning of read-only claims.
func (g *Gate) decide(ctx context.Context, t *adapter.Tool, args json.RawMessage, callID string) (Verdict, error) {
	server, tool := t.Server(), t.ToolName()
	for _, r := range g.opts.Deny {
		if r.Matches(server, tool) {
			return denied(ByDenyRule, fmt.Sprintf("denied by rule %s", r)), nil
		}
	}
	interactive := g.opts.Confirmer != nil
	if !interactive && g.opts.NonInteractive == PolicyDeny {
		return denied(ByPolicy, "denied: the run is non-interactive and its policy denies MCP tool calls"), nil
	}
	ident := g.identity(server)
	if ident.Vouched {
		for _, r := range g.opts.Allow {
			if r.Matches(server, tool) {
				return Verdict{Allow: true, By: ByAllowRule}, nil
			}
		}
		if g.opts.Trusted != nil && g.opts.Trusted(server) {
			return Verdict{Allow: true, By: ByTrust}, nil
		}
		if g.opts.AutoAllowReadOnly != nil && g.opts.AutoAllowReadOnly(server) && g.ro.allows(t) {
			return Verdict{Allow: true, By: ByReadOnly}, nil
		}
	}
	key := ident.storeKey(server)
	if ident.Vouched && key != server {
		// Answers remembered before identities were kept belong to the
		// server the user's own configuration defines, and to no other.
		g.opts.Store.adoptLegacy(server, key)
	}
	digest := Digest(t.Definition())
	if err := g.repinLegacy(key, tool, t.Definition(), digest); err != nil {
		v := Verdict{Allow: true, By: ByRemembered,
			Warning: fmt.Sprintf("could not update the remembered answer for tool %q of server %q to the new definition digest: %v", tool, server, err)}
		return g.warn(v), nil
	}
	allowed, changed := g.opts.Store.Lookup(key, tool, digest)
	if allowed {
		return Verdict{Allow: true, By: ByRemembered}, nil
	}
	if !interactive {
		return denied(ByPolicy, "denied: the call needs confirmation and the run is non-interactive"), nil
	}
	req := g.request(t, args, changed)
	req.CallID = callID
	resp, err := g.ask(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return Verdict{}, fmt.Errorf("confirm tool %q of server %q: %w", tool, server, ctx.Err())
		}
		if err == errTimeout {
			return denied(ByTimeout, fmt.Sprintf("denied: no answer to the confirmation within %v", g.opts.ConfirmTimeout)), nil
		}
		return denied(ByUser, fmt.Sprintf("denied: the confirmation failed: %v", err)), nil
	}
	switch resp.Answer {
	case AllowOnce:
		return Verdict{Allow: true, By: ByUser}, nil
	case AllowTool:
		v := Verdict{Allow: true, By: ByUser}
		if err := g.opts.Store.AllowTool(key, tool, digest); err != nil {
			v.Warning = fmt.Sprintf("could not remember the answer for tool %q of server %q: %v", tool, server, err)
		}
		return g.warn(v), nil
	case AllowServer:
		v := Verdict{Allow: true, By: ByUser}
		if err := g.opts.Store.AllowServer(key); err != nil {
			v.Warning = fmt.Sprintf("could not remember the answer for server %q: %v", server, err)
		}
		return g.warn(v), nil
	case DenyWithReason:
		reason := printable(resp.Reason)
		if reason == "" {
			break
		}
		v := denied(ByUser, "denied by user: "+reason)
		v.UserReason = reason
		return v, nil
	}
	// Deny, an empty reason, or an answer the gate does not know.
	v := denied(ByUser, "denied by user")
	v.EndTurn = true
	return v, nil
}

func (g *Gate) warn(v Verdict) Verdict {
	if v.Warning != "" && g.opts.Warn != nil {
		g.opts.Warn(v.Warning)
	}
	return v
}

func denied(by, reason string) Verdict {
	return Verdict{By: by, Reason: reason}
}

// Hook returns a core permission hook backed by the gate. It checks raw
// adapters (*adapter.Tool); tools from [Gate.Wrap] check themselves when
// called and other (local) tools are not this gate's business, so both are
// allowed here. A plain user deny ends the turn; every other deny gives the
// model the reason.
func (g *Gate) Hook() core.PermissionHook {
	return g.HookNotify(nil)
}

// HookNotify is [Gate.Hook] that also hands every verdict on a call of an
// MCP tool to onVerdict (when not nil) before the run goes on, so that the
// embedder can say what decided it. The Request a Confirmer gets names
// the call (CallID).
func (g *Gate) HookNotify(onVerdict func(req core.PermissionRequest, v Verdict)) core.PermissionHook {
	return func(ctx context.Context, req core.PermissionRequest) (core.PermissionDecision, error) {
		t, ok := req.Tool.(*adapter.Tool)
		if !ok {
			return core.Allow(), nil
		}
		v, err := g.check(ctx, t, req.Call.Args, req.Call.ID)
		if err != nil {
			return core.PermissionDecision{}, err
		}
		if onVerdict != nil {
			onVerdict(req, v)
		}
		return v.Decision(), nil
	}
}

// Decision turns the verdict into the core's terms.
func (v Verdict) Decision() core.PermissionDecision {
	switch {
	case v.Allow:
		return core.Allow()
	case v.EndTurn:
		return core.Deny()
	case v.UserReason != "":
		return core.DenyWithReason(v.UserReason)
	}
	return core.DenyWithReason(v.Reason)
}

// Guarded is an adapter whose every call goes through a gate first.
type Guarded struct {
	*adapter.Tool
	gate *Gate
}

var _ core.Tool = (*Guarded)(nil)

// Wrap returns t behind the gate: each Call is checked first, and a denied
// call returns a tool error the model sees ("denied by user: <reason>").
func (g *Gate) Wrap(t *adapter.Tool) *Guarded {
	return &Guarded{Tool: t, gate: g}
}

// Call checks the call with the gate and, if allowed, makes it.
func (w *Guarded) Call(ctx context.Context, args json.RawMessage) (*core.Result, error) {
	v, err := w.gate.Check(ctx, w.Tool, args)
	if err != nil {
		return nil, err
	}
	if !v.Allow {
		return &core.Result{IsError: true, Content: []core.Content{{Type: core.ContentText, Text: v.Reason}}}, nil
	}
	return w.Tool.Call(ctx, args)
}

// repinLegacy moves an "always allow this tool" answer pinned by a
// version of mcp-host before titles were pinned (a bare sha256, no "/")
// to the current digest, when it was given for exactly this definition
// and the definition has no title (which the old digest did not cover):
// upgrading must not ask again about a tool that did not change. An
// error means the answer holds but could not be rewritten.
func (g *Gate) repinLegacy(key, tool string, def *mcp.Tool, digest string) error {
	pinned := g.opts.Store.pinnedDigest(key, tool)
	if pinned == "" || strings.Contains(pinned, "/") || def.Title != "" || pinned != legacyDigest(def) {
		return nil
	}
	return g.opts.Store.AllowTool(key, tool, digest)
}

// legacyDigest is the digest versions of mcp-host before titles were
// pinned stored for an "always allow this tool" answer: the hex sha256 of
// the tool's name, description, input schema and annotations as canonical
// JSON, without the part digests [Digest] appends after a "/".
func legacyDigest(def *mcp.Tool) string {
	sum := sha256.Sum256(encodeJSON(map[string]any{
		"name":        def.Name,
		"description": def.Description,
		"inputSchema": canonical(def.InputSchema),
		"annotations": annotationsDoc(def.Annotations),
	}))
	return hex.EncodeToString(sum[:])
}
