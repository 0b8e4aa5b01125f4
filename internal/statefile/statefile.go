// Package statefile reads back the files mcp-host keeps for itself (the
// tools list cache, the token file, approvals, permissions, the
// configuration). They are input like anything a server sends: another
// process, a sync tool or a hostile hand may have written them. Read
// bounds the bytes read; CheckDepth bounds the nesting before any decoder
// (some recurse once per level, and a few million levels overflow the
// stack, killing the host on every start); Decode does both and decodes
// with encoding/json. Every error names the file.
//
// It imports only the standard library and must not import any other
// mcp-host package.
package statefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxDepth is the deepest nesting of objects and arrays a state file may
// hold: encoding/json's own limit, so that nothing the host wrote is
// refused.
const MaxDepth = 10000

// DefaultMaxBytes bounds a state file for Decode when its reader names no
// bound of its own.
const DefaultMaxBytes = 16 << 20

var (
	// ErrTooLarge is matched by the error of a file over its bound.
	ErrTooLarge = errors.New("file over its size bound")
	// ErrTooDeep is matched by the error of a file nested too deep.
	ErrTooDeep = errors.New("nested too deep")
)

// Read returns the content of the file at path, if it holds at most max
// bytes (max <= 0 means DefaultMaxBytes), in one buffer of its size. A
// missing file's error matches fs.ErrNotExist. The errors of opening and
// reading name the file (*os.PathError); a file over the bound is an error
// matching ErrTooLarge that the caller wraps with the file's name and kind.
func Read(path string, max int64) ([]byte, error) {
	if max <= 0 {
		max = DefaultMaxBytes
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err // an *os.PathError names the file
	}
	defer f.Close()
	size := int64(0)
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	if size > max {
		return nil, fmt.Errorf("%w (%d bytes, bound %d)", ErrTooLarge, size, max)
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > max {
		return nil, fmt.Errorf("%w (over %d bytes)", ErrTooLarge, max)
	}
	return buf.Bytes(), nil
}

// CheckDepth returns an error matching ErrTooDeep if data nests objects
// and arrays more than max deep (max <= 0 means MaxDepth). It reads data
// once, without recursion, and skips strings; it does not check that data
// is valid JSON, which the decoder does.
func CheckDepth(data []byte, max int) error {
	if max <= 0 {
		max = MaxDepth
	}
	depth, inString, escaped := 0, false, false
	for i, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > max {
				return fmt.Errorf("%w: more than %d levels at byte %d", ErrTooDeep, max, i)
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return nil
}

// Decode reads the file at path (at most max bytes, see Read), checks its
// nesting (MaxDepth) and decodes it into v with encoding/json. what names
// the kind of file for errors ("permissions file"): every error is
// "<what> <path>: …". A missing file's error matches fs.ErrNotExist.
func Decode(what, path string, max int64, v any) error {
	data, err := Read(path, max)
	if err == nil {
		err = Unmarshal(data, v)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, path, trimPath(err))
	}
	return nil
}

// Unmarshal is json.Unmarshal after CheckDepth, for a state file's content
// read otherwise (or a part of one).
func Unmarshal(data []byte, v any) error {
	if err := CheckDepth(data, MaxDepth); err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// trimPath drops an *os.PathError's own operation and path, which Decode's
// "<what> <path>: " replaces.
func trimPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
