package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ToolSearch is the global config's "tool_search" object: the budget above
// which a run's MCP catalog is not handed to the model whole but searched
// (the model gets a search tool and the tools it finds). Zero fields mean
// the runtime's defaults (128 tools, 65536 bytes of names, descriptions
// and input schemas). Only the global config sets it: a project file's
// "tool_search" is ignored.
type ToolSearch struct {
	// MaxTools is the most tools offered whole.
	MaxTools int `json:"max_tools,omitempty"`
	// MaxBytes is the most bytes of names, descriptions and schemas
	// offered whole.
	MaxBytes int `json:"max_bytes,omitempty"`
}

// decodeToolSearch reads the "tool_search" object of the file at where.
// An absent object is the zero value; a malformed one, an unknown field or
// a negative number is an error naming the file and the field.
func decodeToolSearch(where string, data []byte) (ToolSearch, error) {
	var top struct {
		ToolSearch json.RawMessage `json:"tool_search"`
	}
	if json.Unmarshal(data, &top) != nil || len(top.ToolSearch) == 0 || string(top.ToolSearch) == "null" {
		return ToolSearch{}, nil // a syntax error is reported with the servers
	}
	var ts ToolSearch
	dec := json.NewDecoder(bytes.NewReader(top.ToolSearch))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ts); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te) && te.Field != "":
			return ToolSearch{}, fmt.Errorf("config %s: field %q: must be %s, not a JSON %s", where, "tool_search."+te.Field, te.Type, te.Value)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			return ToolSearch{}, fmt.Errorf("config %s: field %q: unknown field (want max_tools or max_bytes)", where, "tool_search."+name)
		}
		return ToolSearch{}, fmt.Errorf("config %s: field %q: must be an object such as {\"max_tools\": 128, \"max_bytes\": 65536}", where, "tool_search")
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"max_tools", ts.MaxTools}, {"max_bytes", ts.MaxBytes}} {
		if f.v < 0 {
			return ToolSearch{}, fmt.Errorf("config %s: field %q: must be 0 (the default) or more, not %d", where, "tool_search."+f.name, f.v)
		}
	}
	return ts, nil
}
