package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"

	"github.com/mcp-host/mcp-host/internal/atomicfile"
)

// EditFile applies edit to the configuration file at path and writes it back
// atomically (a temporary file in the same directory, then a rename; mode
// 0600). A missing file starts empty. Keys this program does not know, at
// the top level, in "mcp" and in server entries it does not change, are
// kept as they were. A file that is not valid JSON is never rewritten: the
// error names its line and column and nothing is lost.
func EditFile(path string, edit func(*File) error) error {
	return editFile(path, edit, true)
}

// PreviewEdit runs edit on the configuration file at path exactly as
// [EditFile] would, and writes nothing: a dry run sees the same servers
// (and fails on the same broken file) as the real edit.
func PreviewEdit(path string, edit func(*File) error) error {
	return editFile(path, edit, false)
}

func editFile(path string, edit func(*File) error, write bool) error {
	top := map[string]json.RawMessage{}
	section := map[string]json.RawMessage{}
	rawServers := map[string]json.RawMessage{}
	data, err := readFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if len(bytes.TrimSpace(data)) > 0 {
			if err := json.Unmarshal(data, &top); err != nil {
				return syntaxError(path, data, err)
			}
			if m, ok := top["mcp"]; ok {
				if err := json.Unmarshal(m, &section); err != nil {
					return syntaxError(path, data, fmt.Errorf(`"mcp": %w`, err))
				}
			}
			if s, ok := section["servers"]; ok {
				if err := json.Unmarshal(s, &rawServers); err != nil {
					return syntaxError(path, data, fmt.Errorf(`"mcp.servers": %w`, err))
				}
			}
		}
	}
	f := &File{Version: 1, MCP: MCPSection{Servers: map[string]*ServerConfig{}}}
	before := map[string]ServerConfig{}
	for id, raw := range rawServers {
		var c ServerConfig
		_ = json.Unmarshal(raw, &c) // lenient: unknown fields stay in raw
		f.MCP.Servers[id] = &c
		before[id] = c
	}
	if err := edit(f); err != nil {
		return err
	}
	if !write {
		return nil
	}
	out := map[string]json.RawMessage{}
	for id, c := range f.MCP.Servers {
		if c == nil {
			continue
		}
		if old, ok := before[id]; ok && reflect.DeepEqual(old, *c) {
			out[id] = rawServers[id]
			continue
		}
		b, err := json.Marshal(c)
		if err != nil {
			return fmt.Errorf("config %s: server %q: %w", path, id, err)
		}
		out[id] = b
	}
	sb, err := json.Marshal(out) // map keys come out sorted
	if err != nil {
		return err
	}
	section["servers"] = sb
	mb, _ := json.Marshal(section)
	top["mcp"] = mb
	top["version"] = json.RawMessage(fmt.Sprint(f.Version))
	whole, err := json.Marshal(top)
	if err != nil {
		return err
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, whole, "", "  "); err != nil {
		return err
	}
	pretty.WriteByte('\n')
	return writeFileAtomic(path, pretty.Bytes())
}

// writeFileAtomic replaces path with data so that readers see either the
// old or the new file, never a part.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("config: %w", err) // it names path and says the file is as it was
	}
	return nil
}
