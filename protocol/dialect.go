package protocol

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
)

// DeprecationNoter is implemented by a [Server] that wants to hear when
// its UI uses a deprecated alias ([Deprecations]): once per session and
// alias, to log a warning.
type DeprecationNoter interface {
	NoteDeprecated(ctx context.Context, d Deprecation)
}

// session is one UI's negotiated dialect, set by a successful initialize.
type session struct {
	mu      sync.Mutex
	dialect Dialect
	noted   map[string]bool
}

type dialectKey struct{}

// dialectOf is the dialect a request is served in: the session's, or the
// newest before initialize.
func dialectOf(ctx context.Context) Dialect {
	if d, ok := ctx.Value(dialectKey{}).(Dialect); ok {
		return d
	}
	return DialectOf(Version)
}

// withDialects serves each request in the session's dialect: the one
// place where a version's incompatible changes are undone for an older
// UI (see [Dialect]). initialize is served in the dialect of the version
// it names, so that an older UI's initialize is read as it was.
func withDialects(h Handler, s Server) Handler {
	sess := &session{dialect: DialectOf(Version), noted: map[string]bool{}}
	return func(ctx context.Context, m string, params json.RawMessage) (any, error) {
		sess.mu.Lock()
		d := sess.dialect
		sess.mu.Unlock()
		if m == MethodInitialize {
			var p InitializeParams
			_ = json.Unmarshal(params, &p)
			if v, err := Negotiate(&p); err == nil {
				d = DialectOf(v)
			}
		}
		res, err := h(context.WithValue(ctx, dialectKey{}, d), m, params)
		if m == MethodInitialize && err == nil {
			sess.mu.Lock()
			sess.dialect = d
			sess.mu.Unlock()
		}
		if n, ok := s.(DeprecationNoter); ok && usesOldID(m, params) {
			sess.mu.Lock()
			first := !sess.noted["id"]
			sess.noted["id"] = true
			sess.mu.Unlock()
			if first {
				n.NoteDeprecated(ctx, Deprecations[0])
			}
		}
		return res, d.translate(err)
	}
}

// oldIDMethods take "server" with its old name "id".
var oldIDMethods = []string{MethodMCPGet, MethodMCPReconnect, MethodMCPEnable, MethodMCPDisable, MethodMCPApprove, MethodMCPLogin, MethodMCPLogout}

// usesOldID says whether a request of m names its server "id".
func usesOldID(m string, params json.RawMessage) bool {
	if !slices.Contains(oldIDMethods, m) {
		return false
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(params, &fields) != nil {
		return false
	}
	_, ok := fields["id"]
	return ok
}

// translate turns an error of today's protocol into the one the dialect's
// version answered.
func (d Dialect) translate(err error) error {
	e, ok := err.(*Error)
	if !ok || e.Code != CodeInvalidParams || !slices.Contains(oldIDMethods, DataOf(e).Method) || DataOf(e).Field != "server" {
		return err
	}
	data := DataOf(e)
	switch {
	case d.MissingParamsUnknownServer:
		return NewError(CodeUnknownServer, ErrorData{Method: data.Method}, "%s: no server %q", data.Method, "")
	case d.ServerFieldID:
		data.Field = "id"
		return NewError(CodeInvalidParams, data, "%s", strings.Replace(e.Message, `"server"`, `"id"`, 1))
	}
	return err
}
