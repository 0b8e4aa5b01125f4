package protocol

import "encoding/json"

// Names: the protocol calls one thing by one name. A request that names a
// configured server calls the field "server" (tool.call, prompts.*,
// resources.*, app.*, and the mcp.* requests below, which said "id"
// before); a lifecycle word is a "status" (run.status, tasks, the
// registry, and ServerStatus.Status beside its older "state"); a tool's
// arguments are "arguments" (the scripted model's "args" is an alias). An
// old name is accepted in requests as an alias until the next protocol
// version; given together with its new name and another value it is
// CodeInvalidParams (see [alias]). PROTOCOL.md lists the aliases.

// ServerParams name one server (mcp.get, mcp.reconnect, mcp.enable,
// mcp.disable).
type ServerParams struct {
	// ID is "server": the id of a configured server (required; the Go
	// field keeps its old name).
	ID string `json:"server,omitempty"`
	// OldID is "id", the old name of "server": a deprecated alias,
	// accepted until the next protocol version.
	OldID string `json:"id,omitempty"`
}

// ApproveParams answer the approval of a project-defined server
// (mcp.approve). The answer is pinned to Digest, which must be the one the
// UI showed (from ServerStatus.Approval): a definition that changed
// meanwhile is refused.
type ApproveParams struct {
	// ID is "server": the id of a configured server (required; the Go
	// field keeps its old name).
	ID string `json:"server,omitempty"`
	// OldID is "id", the old name of "server": a deprecated alias,
	// accepted until the next protocol version.
	OldID string `json:"id,omitempty"`
	// Approve starts the server; false records a refusal (it stays off and
	// is not asked about again until its definition changes).
	Approve bool `json:"approve"`
	// Digest is the definition digest the user saw.
	Digest string `json:"digest"`
}

// LoginParams start a login (mcp.login); the answer comes when the login
// has finished, failed or was cancelled.
type LoginParams struct {
	// ID is "server": the id of a configured server (required; the Go
	// field keeps its old name).
	ID string `json:"server,omitempty"`
	// OldID is "id", the old name of "server": a deprecated alias,
	// accepted until the next protocol version.
	OldID string `json:"id,omitempty"`
	// NoBrowser asks for the URL to be shown and the redirect URL pasted
	// back (ui.prompt.request), instead of opening a browser.
	NoBrowser bool `json:"no_browser,omitempty"`
}

// LogoutParams forget a server's tokens (mcp.logout).
type LogoutParams struct {
	// ID is "server": the id of a configured server (required; the Go
	// field keeps its old name).
	ID string `json:"server,omitempty"`
	// OldID is "id", the old name of "server": a deprecated alias,
	// accepted until the next protocol version.
	OldID string `json:"id,omitempty"`
	// ForgetClient also forgets the client registration.
	ForgetClient bool `json:"forget_client,omitempty"`
}

// alias resolves a renamed params field: oldValue is what the request gave
// under the old name. It fills *value from it when the new name was not
// given; both names with different values is CodeInvalidParams naming the
// old one.
func alias(method, name, old string, value *string, oldValue string) *Error {
	if oldValue == "" || *value == oldValue {
		return nil
	}
	if *value != "" {
		return NewError(CodeInvalidParams, ErrorData{Method: method, Field: old},
			"%s: params fields %q and %q (its old name) differ: give %q only", method, name, old, name)
	}
	*value = oldValue
	return nil
}

// serverField resolves "server" and its alias "id", then requires it.
func serverField(method string, id *string, oldID string) *Error {
	if err := alias(method, "server", "id", id, oldID); err != nil {
		return err
	}
	if *id == "" {
		return required(method, "server", "the id of a configured server")
	}
	return nil
}

func (p *ServerParams) validate(m string) *Error  { return serverField(m, &p.ID, p.OldID) }
func (p *ApproveParams) validate(m string) *Error { return serverField(m, &p.ID, p.OldID) }
func (p *LoginParams) validate(m string) *Error   { return serverField(m, &p.ID, p.OldID) }
func (p *LogoutParams) validate(m string) *Error  { return serverField(m, &p.ID, p.OldID) }

// UnmarshalJSON reads the capabilities a UI declares and ignores those the
// runtime does not know: a newer UI may declare more. (The rest of
// initialize's params, like every request's, refuse unknown fields.)
func (c *UICapabilities) UnmarshalJSON(b []byte) error {
	type plain UICapabilities
	return json.Unmarshal(b, (*plain)(c))
}
