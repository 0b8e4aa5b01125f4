package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcp-host/mcp-host/protocol"
)

// Validator checks the messages of one connection against a schema
// document, in both directions: a request's params against its method's
// params type, a response's result against the result type of the request
// it answers (it remembers the ids of requests in flight), an error
// against ErrorObject, every message against its JSON-RPC envelope.
type Validator struct {
	defs    map[string]*jsonschema.Schema
	methods map[string]Method

	mu       sync.Mutex
	resolved map[string]*jsonschema.Resolved
	pending  map[protocol.Direction]map[string]string // sender -> id -> method
	checked  int
	invalid  int
}

// NewValidator returns a Validator for the document doc (such as
// [Committed]).
func NewValidator(doc []byte) (*Validator, error) {
	var d struct {
		Defs    map[string]*jsonschema.Schema `json:"$defs"`
		Methods []Method                      `json:"x-methods"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("schema document: %w", err)
	}
	v := &Validator{defs: d.Defs, methods: map[string]Method{}, resolved: map[string]*jsonschema.Resolved{},
		pending: map[protocol.Direction]map[string]string{protocol.UIToRuntime: {}, protocol.RuntimeToUI: {}}}
	for _, m := range d.Methods {
		v.methods[m.Name] = m
	}
	return v, nil
}

// Counts returns how many messages were checked and how many of them did
// not match.
func (v *Validator) Counts() (checked, invalid int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.checked, v.invalid
}

// Check validates one line that from (UIToRuntime: the UI; RuntimeToUI:
// the runtime) sent. The error names the message and what does not match.
func (v *Validator) Check(from protocol.Direction, line []byte) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.checked++
	if err := v.check(from, line); err != nil {
		v.invalid++
		s := string(line)
		if len(s) > 300 {
			s = s[:300] + "…"
		}
		return fmt.Errorf("%s sent a message the schema does not allow: %w\n  message: %s", sender(from), err, s)
	}
	return nil
}

func sender(d protocol.Direction) string {
	if d == protocol.UIToRuntime {
		return "the UI"
	}
	return "the runtime"
}

func (v *Validator) check(from protocol.Direction, line []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	var msg any
	_ = json.Unmarshal(line, &msg)
	name, isCall := raw["method"]
	if !isCall {
		if err := v.validate("Response", msg); err != nil {
			return err
		}
		to := protocol.RuntimeToUI // the side whose request this answers
		if from == protocol.RuntimeToUI {
			to = protocol.UIToRuntime
		}
		method, ok := v.pending[to][string(raw["id"])]
		if !ok {
			return nil // an answer to an unreadable line: the envelope is all there is
		}
		delete(v.pending[to], string(raw["id"]))
		if res, ok := raw["result"]; ok {
			return v.validateRaw(v.methods[method].Result, res, "result of "+method)
		}
		return nil
	}
	var m string
	if err := json.Unmarshal(name, &m); err != nil {
		return fmt.Errorf("method is not a string")
	}
	spec, ok := v.methods[m]
	if !ok {
		return fmt.Errorf("method %q is not in the schema", m)
	}
	if spec.Direction != string(from) && spec.Direction != string(protocol.BothWays) {
		return fmt.Errorf("method %q goes %s, but %s sent it", m, spec.Direction, sender(from))
	}
	_, hasID := raw["id"]
	envelope := "Request"
	if !hasID {
		envelope = "Notification"
	}
	if hasID == spec.Notification {
		return fmt.Errorf("%s is a %s, but came as a %s", m, kind(spec.Notification), kind(!hasID))
	}
	if err := v.validate(envelope, msg); err != nil {
		return err
	}
	if hasID {
		v.pending[from][string(raw["id"])] = m
	}
	if p, ok := raw["params"]; ok && string(p) != "null" {
		return v.validateRaw(spec.Params, p, "params of "+m)
	}
	return nil
}

func kind(notification bool) string {
	if notification {
		return "notification"
	}
	return "request"
}

func (v *Validator) validateRaw(def string, data json.RawMessage, what string) error {
	var x any
	if err := json.Unmarshal(data, &x); err != nil {
		return fmt.Errorf("%s: %v", what, err)
	}
	if err := v.validate(def, x); err != nil {
		return fmt.Errorf("%s (%s): %w", what, def, err)
	}
	return nil
}

// validate checks x against the $defs entry def.
func (v *Validator) validate(def string, x any) error {
	rs := v.resolved[def]
	if rs == nil {
		if v.defs[def] == nil {
			return fmt.Errorf("the schema has no $defs entry %q", def)
		}
		root := &jsonschema.Schema{Schema: "https://json-schema.org/draft/2020-12/schema", Defs: v.defs, Ref: "#/$defs/" + def}
		var err error
		if rs, err = root.Resolve(nil); err != nil {
			return fmt.Errorf("schema entry %s: %v", def, err)
		}
		v.resolved[def] = rs
	}
	return rs.Validate(x)
}

// Deprecated returns the params fields of line, a request or notification
// that from sent, that the schema marks "deprecated": old names kept as
// aliases until the next protocol version (such as mcp.get's "id" for
// "server"), each as "METHOD params.FIELD". A message the schema does not
// describe has none (Check reports it).
func (v *Validator) Deprecated(from protocol.Direction, line []byte) []string {
	var msg struct {
		Method string                     `json:"method"`
		Params map[string]json.RawMessage `json:"params"`
	}
	if json.Unmarshal(line, &msg) != nil || msg.Method == "" {
		return nil
	}
	spec, ok := v.methods[msg.Method]
	if !ok || spec.Direction != string(from) && spec.Direction != string(protocol.BothWays) {
		return nil
	}
	def := v.defs[spec.Params]
	if def == nil {
		return nil
	}
	var old []string
	for name := range msg.Params {
		if p := def.Properties[name]; p != nil && p.Deprecated {
			old = append(old, msg.Method+" params."+name)
		}
	}
	slices.Sort(old)
	return old
}
