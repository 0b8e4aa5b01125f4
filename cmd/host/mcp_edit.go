package main

import (
	"errors"
	"fmt"

	"github.com/mcp-host/mcp-host/internal/atomicfile"
	"github.com/mcp-host/mcp-host/runtime/config"
)

// editFailed reports a config edit that failed. A file that could not be
// written (a full disk, a read-only directory) fails the operation (exit
// 1), saying what was not saved; the error names the file and says it is
// as it was. Anything else (an unknown server, a broken file) is a usage
// error (exit 2).
func (c *cli) editFailed(verb, id, done string, err error) int {
	if notSaved(err) {
		return c.failf(exitFailure, "%s %s: not %s: %v", verb, id, done, err)
	}
	return c.failf(exitUsage, "%s: %v", verb, err)
}

// notSaved reports whether err is a state file's write that failed.
func notSaved(err error) bool {
	var ae *atomicfile.Error
	return errors.As(err, &ae)
}

func (c *cli) remove(args []string) int {
	fs := newFlagSet("remove", c.stderr)
	scope := fs.String("scope", "", "project or global (default: where the server is defined)")
	pos, code := c.parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) != 1 {
		return c.failf(exitUsage, "remove: want one server id")
	}
	id := pos[0]
	if err := c.policy().ForbidsRemoval(id); err != nil {
		return c.failf(exitDenied, "remove: %v", err)
	}
	path, err := c.definingPath(id, *scope)
	if err != nil {
		return c.failf(exitUsage, "remove: %v", err)
	}
	before, _, _ := c.entry(id)
	err = config.EditFile(path, func(f *config.File) error {
		if _, ok := f.MCP.Servers[id]; !ok {
			return fmt.Errorf("no server %q in %s", id, path)
		}
		delete(f.MCP.Servers, id)
		return nil
	})
	if err != nil {
		return c.editFailed("remove", id, "removed", err)
	}
	fmt.Fprintf(c.stdout, "removed %s from %s\n", id, path)
	c.forgetCredentials(before)
	return exitOK
}

// definingPath is the file of --scope, or else the file that defines id.
func (c *cli) definingPath(id, scope string) (string, error) {
	if scope != "" {
		return c.scopePath(scope)
	}
	e, _, err := c.entry(id)
	if err != nil {
		return "", err
	}
	if e.Forced() {
		return "", fmt.Errorf("server %q is provided by the organization (managed policy %s); it is in no config file", id, e.Path)
	}
	if e.Path == "" {
		return "", fmt.Errorf("server %q comes from MCP_HOST_SERVERS, not a file; change the variable", id)
	}
	return e.Path, nil
}

func (c *cli) setEnabled(args []string, enabled bool) int {
	verb := map[bool]string{true: "enable", false: "disable"}[enabled]
	fs := newFlagSet(verb, c.stderr)
	scope := fs.String("scope", "", "project or global (default: where the server is defined); project may override a global server")
	pos, code := c.parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) != 1 {
		return c.failf(exitUsage, "%s: want one server id", verb)
	}
	id := pos[0]
	if err := c.policy().ForbidsRemoval(id); err != nil && !enabled {
		return c.failf(exitDenied, "%s: %v", verb, err)
	}
	path, err := c.definingPath(id, *scope)
	if err != nil {
		return c.failf(exitUsage, "%s: %v", verb, err)
	}
	err = config.EditFile(path, func(f *config.File) error {
		if f.MCP.Servers == nil {
			f.MCP.Servers = map[string]*config.ServerConfig{}
		}
		sc, ok := f.MCP.Servers[id]
		if !ok {
			// An override in this file of a server defined in another layer.
			if _, _, err := c.entry(id); err != nil {
				return err
			}
			sc = &config.ServerConfig{}
			f.MCP.Servers[id] = sc
		}
		sc.Enabled = &enabled
		return nil
	})
	if err != nil {
		return c.editFailed(verb, id, verb+"d", err)
	}
	fmt.Fprintf(c.stdout, "%sd %s in %s\n", verb, id, path)
	return exitOK
}
