package main

import (
	"flag"
	"io"
	"strings"

	"github.com/mcp-host/mcp-host/runtime/sandbox"
)

// flagCatcher is the stdout host __complete runs a command with to learn
// its flags: parseArgs hands it the command's own flag set and ends the
// command before it parses anything, so the flags completion offers are
// the ones the command defines, and the command does no work.
type flagCatcher struct{ fs *flag.FlagSet }

// Write discards what a command prints before it parses its flags.
func (*flagCatcher) Write(p []byte) (int, error) { return len(p), nil }

// flagged are the top-level commands that take flags, each run with no
// arguments: the first thing each does is parse its flags, where a
// flagCatcher ends it. The other top-level commands take none
// (TestCompletionFlagsOfEveryCommand keeps the two apart).
var flagged = map[string]func(stdout io.Writer){
	"serve": func(w io.Writer) { runServe(nil, strings.NewReader(""), w, io.Discard) },
	"chat":  func(w io.Writer) { runChat(nil, strings.NewReader(""), w, io.Discard) },
	"web":   func(w io.Writer) { runWeb(nil, w, io.Discard) },
	"demo":  func(w io.Writer) { runDemo(nil, strings.NewReader(""), w, io.Discard) },
}

// topFlags is the flag set of a top-level command; nil for a command
// without flags.
func topFlags(name string) *flag.FlagSet {
	runIt, ok := flagged[name]
	if !ok {
		return nil
	}
	fc := &flagCatcher{}
	runIt(fc)
	return fc.fs
}

// mcpFlags is the flag set of "host mcp <sub>" ("permissions list" and
// "permissions revoke" for the two forms of permissions); nil for a
// command host mcp does not have.
func mcpFlags(sub string) *flag.FlagSet {
	fc := &flagCatcher{}
	c := &cli{stdin: strings.NewReader(""), stdout: fc, stderr: io.Discard}
	name, form, _ := strings.Cut(sub, " ")
	cmd, ok := c.commands()[name]
	if !ok {
		return nil
	}
	var args []string
	if form != "" {
		args = []string{form}
	}
	cmd(args)
	return fc.fs
}

// flagNames are the flags of fs as typed: -x for a one-letter name,
// --name otherwise, and --help, which every command takes. A flag already
// in seen is left out unless it may be repeated.
func flagNames(fs *flag.FlagSet, seen map[string]bool) []string {
	out := []string{"--help"}
	fs.VisitAll(func(f *flag.Flag) {
		if seen[f.Name] && !repeatable(f) {
			return
		}
		if len(f.Name) == 1 {
			out = append(out, "-"+f.Name)
		} else {
			out = append(out, "--"+f.Name)
		}
	})
	return out
}

// repeatable reports whether f collects every value it is given.
func repeatable(f *flag.Flag) bool {
	_, ok := f.Value.(*multiFlag)
	return ok
}

// takesValue reports whether f reads a value from the next word (a
// boolean flag does not).
func takesValue(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}

// longName is f's long name: a short flag and its long form share one
// usage text (as printHelp pairs them), and the longest name is the one
// the value table knows.
func longName(fs *flag.FlagSet, f *flag.Flag) string {
	name := f.Name
	fs.VisitAll(func(o *flag.Flag) {
		if o.Usage == f.Usage && len(o.Name) > len(name) {
			name = o.Name
		}
	})
	return name
}

// The values a flag takes when they are a fixed set, by the flag's long
// name; "scope" depends on the command (see flagValues).
var (
	scopes     = []string{"project", "global"}
	transports = []string{"http", "sse", "stdio"}
	sandboxes  = []string{sandbox.BaseDefault, sandbox.BaseStrict, "false"}
	// registryTypes are what --use picks among (host mcp add
	// --from-registry).
	registryTypes = []string{"npm", "pypi", "oci", "nuget", "mcpb", "remote"}
)

// flagValues are the candidates for the value of the flag long of
// command sub, pos being the positional arguments given so far, and the
// directive: names and no files for a fixed set, file names otherwise
// (--from takes a name or a file).
func (cc *completer) flagValues(sub, long string, pos []string) ([]string, int) {
	switch long {
	case "scope":
		if sub == "list" {
			return []string{"effective", "project", "global"}, compNoFiles
		}
		return scopes, compNoFiles
	case "transport":
		return transports, compNoFiles
	case "sandbox":
		return sandboxes, compNoFiles
	case "use":
		return registryTypes, compNoFiles
	case "from":
		return importFrom, compDefault
	case "probe":
		if len(pos) == 1 {
			return cc.tools(pos[0]), compNoFiles
		}
		return nil, compNoFiles
	}
	return nil, compDefault
}
