package permission

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"unicode/utf8"

	"github.com/mcp-host/mcp-host/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Digest returns the hex sha256 of a tool's definition: its name,
// description, input schema and annotations as canonical JSON (object keys
// sorted, no insignificant space, numbers as float64 the way the SDK client
// decodes them). Any change to one of them changes the digest; a schema's key
// order, spacing or number spelling (1.50 or 1.5) does not.
func Digest(def *mcp.Tool) string {
	doc := map[string]any{
		"name":        def.Name,
		"description": def.Description,
		"inputSchema": canonical(def.InputSchema),
		"annotations": annotationsDoc(def.Annotations),
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	// Every value in doc is a plain JSON value, so this cannot fail.
	_ = enc.Encode(doc)
	sum := sha256.Sum256(bytes.TrimRight(buf.Bytes(), "\n"))
	return hex.EncodeToString(sum[:])
}

// canonical turns v into plain JSON values (maps, slices, float64,
// strings, bools, nil) that encode with sorted keys. A value that cannot be
// encoded is represented by a marker string, so it still has a stable digest.
func canonical(v any) any {
	var raw []byte
	switch s := v.(type) {
	case nil:
		return nil
	case json.RawMessage:
		raw = s
	case []byte:
		raw = s
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return "unencodable: " + err.Error()
		}
		raw = b
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		return "invalid JSON: " + string(raw)
	}
	return out
}

// annotationsDoc spells out the annotations field by field, so the digest
// does not depend on how the SDK chooses to marshal them.
func annotationsDoc(a *mcp.ToolAnnotations) any {
	if a == nil {
		return nil
	}
	return map[string]any{
		"title":           a.Title,
		"readOnlyHint":    a.ReadOnlyHint,
		"destructiveHint": a.DestructiveHint,
		"idempotentHint":  a.IdempotentHint,
		"openWorldHint":   a.OpenWorldHint,
	}
}

// prettyArgs indents the model's arguments for the user, cut to at most limit
// bytes on a UTF-8 boundary. Arguments that are not JSON are shown as text.
func prettyArgs(args json.RawMessage, limit int) (string, bool) {
	var buf bytes.Buffer
	var s string
	if len(bytes.TrimSpace(args)) == 0 {
		s = "{}"
	} else if err := json.Indent(&buf, args, "", "  "); err == nil {
		s = buf.String()
	} else {
		s = string(args)
	}
	s = printable(s)
	if len(s) <= limit {
		return s, false
	}
	n := limit
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// printable makes text from a server, the model or the user safe to show
// and to store: the one terminal sanitizer ([termsafe]) with newlines and
// tabs kept and no length bound (callers bound what they show).
func printable(s string) string {
	return termsafe.Sanitize(s, termsafe.Options{MultiLine: true, Max: -1})
}
