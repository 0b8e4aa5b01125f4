package permission

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/mcp-host/mcp-host/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// digestParts are the parts of a definition that [Digest] fingerprints one
// by one, with the names [ChangedFields] reports.
var digestParts = [...]struct{ key, name string }{
	{"title", "title"},
	{"description", "description"},
	{"inputSchema", "input schema"},
	{"annotations", "annotations"},
}

// Digest pins a tool's definition: its name, title, description, input
// schema and annotations as canonical JSON (object keys sorted, no
// insignificant space, numbers as float64 the way the SDK client decodes
// them). It is the hex sha256 of the whole, then "/" and, for each part
// but the name (the tool's key), "<part>:" and the first 8 hex digits of
// its own sha256, comma-separated:
//
//	<64 hex>/title:<8 hex>,description:<8 hex>,inputSchema:<8 hex>,annotations:<8 hex>
//
// Any change to one of them changes the digest (the whole sha256 decides),
// and [ChangedFields] can say which part changed; a schema's key order,
// spacing or number spelling (1.50 or 1.5) does not.
func Digest(def *mcp.Tool) string {
	parts := [len(digestParts)][]byte{
		encodeJSON(def.Title),
		encodeJSON(def.Description),
		encodeJSON(canonical(def.InputSchema)),
		encodeJSON(annotationsDoc(def.Annotations)),
	}
	// The whole is the JSON object of every part with its keys sorted,
	// byte for byte what encoding it as a map would give.
	whole := make([]byte, 0, 128+len(parts[1])+len(parts[2]))
	for _, f := range [...]struct {
		key  string
		json []byte
	}{
		{"annotations", parts[3]}, {"description", parts[1]}, {"inputSchema", parts[2]},
		{"name", encodeJSON(def.Name)}, {"title", parts[0]},
	} {
		sep := byte(',')
		if len(whole) == 0 {
			sep = '{'
		}
		whole = append(append(append(whole, sep, '"'), f.key...), '"', ':')
		whole = append(whole, f.json...)
	}
	whole = append(whole, '}')
	sum := sha256.Sum256(whole)
	out := make([]byte, 0, 64+1+4*(len("inputSchema:")+8+1))
	out = hex.AppendEncode(out, sum[:])
	for i, p := range digestParts {
		sep := byte(',')
		if i == 0 {
			sep = '/'
		}
		part := sha256.Sum256(parts[i])
		out = append(append(append(out, sep), p.key...), ':')
		out = hex.AppendEncode(out, part[:4])
	}
	return string(out)
}

// encodeJSON encodes plain JSON values (see canonical) with sorted keys.
func encodeJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	// Every value is a plain JSON value, so this cannot fail.
	_ = enc.Encode(v)
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// ChangedFields compares a digest pinned earlier with a tool's current
// one and names the parts that differ: "title", "description", "input
// schema", "annotations", in that order (nil when the digests are equal).
// known is false when the pinned digest does not record its parts (a bare
// sha256 from a version of mcp-host that did not pin titles), or when the
// digests differ but no part does (the name, or a collision of the short
// part digests): then the definition changed in a way it cannot name.
func ChangedFields(pinned, current string) (fields []string, known bool) {
	if pinned == current {
		return nil, true
	}
	old, cur := digestPartsOf(pinned), digestPartsOf(current)
	if old == nil || cur == nil {
		return nil, false
	}
	for _, p := range digestParts {
		if old[p.key] != cur[p.key] {
			fields = append(fields, p.name)
		}
	}
	return fields, fields != nil
}

// digestPartsOf splits the part digests out of a [Digest], or returns nil
// for a digest without them.
func digestPartsOf(d string) map[string]string {
	_, list, ok := strings.Cut(d, "/")
	if !ok {
		return nil
	}
	parts := make(map[string]string, len(digestParts))
	for _, kv := range strings.Split(list, ",") {
		k, v, _ := strings.Cut(kv, ":")
		parts[k] = v
	}
	return parts
}

// pinnedDigest returns the digest an "always allow this tool" answer is
// pinned to under the store key server, or "".
func (s *Store) pinnedDigest(server, tool string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.data.Servers[server]; e != nil {
		return e.Tools[tool]
	}
	return ""
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
