package protocol

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// strict is method for every request a UI sends the runtime: a params
// field the runtime does not know is CodeInvalidParams naming it, with the
// field it likely meant (initialize's capabilities, which newer UIs may
// extend, opt out through their own UnmarshalJSON). A misspelt field must not read as an absent one: tool.call
// with "args" for "arguments" would call the tool with no arguments.
func strict[P, R any](name string, fn func(context.Context, *P) (*R, error)) func(context.Context, json.RawMessage) (any, error) {
	loose := method(name, fn)
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		if len(raw) > 0 && string(raw) != "null" && !dialectOf(ctx).LooseParams {
			if err := unknownField(name, raw, new(P)); err != nil {
				return nil, err
			}
		}
		return loose(ctx, raw)
	}
}

// unknownField decodes raw into p refusing unknown fields, and returns the
// error for the first unknown one, or nil (other problems are method's to
// report).
func unknownField(method string, raw json.RawMessage, p any) *Error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	err := d.Decode(p)
	if err == nil {
		return nil
	}
	quoted, ok := strings.CutPrefix(err.Error(), "json: unknown field ")
	if !ok {
		return nil
	}
	field, uerr := strconv.Unquote(quoted)
	if uerr != nil {
		field = quoted
	}
	msg := fmt.Sprintf("%s: params field %q is not one it takes", method, field)
	if near := nearField(reflect.TypeOf(p).Elem(), field); near != "" {
		msg += fmt.Sprintf(": did you mean %q?", near)
	}
	return NewError(CodeInvalidParams, ErrorData{Method: method, Field: field}, "%s", msg)
}

// nearField returns the JSON field of struct t that field likely meant:
// the same but for case and underscores, one that starts with it or that
// it starts with, or one it abbreviates ("args", "arguments"); else "".
func nearField(t reflect.Type, field string) string {
	if t.Kind() != reflect.Struct {
		return ""
	}
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	f := norm(field)
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		n := norm(name)
		if n == f || (len(f) >= 3 && (strings.HasPrefix(n, f) || strings.HasPrefix(f, n) || abbreviates(f, n))) {
			return name
		}
	}
	return ""
}

// abbreviates reports whether short is long's letters in order, from the
// first ("args" for "arguments").
func abbreviates(short, long string) bool {
	if short == "" || long == "" || short[0] != long[0] {
		return false
	}
	i := 0
	for j := 0; i < len(short) && j < len(long); j++ {
		if short[i] == long[j] {
			i++
		}
	}
	return i == len(short)
}
