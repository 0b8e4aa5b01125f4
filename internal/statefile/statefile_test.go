package statefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadBounds(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	os.WriteFile(path, []byte(`{"a":1}`), 0o600)
	if b, err := Read(path, 7); err != nil || string(b) != `{"a":1}` {
		t.Errorf("Read = %q, %v", b, err)
	}
	if _, err := Read(path, 6); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the bound: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "none"), 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func TestCheckDepth(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		deep bool
	}{
		{`{"a":[1,{"b":2}]}`, 3, false},
		{`{"a":[1,{"b":2}]}`, 2, true},
		{`"[[[[[[[["`, 1, false},
		{`["\"[[[["]`, 1, false},
		{`[[[`, 2, true},
	} {
		if err := CheckDepth([]byte(c.in), c.max); (err != nil) != c.deep || err != nil && !errors.Is(err, ErrTooDeep) {
			t.Errorf("CheckDepth(%s, %d) = %v", c.in, c.max, err)
		}
	}
}

// Decode names the kind of file and the file in every error, and never
// hands a too-deep file to the decoder.
func TestDecodeNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "perm.json")
	var v map[string]any
	if err := Decode("permissions file", filepath.Join(dir, "none"), 0, &v); !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "permissions file "+dir) {
		t.Errorf("missing: %v", err)
	}
	os.WriteFile(path, append(bytes.Repeat([]byte{'['}, MaxDepth+1), bytes.Repeat([]byte{']'}, MaxDepth+1)...), 0o600)
	if err := Decode("permissions file", path, 0, &v); !errors.Is(err, ErrTooDeep) || !strings.HasPrefix(err.Error(), "permissions file "+path+": ") {
		t.Errorf("deep: %v", err)
	}
	os.WriteFile(path, []byte(`{"a":`), 0o600)
	if err := Decode("permissions file", path, 0, &v); err == nil || !strings.HasPrefix(err.Error(), "permissions file "+path+": ") {
		t.Errorf("bad: %v", err)
	}
	os.WriteFile(path, []byte(`{"a":1}`), 0o600)
	if err := Decode("permissions file", path, 3, &v); !errors.Is(err, ErrTooLarge) || strings.Count(err.Error(), path) != 1 {
		t.Errorf("large: %v", err)
	}
	if err := Decode("permissions file", path, 0, &v); err != nil || v["a"] != 1.0 {
		t.Errorf("good: %v %v", v, err)
	}
}

// FuzzCheckDepth: what CheckDepth lets through, encoding/json decodes
// without passing its own depth limit (its error, if any, is not about
// nesting).
func FuzzCheckDepth(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"[[["}]}`))
	f.Add(bytes.Repeat([]byte{'['}, MaxDepth+1))
	f.Add([]byte(`"\\"[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if CheckDepth(data, MaxDepth) != nil {
			return
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil && strings.Contains(err.Error(), "exceeded max depth") {
			t.Fatalf("CheckDepth let through what encoding/json finds too deep: %v", err)
		}
	})
}
