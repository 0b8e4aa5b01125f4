package adapter

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// appendJSON appends the JSON of a decoded JSON value (what encoding/json
// produces when decoding into any: map[string]any, []any, string, float64,
// bool, nil, json.Number, and int or int64 as hand-built schemas use) to b, with object keys sorted and no HTML
// escaping: the same bytes as an encoding/json Encoder with
// SetEscapeHTML(false), without reflection. ok is false for any other
// value (or a NaN or infinite number); the caller then falls back to
// encoding/json. keys is scratch space reused between calls.
func appendJSON(b []byte, v any, keys *[][]string, depth int) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, v), true
	case string:
		return appendString(b, v), true
	case float64:
		return appendFloat(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case json.Number:
		if v == "" || !json.Valid([]byte(v)) {
			return b, false
		}
		return append(b, v...), true
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendJSON(b, e, keys, depth+1); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		for len(*keys) <= depth {
			*keys = append(*keys, nil)
		}
		ks := (*keys)[depth][:0]
		for k := range v {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		(*keys)[depth] = ks
		b = append(b, '{')
		for i, k := range ks {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			var ok bool
			if b, ok = appendJSON(b, v[k], keys, depth+1); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

// appendFloat formats f as encoding/json does.
func appendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b) - start
		if n >= 4 && b[len(b)-4] == 'e' && b[len(b)-3] == '-' && b[len(b)-2] == '0' {
			b[len(b)-2] = b[len(b)-1]
			b = b[:len(b)-1]
		}
	}
	return b, true
}

const hexDigits = "0123456789abcdef"

// appendString quotes s as encoding/json does without HTML escaping:
// control characters, quote and backslash escaped, U+2028 and U+2029
// escaped, invalid UTF-8 replaced by U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// topLevelType returns the raw value of the last "type" member of the
// valid JSON object raw, or nil when it has none, and how deep raw nests
// (1 for an object of scalars). It allocates nothing for ordinary schemas.
func topLevelType(raw []byte) (typ []byte, depth int) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, 0
	}
	i++
	depth = 1
	for {
		i = skipSpace(raw, i)
		if i >= len(raw) || raw[i] == '}' {
			return typ, depth
		}
		if raw[i] == ',' {
			i++
			continue
		}
		keyEnd, _ := skipValue(raw, i)
		key := raw[i:keyEnd]
		i = skipSpace(raw, keyEnd)
		i = skipSpace(raw, i+1) // the colon
		end, d := skipValue(raw, i)
		depth = max(depth, 1+d)
		if isKey(key, "type") {
			typ = raw[i:end]
		}
		i = end
	}
}

// isKey reports whether the quoted JSON string key spells name.
func isKey(key []byte, name string) bool {
	if len(key) == len(name)+2 && string(key[1:len(key)-1]) == name {
		return true
	}
	if !slices.Contains(key, '\\') {
		return false
	}
	var s string
	return json.Unmarshal(key, &s) == nil && s == name
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value starting at b[i], and how
// deep the value nests (0 for a scalar); b must be valid JSON.
func skipValue(b []byte, i int) (end, deepest int) {
	depth, inString := 0, false
	for ; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
				if depth == 0 {
					return i + 1, deepest
				}
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			if depth == 0 {
				return i, deepest // end of the enclosing object or array
			}
			depth--
			if depth == 0 {
				return i + 1, deepest
			}
		case ',', ' ', '\t', '\n', '\r', ':':
			if depth == 0 {
				return i, deepest
			}
		}
	}
	return i, deepest
}
