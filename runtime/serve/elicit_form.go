package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// formElicitTimeout bounds all the asks of one form-mode elicitation.
const formElicitTimeout = 5 * time.Minute

// elicitForm passes a server's form-mode elicitation to the UI. An accept
// whose content does not match the requested schema is not sent to the
// server (the SDK would refuse it and the server would get an error the
// user never saw): the UI is asked again with the fields that failed, up
// to [protocol.MaxElicitAsks] asks within formElicitTimeout; after the
// last the server is told cancel and the UI gets a log warning naming the
// field.
func (s *service) elicitForm(ctx context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	ctx, cancel := context.WithTimeout(ctx, formElicitTimeout)
	defer cancel()
	deadline, _ := ctx.Deadline()
	schema, _ := json.Marshal(p.RequestedSchema)
	form, err := newFormSchema(p.RequestedSchema)
	if err != nil {
		// The SDK checked the schema before; one it cannot resolve is
		// passed on unchecked, as the SDK would.
		s.log.Warn("elicitation: cannot check answers against the schema", "server", server, "error", err)
	}
	params := &protocol.ElicitParams{Server: server, Message: p.Message, RequestedSchema: schema}
	for attempt := 1; ; attempt++ {
		params.TimeoutMS = formElicitTimeout.Milliseconds()
		if attempt > 1 {
			params.TimeoutMS = max(time.Until(deadline).Milliseconds(), 1)
		}
		res, err := s.ui.Elicit(ctx, params)
		if err != nil {
			s.log.Warn("elicitation: the UI did not answer; declining", "server", server, "error", err)
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
		switch res.Action {
		case "accept":
		case "decline", "cancel":
			return &mcp.ElicitResult{Action: res.Action}, nil
		default:
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
		invalid := form.check(res.Content)
		if len(invalid) == 0 {
			return &mcp.ElicitResult{Action: "accept", Content: res.Content}, nil
		}
		if attempt >= protocol.MaxElicitAsks {
			s.logUI("warn", server, fmt.Sprintf("server %q asked for input %d times and the answer did not match its form (%s); the server was told the user cancelled",
				server, attempt, describeInvalid(invalid)))
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
		params.Attempt, params.Invalid, params.Content = attempt+1, invalid, res.Content
	}
}

func describeInvalid(invalid []protocol.ElicitFieldError) string {
	var parts []string
	for _, f := range invalid {
		if f.Field == "" {
			parts = append(parts, f.Message)
		} else {
			parts = append(parts, fmt.Sprintf("field %q %s", f.Field, f.Message))
		}
	}
	return strings.Join(parts, "; ")
}

// formSchema checks elicitation answers against a requested schema with
// the validator the SDK uses, and words each failure for the user.
type formSchema struct {
	raw      *jsonschema.Schema
	resolved *jsonschema.Resolved
	props    map[string]*jsonschema.Resolved
}

// newFormSchema resolves the requested schema; nil (no schema) checks
// nothing.
func newFormSchema(wire any) (*formSchema, error) {
	if wire == nil {
		return nil, nil
	}
	data, err := json.Marshal(wire)
	if err != nil {
		return nil, fmt.Errorf("requested schema: %w", err)
	}
	var sch *jsonschema.Schema
	if err := json.Unmarshal(data, &sch); err != nil {
		return nil, fmt.Errorf("requested schema: %w", err)
	}
	if sch == nil {
		return nil, nil
	}
	f := &formSchema{raw: sch, props: map[string]*jsonschema.Resolved{}}
	if f.resolved, err = sch.Resolve(nil); err != nil {
		return nil, fmt.Errorf("requested schema: %w", err)
	}
	for name, ps := range sch.Properties {
		if ps == nil {
			continue
		}
		if r, err := ps.Resolve(nil); err == nil {
			f.props[name] = r
		}
	}
	return f, nil
}

// check returns what is wrong with content, field by field in name order,
// or nil when the SDK's validation will accept it. An accept without
// content is checked as an empty object, so required fields are asked for.
func (f *formSchema) check(content map[string]any) []protocol.ElicitFieldError {
	if f == nil {
		return nil
	}
	var instance any = content
	if content == nil {
		instance = map[string]any{}
	}
	err := f.resolved.Validate(instance)
	if err == nil {
		return nil
	}
	var out []protocol.ElicitFieldError
	for _, name := range f.raw.Required {
		if _, ok := content[name]; !ok {
			out = append(out, protocol.ElicitFieldError{Field: name, Message: "is required"})
		}
	}
	names := make([]string, 0, len(content))
	for name := range content {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		r, ok := f.props[name]
		if !ok {
			continue
		}
		if ferr := r.Validate(content[name]); ferr != nil {
			out = append(out, protocol.ElicitFieldError{Field: name, Message: fieldMessage(f.raw.Properties[name], content[name], ferr)})
		}
	}
	if len(out) == 0 {
		// Not one field's fault (an extra field the schema forbids, …).
		out = append(out, protocol.ElicitFieldError{Message: "does not match the form: " + trimValidation(err)})
	}
	return out
}

// fieldMessage words why value does not match ps, naming the constraint
// it breaks; err (the validator's) is the fallback.
func fieldMessage(ps *jsonschema.Schema, value any, err error) string {
	if want := ps.Type; want != "" && !typeMatches(want, value) {
		return "must be " + map[string]string{
			"string": "text", "number": "a number", "integer": "a whole number",
			"boolean": "true or false", "array": "a list",
		}[want]
	}
	if choices := enumChoices(ps); len(choices) > 0 {
		if _, isList := value.([]any); !isList {
			return "must be one of: " + strings.Join(choices, ", ")
		}
	}
	switch v := value.(type) {
	case float64:
		if ps.Minimum != nil && v < *ps.Minimum {
			return "must be at least " + num(*ps.Minimum)
		}
		if ps.Maximum != nil && v > *ps.Maximum {
			return "must be at most " + num(*ps.Maximum)
		}
	case string:
		n := len([]rune(v))
		if ps.MinLength != nil && n < *ps.MinLength {
			return fmt.Sprintf("must be at least %d characters", *ps.MinLength)
		}
		if ps.MaxLength != nil && n > *ps.MaxLength {
			return fmt.Sprintf("must be at most %d characters", *ps.MaxLength)
		}
	case []any:
		if ps.MinItems != nil && len(v) < *ps.MinItems {
			return fmt.Sprintf("must have at least %d choices", *ps.MinItems)
		}
		if ps.MaxItems != nil && len(v) > *ps.MaxItems {
			return fmt.Sprintf("must have at most %d choices", *ps.MaxItems)
		}
		if ps.Items != nil {
			if choices := enumChoices(ps.Items); len(choices) > 0 {
				return "must only hold: " + strings.Join(choices, ", ")
			}
		}
	}
	return trimValidation(err)
}

func typeMatches(want string, v any) bool {
	switch v := v.(type) {
	case string:
		return want == "string"
	case bool:
		return want == "boolean"
	case float64:
		return want == "number" || (want == "integer" && v == math.Trunc(v))
	case []any:
		return want == "array"
	}
	return false
}

// enumChoices lists the values a field may take (enum, or the const of
// titled oneOf/anyOf entries), bounded for a one-line message.
func enumChoices(ps *jsonschema.Schema) []string {
	var out []string
	for _, v := range ps.Enum {
		out = append(out, fmt.Sprint(v))
	}
	for _, list := range [][]*jsonschema.Schema{ps.OneOf, ps.AnyOf} {
		for _, e := range list {
			if e != nil && e.Const != nil {
				out = append(out, fmt.Sprint(*e.Const))
			}
		}
	}
	for i := range out {
		out[i] = termsafe.LineMax(out[i], 64)
	}
	if len(out) > 20 {
		out = append(out[:20], "…")
	}
	return out
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// trimValidation is the validator's message without its "validating
// root: " preamble, on one bounded line.
func trimValidation(err error) string {
	msg := err.Error()
	for {
		rest, ok := strings.CutPrefix(msg, "validating ")
		if !ok {
			break
		}
		_, after, found := strings.Cut(rest, ": ")
		if !found {
			break
		}
		msg = after
	}
	return termsafe.LineMax(msg, 200)
}
