package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// Error kinds (ErrorData.Kind): one per error code, so that a UI can
// branch on a word instead of a number.
const (
	KindParseError     = "parse_error"
	KindInvalidRequest = "invalid_request"
	KindMethodNotFound = "method_not_found"
	KindInvalidParams  = "invalid_params"
	KindInternalError  = "internal_error"
	KindFailed         = "failed"
	KindNotInitialized = "not_initialized"
	KindUnknownServer  = "unknown_server"
	KindNotReady       = "not_ready"
	KindDenied         = "denied"
	KindUnknownRun     = "unknown_run"
	KindNoModel        = "no_model"
	KindShuttingDown   = "shutting_down"
	KindCancelled      = "cancelled"
)

var kinds = map[int64]string{
	CodeParseError: KindParseError, CodeInvalidRequest: KindInvalidRequest,
	CodeMethodNotFound: KindMethodNotFound, CodeInvalidParams: KindInvalidParams,
	CodeInternalError: KindInternalError, CodeFailed: KindFailed,
	CodeNotInitialized: KindNotInitialized, CodeUnknownServer: KindUnknownServer,
	CodeNotReady: KindNotReady, CodeDenied: KindDenied, CodeUnknownRun: KindUnknownRun,
	CodeNoModel: KindNoModel, CodeShuttingDown: KindShuttingDown, CodeCancelled: KindCancelled,
}

// KindOf returns the error kind of a code ("failed" for codes this
// protocol does not define).
func KindOf(code int64) string {
	if k, ok := kinds[code]; ok {
		return k
	}
	return KindFailed
}

// ErrorData is the machine-readable "data" of every error answer the
// runtime sends: Kind always, the other fields where they apply.
type ErrorData struct {
	// Kind names the error code (Kind* constants).
	Kind string `json:"kind"`
	// Method is the request's method.
	Method string `json:"method,omitempty"`
	// Field is the params field that is missing or invalid, as a JSON
	// path ("id", "arguments").
	Field string `json:"field,omitempty"`
	// Server is the server id the error is about.
	Server string `json:"server,omitempty"`
	// Tool is the tool the error is about.
	Tool string `json:"tool,omitempty"`
	// State is the server's state, for not_ready.
	State string `json:"state,omitempty" renamed:"status"`
	// Status is State under its new name; state goes away at the next
	// protocol version.
	Status string `json:"status,omitempty"`
	// RunID is the run the error is about.
	RunID string `json:"run_id,omitempty"`
	// DecidedBy says what denied a call, for denied.
	DecidedBy string `json:"decided_by,omitempty"`
	// AppID is the app instance the error is about; URI the resource.
	AppID string `json:"app_id,omitempty"`
	URI   string `json:"uri,omitempty"`
	// ProtocolVersion is the runtime's protocol version, for
	// unsupported_version: the newest it speaks.
	ProtocolVersion string `json:"protocol_version,omitempty"`
	// SupportedVersions, for unsupported_version, are all the versions
	// the runtime speaks, newest first ([Versions]).
	SupportedVersions []string `json:"supported_versions,omitempty"`
}

// NewError returns an *Error with code, a message for people and data
// (whose Kind is filled in from code when empty).
func NewError(code int64, data ErrorData, format string, args ...any) *Error {
	if data.Kind == "" {
		data.Kind = KindOf(code)
	}
	if data.Status == "" {
		data.Status = data.State
	}
	raw, _ := json.Marshal(data)
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Data: raw}
}

// DataOf decodes the data of an error answer; the zero ErrorData when err
// is not an *Error or carries no data.
func DataOf(err error) ErrorData {
	var d ErrorData
	var werr *Error
	if errors.As(err, &werr) && len(werr.Data) > 0 {
		_ = json.Unmarshal(werr.Data, &d)
	}
	return d
}

// withKind returns e with data holding at least its kind.
func withKind(e *Error) *Error {
	if len(e.Data) > 0 {
		return e
	}
	c := *e
	c.Data, _ = json.Marshal(ErrorData{Kind: KindOf(e.Code)})
	return &c
}

// paramsError says in one sentence what is wrong with a request's params,
// from a decoding error, without the decoder's Go terms.
func paramsError(method string, err error) *Error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return NewError(CodeInvalidParams, ErrorData{Method: method},
				"%s: params must be a JSON object, not %s", method, article(te.Value))
		}
		return NewError(CodeInvalidParams, ErrorData{Method: method, Field: te.Field},
			"%s: params field %q must be %s, not %s", method, te.Field, jsonKind(te.Type), article(te.Value))
	}
	return NewError(CodeInvalidParams, ErrorData{Method: method}, "%s: params are not valid JSON", method)
}

// jsonKind names the JSON a Go type decodes from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "a different JSON type"
	}
	if t == reflect.TypeOf(json.RawMessage(nil)) {
		return "JSON"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "a different JSON type"
}

// article puts "a"/"an" before the JSON value kinds the decoder reports.
func article(v string) string {
	switch v {
	case "object", "array":
		return "an " + v
	case "bool":
		return "true or false"
	case "":
		return "something else"
	}
	if len(v) > 6 && v[:6] == "number" {
		return "a number"
	}
	return "a " + v
}

// required is the error for a missing params field.
func required(method, field, what string) *Error {
	return NewError(CodeInvalidParams, ErrorData{Method: method, Field: field},
		"%s: params field %q is required: %s", method, field, what)
}

// validator is implemented by params with required fields.
type validator interface {
	validate(method string) *Error
}

func (p *ToolCallParams) validate(m string) *Error {
	if p.Server == "" {
		return required(m, "server", "the id of a configured server")
	}
	if p.Tool == "" {
		return required(m, "tool", "the tool's name on its server")
	}
	return nil
}

func (p *RunCancelParams) validate(m string) *Error {
	if p.RunID == "" {
		return required(m, "run_id", "the run_id run.start answered")
	}
	return nil
}

// describeMalformed says in one sentence why a line is not a JSON-RPC 2.0
// message, without the decoder's Go terms.
func describeMalformed(line []byte) string {
	if !json.Valid(line) {
		return "the line is not JSON"
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(line, &probe) != nil {
		return "a message must be a JSON object (batches are not supported)"
	}
	var v string
	if json.Unmarshal(probe["jsonrpc"], &v) != nil || v != "2.0" {
		return `"jsonrpc" must be "2.0"`
	}
	if m, ok := probe["method"]; ok && json.Unmarshal(m, &v) != nil {
		return `"method" must be a string`
	}
	if id, ok := probe["id"]; ok {
		var s string
		var n float64
		if string(id) != "null" && json.Unmarshal(id, &s) != nil && json.Unmarshal(id, &n) != nil {
			return `"id" must be a string or an integer`
		}
		if _, ok := probe["method"]; !ok {
			return `a request needs a "method"`
		}
		return `"id" must be a string or an integer`
	}
	return `a message needs a "method" (a request or notification) or an "id" (a response)`
}
