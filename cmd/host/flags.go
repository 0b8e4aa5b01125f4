package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// multiFlag collects a repeatable flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// keyValues parses K=V pairs of a repeatable flag.
func keyValues(flagName string, pairs []string) (map[string]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(pairs))
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--%s %q: want KEY=VALUE", flagName, p)
		}
		out[k] = v
	}
	return out, nil
}

// parse parses flags that may come before, between or after positional
// arguments, and returns the positional ones.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// newFlagSet makes the flag set of "host mcp <name>". Parse it with
// [cli.parseFlags]: errors are one line, the usage only on --help.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	return quietFlagSet("host mcp " + name)
}

// quietFlagSet is a flag set that prints nothing itself: parseArgs says
// what went wrong in one line, and prints the usage only when asked.
func quietFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseArgs parses args with fs. It returns the positional arguments and
// -1 to go on, or an exit code: exitOK after printing the command's help
// for -h/--help, exitUsage after printing a one-line error.
func parseArgs(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) ([]string, int) {
	if fc, ok := stdout.(*flagCatcher); ok {
		// host __complete learns the command's flags; the command ends
		// here, before it does anything (completion_flags.go).
		fc.fs = fs
		return nil, exitOK
	}
	pos, err := parse(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		printHelp(stdout, fs)
		return nil, exitOK
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v (see: %s --help)\n", fs.Name(), err, fs.Name())
		return nil, exitUsage
	}
	return pos, -1
}

// parseFlags is parseArgs on the CLI's own output.
func (c *cli) parseFlags(fs *flag.FlagSet, args []string) ([]string, int) {
	return parseArgs(fs, args, c.stdout, c.stderr)
}
