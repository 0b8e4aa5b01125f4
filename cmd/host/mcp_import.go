package main

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/mcp-host/mcp-host/internal/suggest"
	"github.com/mcp-host/mcp-host/runtime/config"
)

// importServers imports another host's servers. The report (what was
// added, renamed, moved out, skipped, and the variables to set) is built
// while editing the destination, so --dry-run, which runs the same edit
// on the same file without writing, reports exactly what the import does,
// each line saying "would", and exits 0.
func (c *cli) importServers(args []string) int {
	fs := newFlagSet("import", c.stderr)
	from := fs.String("from", ".mcp.json", "claude-desktop, claude-code, codex, cursor, gemini, vscode, or a file path")
	scope := fs.String("scope", "global", "where to write: project or global")
	replace := fs.Bool("replace", false, "replace servers that already exist")
	dryRun := fs.Bool("dry-run", false, "print the report of the import without writing anything")
	if _, code := c.parseFlags(fs, args); code >= 0 {
		return code
	}
	imported, path, err := readImport(*from)
	switch {
	case errors.Is(err, config.ErrNothingToImport):
		return c.failf(exitFailure, "%v", err)
	case err != nil:
		return c.failf(exitUsage, "%v", err)
	}
	dest, err := c.scopePath(*scope)
	if err != nil {
		return c.failf(exitUsage, "import: %v", err)
	}
	var report strings.Builder
	var code int
	write := func(f *config.File) error {
		report.Reset()
		code = importInto(&report, f, imported, path, dest, *replace, *dryRun)
		return nil
	}
	edit := config.EditFile
	if *dryRun {
		edit = config.PreviewEdit
	}
	if err := edit(dest, write); err != nil {
		if notSaved(err) {
			return c.failf(exitFailure, "import: nothing imported: %v", err)
		}
		return c.failf(exitUsage, "import: %v", err)
	}
	fmt.Fprint(c.stdout, report.String())
	return code
}

// importInto adds the imported servers to f and writes the report to w:
// one line per server (added, or skipped and why), its rename and the
// secrets moved out indented below it (each with the value the entry now
// holds, "Bearer ${VAR}" for a header), a count, and the variables to set
// (names only: the values are never printed). A dry run says "would" in
// every line. It returns exitFailure when an entry could not be imported
// (exitOK in a dry run, which only reports), else exitOK.
func importInto(w *strings.Builder, f *config.File, imported []config.ImportedServer, src, dest string, replace, dry bool) int {
	if f.MCP.Servers == nil {
		f.MCP.Servers = map[string]*config.ServerConfig{}
	}
	say := func(done, would string) string {
		if dry {
			return would
		}
		return done
	}
	code := exitOK
	var added int
	var vars []string
	stdio := false
	for _, s := range imported {
		if s.Err != nil {
			fmt.Fprintf(w, "%s\n", message("%s %q: %v", say("skipped", "would skip"), s.Name, s.Err))
			if !dry {
				code = exitFailure
			}
			continue
		}
		_, exists := f.MCP.Servers[s.ID]
		if exists && !replace {
			fmt.Fprintf(w, "%s\n", message("%s %q: server %q already exists in %s (use --replace)", say("skipped", "would skip"), s.Name, s.ID, dest))
			continue
		}
		cfg := s.Config
		f.MCP.Servers[s.ID] = &cfg
		added++
		stdio = stdio || cfg.TransportName() == "stdio"
		verb := say("added", "would add")
		if exists {
			verb = say("replaced", "would replace")
		}
		state := ""
		if !cfg.IsEnabled() {
			state = ", disabled as in the source"
		}
		fmt.Fprintf(w, "%s %s (%s%s)\n", verb, s.ID, describeTarget(cfg), state)
		if s.Renamed() {
			fmt.Fprintf(w, "  %s\n", message("%s %q to %s (ids are 1-64 letters, digits, '_' or '-', and unique)", say("renamed", "would rename"), s.Name, s.ID))
		}
		for _, m := range s.Moved {
			fmt.Fprintf(w, "  %s the secret in %s out of the config: it %s %s\n", say("moved", "would move"), message("%s", m.Field),
				say("reads", "would read"), message("%q", movedValue(cfg, m)))
			vars = append(vars, fmt.Sprintf("  %s  (%s %s)", m.Var, s.ID, message("%s", m.Field)))
		}
	}
	if dry {
		fmt.Fprintf(w, "would import %d of %d servers from %s into %s (dry run: nothing is written)\n", added, len(imported), src, dest)
	} else {
		fmt.Fprintf(w, "imported %d of %d servers from %s into %s\n", added, len(imported), src, dest)
	}
	if len(vars) > 0 {
		fmt.Fprintf(w, "%s these environment variables where host runs (their values from %s %s copied):\n%s\n",
			say("Set", "The import would need"), src, say("were not", "would not be"), strings.Join(vars, "\n"))
	}
	if stdio {
		// The source client may have handed its whole environment on.
		fmt.Fprintln(w, `Local (stdio) servers `+say("get", "would get")+` only a base environment (PATH, HOME, ...), their "env" and the variables named in their "env_vars": `+
			`if one read a variable of your shell's, add "env_vars": ["NAME"] to it (host mcp get <id> shows the names it gets)`)
	}
	return code
}

// movedValue is what an imported entry holds where a secret was moved
// out: the whole value ("Bearer ${VAR}" for a header), or ${VAR}.
func movedValue(cfg config.ServerConfig, m config.MovedSecret) string {
	kind, key, _ := strings.Cut(m.Field, ".")
	switch kind {
	case "headers":
		if v, ok := cfg.Headers[key]; ok {
			return v
		}
	case "env":
		if v, ok := cfg.Env[key]; ok {
			return v
		}
	}
	var i int
	if _, err := fmt.Sscanf(m.Field, "args[%d]", &i); err == nil && i >= 0 && i < len(cfg.Args) {
		return cfg.Args[i]
	}
	return "${" + m.Var + "}"
}

// readImport reads the servers of the client or file named by from and
// says where they came from.
func readImport(from string) ([]config.ImportedServer, string, error) {
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	if config.PeerFiles(from, home, cwd) != nil {
		imported, files, err := config.ReadPeerImport(from, home, cwd)
		return imported, strings.Join(files, " and "), err
	}
	path, format := from, "file"
	if p, ok := config.ImportSources()[from]; ok {
		path, format = p, from
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && format == "file" && !strings.ContainsAny(from, `/\.`) {
		// A word, not a path: a client's name mistyped (claude).
		sources := append(slices.Sorted(maps.Keys(config.ImportSources())), "claude-code", "codex", "gemini")
		slices.Sort(sources)
		hint := ""
		if s := suggest.Closest(from, sources); s != "" {
			hint = fmt.Sprintf(" (did you mean %s?)", s)
		}
		return nil, "", fmt.Errorf("import: no client or file named %q%s; --from takes %s, or a file's path", from, hint, strings.Join(slices.Compact(sources), ", "))
	}
	if err != nil {
		return nil, "", fmt.Errorf("import: %w", err)
	}
	imported, err := config.ParseImport(data, format)
	if err != nil {
		return nil, "", fmt.Errorf("import %s: %w", path, err)
	}
	return imported, path, nil
}
