package schema

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// VersionsDir holds the schema of each protocol version as it was
// released (versions/<version>.json), written once by [Regenerate] when
// the version is new and never rewritten: what a UI of that version was
// built against.
const VersionsDir = "protocol/schema/versions"

// KeptPath is the kept schema of version v, relative to the repository.
func KeptPath(v string) string { return VersionsDir + "/" + v + ".json" }

// Breaking lists what a UI written against the old schema rawDocument could
// no longer rely on in the new one: a method, error code, definition,
// property or enum value removed, a property's schema changed otherwise
// (descriptions aside), or a property the UI must send made required.
// Additions are not listed: a UI ignores what it does not know
// (PROTOCOL.md, "Versions"). The result is sorted; empty means additive.
func Breaking(oldDoc, newDoc []byte) ([]string, error) {
	var o, n rawDocument
	if err := json.Unmarshal(oldDoc, &o); err != nil {
		return nil, fmt.Errorf("schema: the old rawDocument: %w", err)
	}
	if err := json.Unmarshal(newDoc, &n); err != nil {
		return nil, fmt.Errorf("schema: the new rawDocument: %w", err)
	}
	var out []string
	newMethods := map[string]Method{}
	for _, m := range n.Methods {
		newMethods[m.Name] = m
	}
	for _, m := range o.Methods {
		if _, ok := newMethods[m.Name]; !ok {
			out = append(out, fmt.Sprintf("method %s removed", m.Name))
		}
	}
	for _, e := range o.Errors {
		if !slices.ContainsFunc(n.Errors, func(x ErrorCode) bool { return x.Code == e.Code }) {
			out = append(out, fmt.Sprintf("error code %d removed", e.Code))
		}
	}
	sent := uiSent(o)
	for _, name := range slices.Sorted(maps.Keys(o.Defs)) {
		nd, ok := n.Defs[name]
		if !ok {
			out = append(out, fmt.Sprintf("definition %s removed", name))
			continue
		}
		out = append(out, compareDef(name, o.Defs[name], nd, sent[name])...)
	}
	sort.Strings(out)
	return out, nil
}

// rawDocument is what Breaking reads of a schema rawDocument.
type rawDocument struct {
	Methods []Method                  `json:"x-methods"`
	Errors  []ErrorCode               `json:"x-errors"`
	Defs    map[string]map[string]any `json:"$defs"`
}

// uiSent are the definitions a UI sends: the params of its requests and
// the results of the runtime's requests, with every definition they
// reach. Only in these is a new required property a break.
func uiSent(d rawDocument) map[string]bool {
	sent := map[string]bool{}
	var mark func(name string)
	mark = func(name string) {
		if name == "" || sent[name] || d.Defs[name] == nil {
			return
		}
		sent[name] = true
		for _, ref := range refs(d.Defs[name]) {
			mark(ref)
		}
	}
	for _, m := range d.Methods {
		if m.Direction == "ui_to_runtime" {
			mark(m.Params)
		} else if !m.Notification {
			mark(m.Result)
		}
	}
	return sent
}

// refs are the $defs names a schema refers to.
func refs(v any) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		if r, ok := x["$ref"].(string); ok {
			out = append(out, strings.TrimPrefix(r, "#/$defs/"))
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			out = append(out, refs(x[k])...)
		}
	case []any:
		for _, e := range x {
			out = append(out, refs(e)...)
		}
	}
	return out
}

// compareDef lists the breaks between two versions of one definition.
func compareDef(name string, o, n map[string]any, sentByUI bool) []string {
	op, _ := o["properties"].(map[string]any)
	np, _ := n["properties"].(map[string]any)
	if op == nil || np == nil {
		if !compatible(o, n) {
			return []string{fmt.Sprintf("definition %s changed", name)}
		}
		return nil
	}
	var out []string
	for _, p := range slices.Sorted(maps.Keys(op)) {
		switch ns, ok := np[p]; {
		case !ok:
			out = append(out, fmt.Sprintf("%s.%s removed", name, p))
		case !compatible(op[p], ns):
			out = append(out, fmt.Sprintf("%s.%s changed", name, p))
		}
	}
	if sentByUI {
		for _, r := range required(n) {
			if !slices.Contains(required(o), r) {
				out = append(out, fmt.Sprintf("%s.%s is now required of the UI", name, r))
			}
		}
	}
	return out
}

func required(def map[string]any) []string {
	var out []string
	list, _ := def["required"].([]any)
	for _, r := range list {
		if s, ok := r.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// compatible says whether a value valid under o is still valid, and
// means the same, under n: equal but for descriptions and deprecation
// marks, an enum that only gained values included.
func compatible(o, n any) bool {
	o, n = plain(o), plain(n)
	om, ok1 := o.(map[string]any)
	nm, ok2 := n.(map[string]any)
	if ok1 && ok2 {
		oe, oHas := om["enum"].([]any)
		ne, nHas := nm["enum"].([]any)
		if oHas && nHas {
			for _, v := range oe {
				if !slices.ContainsFunc(ne, func(x any) bool { return reflect.DeepEqual(x, v) }) {
					return false
				}
			}
			om, nm = maps.Clone(om), maps.Clone(nm)
			delete(om, "enum")
			delete(nm, "enum")
			return reflect.DeepEqual(om, nm)
		}
	}
	return reflect.DeepEqual(o, n)
}

// plain is v without the words for people ("description", "title",
// "deprecated"), which no UI's code reads.
func plain(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if k == "description" || k == "title" || k == "deprecated" {
				continue
			}
			out[k] = plain(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e)
		}
		return out
	}
	return v
}
