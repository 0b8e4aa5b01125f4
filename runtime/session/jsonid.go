package session

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// idScanner finds the top-level "id" and "method" members of one JSON-RPC
// message while its bytes stream past, in constant memory, so that a
// message too large to keep can still be matched to its request and
// answered. It does not validate JSON; the SDK's decoder does that later.
// As in the SDK's decoder, keys match exactly and the last duplicate wins.
type idScanner struct {
	state      scanState
	depth      int  // nesting depth; 1 inside the top-level object
	inStr, esc bool // inside a string, after a backslash in one

	key     []byte // raw bytes of the top-level key being read
	keyLong bool
	member  member // which member's value is being read at depth 1
	val     []byte // raw bytes of that value, if it is one we keep
	valLong bool

	id        []byte // raw value of the last "id" member
	idLong    bool   // that value exceeded maxIDBytes
	hasID     bool
	hasMethod bool // a non-empty "method" member
	notObject bool // the message is not a JSON object
}

type scanState uint8

const (
	scanStart      scanState = iota // before the top-level '{'
	scanWantKey                     // inside the object, before a key
	scanKey                         // inside a key string
	scanWantColon                   // after a key
	scanWantValue                   // after the colon
	scanScalar                      // inside a number or literal
	scanStrValue                    // inside a string value
	scanNested                      // inside an object or array value
	scanAfterValue                  // after a value, before ',' or '}'
	scanDone                        // after the top-level object
)

type member uint8

const (
	memberOther member = iota
	memberID
	memberMethod
)

// maxIDBytes bounds a kept id. Longer ids are not answered by echo.
const maxIDBytes = 256

// maxKeyBytes bounds a kept key; longer keys are neither "id" nor "method".
const maxKeyBytes = 64

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Write feeds the next bytes of the message. It never fails.
//
// Inside a nested value of a member other than id and method (a result's
// tools, most of a large message) only quotes, backslashes and brackets
// change the state, so the bytes between them are skipped in runs instead
// of being stepped through one by one.
func (s *idScanner) Write(p []byte) (int, error) {
	for i := 0; i < len(p); i++ {
		if s.state == scanNested && s.member == memberOther && !s.esc {
			set := nestedSpecial
			if s.inStr {
				set = stringSpecial
			}
			j := bytes.IndexAny(p[i:], set)
			if j < 0 {
				break
			}
			i += j
		}
		s.step(p[i])
	}
	return len(p), nil
}

// The bytes that can change the scanner's state inside a nested value:
// outside its strings, and inside one.
const (
	nestedSpecial = `"{}[]`
	stringSpecial = `"\`
)

func (s *idScanner) step(c byte) {
	switch s.state {
	case scanStart:
		switch {
		case isSpace(c):
		case c == '{':
			s.depth, s.state = 1, scanWantKey
		default:
			s.notObject, s.state = true, scanDone
		}
	case scanWantKey:
		switch c {
		case '"':
			s.key, s.keyLong, s.esc = s.key[:0], false, false
			s.state = scanKey
		case '}':
			s.depth, s.state = 0, scanDone
		}
	case scanKey:
		if !s.esc && c == '"' {
			s.state = scanWantColon
			return
		}
		s.esc = !s.esc && c == '\\'
		if len(s.key) < maxKeyBytes {
			s.key = append(s.key, c)
		} else {
			s.keyLong = true
		}
	case scanWantColon:
		if c == ':' {
			s.member = s.memberOf()
			s.val, s.valLong = s.val[:0], false
			s.state = scanWantValue
		}
	case scanWantValue:
		if isSpace(c) {
			return
		}
		s.keep(c)
		switch c {
		case '"':
			s.esc, s.state = false, scanStrValue
		case '{', '[':
			s.depth++
			s.inStr, s.esc, s.state = false, false, scanNested
		default:
			s.state = scanScalar
		}
	case scanScalar:
		if isSpace(c) || c == ',' || c == '}' {
			s.endValue()
			s.step(c)
			return
		}
		s.keep(c)
	case scanStrValue:
		s.keep(c)
		if !s.esc && c == '"' {
			s.endValue()
			return
		}
		s.esc = !s.esc && c == '\\'
	case scanNested:
		s.keep(c)
		switch {
		case s.inStr:
			if !s.esc && c == '"' {
				s.inStr = false
			}
			s.esc = !s.esc && c == '\\'
		case c == '"':
			s.inStr, s.esc = true, false
		case c == '{' || c == '[':
			s.depth++
		case c == '}' || c == ']':
			s.depth--
			if s.depth == 1 {
				s.endValue()
			}
		}
	case scanAfterValue:
		switch c {
		case ',':
			s.state = scanWantKey
		case '}':
			s.depth, s.state = 0, scanDone
		}
	}
}

// memberOf decodes the key just read (it may hold escapes).
func (s *idScanner) memberOf() member {
	if s.keyLong {
		return memberOther
	}
	raw := s.key
	if bytes.IndexByte(raw, '\\') >= 0 {
		var k string
		if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &k) != nil {
			return memberOther
		}
		raw = []byte(k)
	}
	switch string(raw) {
	case "id":
		return memberID
	case "method":
		return memberMethod
	}
	return memberOther
}

func (s *idScanner) keep(c byte) {
	if s.member == memberOther {
		return
	}
	if len(s.val) < maxIDBytes {
		s.val = append(s.val, c)
	} else {
		s.valLong = true
	}
}

func (s *idScanner) endValue() {
	switch s.member {
	case memberID:
		s.id = append(s.id[:0], s.val...)
		s.idLong, s.hasID = s.valLong, true
	case memberMethod:
		// "method": "" or null is no method, as for the SDK.
		s.hasMethod = len(s.val) > 2 && s.val[0] == '"' || s.valLong
	}
	s.member, s.state = memberOther, scanAfterValue
}

// finish ends the message: a scalar at the very end has no delimiter.
func (s *idScanner) finish() {
	if s.state == scanScalar {
		s.endValue()
	}
}

// idKind classifies a JSON-RPC id as MCP allows it: a string or an integer.
type idKind uint8

const (
	idAbsent  idKind = iota // no id member
	idNull                  // "id": null
	idString                // a JSON string
	idInteger               // an integer the SDK keeps exactly
	idInvalid               // anything else: 1.5, 1e3, 2^60, true, {}
)

// maxExactID is the largest integer id the SDK's float64 decoding keeps.
const maxExactID = 1 << 53

// classifyID returns the kind of a raw id and, for strings and integers, a
// canonical form that compares equal exactly when the ids are the same.
func classifyID(raw []byte) (idKind, string) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return idAbsent, ""
	case string(raw) == "null":
		return idNull, ""
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return idInvalid, ""
		}
		return idString, "s:" + s
	}
	digits := raw
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 1 && digits[0] == '0' {
		return idInvalid, ""
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return idInvalid, ""
		}
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n > maxExactID || n < -maxExactID {
		return idInvalid, ""
	}
	return idInteger, "n:" + strconv.FormatInt(n, 10)
}

// sameID reports whether two raw ids name the same request.
func sameID(a, b []byte) bool {
	ka, ca := classifyID(a)
	kb, cb := classifyID(b)
	return (ka == idString || ka == idInteger) && ka == kb && ca == cb
}

// errorAnswer is a JSON-RPC error response for the request with the raw id
// (null if the id is not valid JSON).
func errorAnswer(rawID []byte, code int64, message string) []byte {
	msg, _ := json.Marshal(message)
	rawID = bytes.TrimSpace(rawID)
	if !json.Valid(rawID) {
		rawID = []byte("null")
	}
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(rawID)
	b.WriteString(`,"error":{"code":`)
	b.WriteString(strconv.FormatInt(code, 10))
	b.WriteString(`,"message":`)
	b.Write(msg)
	b.WriteString("}}")
	return b.Bytes()
}
