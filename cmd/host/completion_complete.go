package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// Directives: the last line of host __complete's answer is ":" and one of
// these (cobra's numbers, which the scripts test as bits).
const (
	// compDefault lets the shell offer file names when no candidate came.
	compDefault = 0
	// compNoFiles: the candidates are all there is.
	compNoFiles = 4
)

// argKind says what a positional argument is, for its candidates.
type argKind int

const (
	argNone    argKind = iota // nothing to offer: a new id, a URL, words
	argServer                 // a configured server's id
	argServers                // server ids, as many as wanted
	argTool                   // a tool of the server named just before
)

// mcpArgs are the positional arguments of each host mcp command, in order
// (the last of argServers repeats). Every command of cli.commands has an
// entry (TestCompletionKnowsEveryMCPCommand).
var mcpArgs = map[string][]argKind{
	"add":                {argNone, argNone}, // a new id, a URL; after -- a command line
	"list":               nil,
	"get":                {argServer},
	"remove":             {argServer},
	"enable":             {argServer},
	"disable":            {argServer},
	"test":               {argServers},
	"tools":              {argServer},
	"call":               {argServer, argTool},
	"import":             nil,
	"search":             nil,
	"update":             {argServer},
	"login":              {argServer},
	"logout":             {argServer},
	"approve":            {argServer},
	"deny":               {argServer},
	"permissions":        nil, // its forms below
	"permissions list":   {argServer},
	"permissions revoke": {argServer, argTool},
}

// permissionsForms are the forms of host mcp permissions.
var permissionsForms = []string{"list", "revoke"}

// protocolCommands are the commands of host protocol.
var protocolCommands = []string{"schema", "generate"}

// runComplete is the hidden "host __complete [--bash] [--new] [--] WORD...":
// the completion scripts call it with the words after "host" up to the
// cursor, the last one being the word to complete. It prints the
// candidates for that word, one a line, then a line ":" and a directive
// (compDefault, compNoFiles). --new adds an empty last word (PowerShell
// drops empty arguments); --bash says the words are bash's COMP_WORDS,
// split at "=" and ":" (COMP_WORDBREAKS): they are joined again, and the
// candidates are printed as bash replaces them, without the part of the
// word before the last break. "--" ends the options (the scripts always
// give it). It never starts a server and never touches the network.
func runComplete(args []string, stdout, stderr io.Writer) int {
	bash, newWord := false, false
	for len(args) > 0 && (args[0] == "--bash" || args[0] == "--new") {
		bash, newWord = bash || args[0] == "--bash", newWord || args[0] == "--new"
		args = args[1:]
	}
	words := args
	if len(words) > 0 && words[0] == "--" {
		words = words[1:]
	}
	words = append([]string(nil), words...)
	if newWord || len(words) == 0 {
		words = append(words, "")
	}
	trim := ""
	if bash {
		words, trim = joinBreaks(words)
	}
	cur := words[len(words)-1]
	cands, directive := (&completer{}).complete(words[:len(words)-1], cur)
	var b strings.Builder
	for _, c := range cands {
		if strings.HasPrefix(c, cur) && strings.HasPrefix(c, trim) {
			b.WriteString(c[len(trim):])
			b.WriteByte('\n')
		}
	}
	fmt.Fprintf(&b, ":%d\n", directive)
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		fmt.Fprintf(stderr, "host __complete: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// isBreak reports whether w is one of bash's word breaks standing alone.
func isBreak(w string) bool { return w != "" && strings.Trim(w, "=:") == "" }

// joinBreaks joins what bash split at "=" and ":": a break word joins the
// word before it, and a non-empty word after a break joins too. It
// returns the words and the part of the last one bash does not replace
// (the text up to its last break), "" when the last word was not split.
func joinBreaks(words []string) ([]string, string) {
	var out []string
	glue, parts := false, 0
	for _, w := range words {
		if len(out) > 0 && (isBreak(w) || (glue && w != "")) {
			out[len(out)-1] += w
			parts++
		} else {
			out = append(out, w)
			parts = 1
		}
		glue = isBreak(w)
	}
	if parts < 2 {
		return out, ""
	}
	last, lastWord := out[len(out)-1], words[len(words)-1]
	if isBreak(lastWord) {
		return out, last
	}
	return out, strings.TrimSuffix(last, lastWord)
}

// complete returns the candidates for cur, the word after prev (the words
// after "host"), and the directive.
func (cc *completer) complete(prev []string, cur string) ([]string, int) {
	if len(prev) == 0 {
		if strings.HasPrefix(cur, "-") {
			return []string{"--help", "--version"}, compNoFiles
		}
		return topCommands, compNoFiles
	}
	cmd, rest := prev[0], prev[1:]
	switch cmd {
	case "mcp":
		return cc.completeMCP(rest, cur)
	case "completion":
		if len(rest) == 0 {
			return completionShells, compNoFiles
		}
	case "help":
		switch {
		case len(rest) == 0:
			return topCommands, compNoFiles
		case len(rest) == 1 && rest[0] == "mcp":
			return keys((&cli{}).commands()), compNoFiles
		}
	case "protocol":
		switch {
		case len(rest) == 0:
			return protocolCommands, compNoFiles
		case len(rest) == 1 && rest[0] == "generate":
			return nil, compDefault // the repository's directory
		}
	default:
		if fs := topFlags(cmd); fs != nil {
			return cc.completeArgs(cmd, fs, nil, rest, cur)
		}
	}
	return nil, compNoFiles
}

// completeMCP completes the words after "host mcp".
func (cc *completer) completeMCP(prev []string, cur string) ([]string, int) {
	if len(prev) == 0 {
		if strings.HasPrefix(cur, "-") {
			return []string{"--help"}, compNoFiles
		}
		return append(keys((&cli{}).commands()), "help"), compNoFiles
	}
	sub, rest := prev[0], prev[1:]
	if sub == "help" {
		if len(rest) == 0 {
			return keys((&cli{}).commands()), compNoFiles
		}
		return nil, compNoFiles
	}
	if sub == "permissions" {
		switch {
		case len(rest) == 0 && !strings.HasPrefix(cur, "-"):
			return permissionsForms, compNoFiles
		case len(rest) > 0 && (rest[0] == "list" || rest[0] == "revoke"):
			sub, rest = sub+" "+rest[0], rest[1:]
		default: // flags first: the list form
			sub = "permissions list"
		}
	}
	fs := mcpFlags(sub)
	if fs == nil {
		return nil, compNoFiles
	}
	return cc.completeArgs(sub, fs, mcpArgs[sub], rest, cur)
}

// completeArgs completes cur after prev, the arguments of command sub so
// far: a flag's value, a flag, or a positional argument of the kinds
// given.
func (cc *completer) completeArgs(sub string, fs *flag.FlagSet, kinds []argKind, prev []string, cur string) ([]string, int) {
	var pos []string
	var expect *flag.Flag // a flag waiting for its value
	seen := map[string]bool{}
	dashdash := false
	for _, w := range prev {
		switch {
		case expect != nil:
			expect = nil
		case dashdash || !isFlag(w):
			pos = append(pos, w)
		case w == "--":
			dashdash = true
		default:
			name, _, inline := strings.Cut(strings.TrimLeft(w, "-"), "=")
			if f := fs.Lookup(name); f != nil {
				seen[f.Name] = true
				if !inline && takesValue(f) {
					expect = f
				}
			}
		}
	}
	switch {
	case expect != nil:
		return cc.flagValues(sub, longName(fs, expect), pos)
	case dashdash && sub == "add":
		return nil, compDefault // the server's command line
	case !dashdash && isFlag(cur) && strings.Contains(cur, "="):
		name, _, _ := strings.Cut(strings.TrimLeft(cur, "-"), "=")
		f := fs.Lookup(name)
		if f == nil || !takesValue(f) {
			return nil, compNoFiles
		}
		vals, directive := cc.flagValues(sub, longName(fs, f), pos)
		prefix := cur[:strings.Index(cur, "=")+1]
		out := make([]string, len(vals))
		for i, v := range vals {
			out[i] = prefix + v
		}
		return out, directive
	case !dashdash && strings.HasPrefix(cur, "-"):
		return flagNames(fs, seen), compNoFiles
	}
	return cc.positional(kinds, pos), compNoFiles
}

// isFlag reports whether w reads as a flag (or "--") to the flag package.
func isFlag(w string) bool { return len(w) > 1 && w[0] == '-' }

// positional are the candidates for the next positional argument after
// pos, of the kinds given.
func (cc *completer) positional(kinds []argKind, pos []string) []string {
	if len(kinds) == 0 {
		return nil
	}
	i := len(pos)
	if i >= len(kinds) {
		if kinds[len(kinds)-1] != argServers {
			return nil
		}
		i = len(kinds) - 1
	}
	switch kinds[i] {
	case argServer:
		return cc.serverIDs(nil)
	case argServers:
		return cc.serverIDs(pos)
	case argTool:
		if i > 0 {
			return cc.tools(pos[i-1])
		}
	}
	return nil
}
