package main

import (
	"fmt"
	"io"

	"github.com/mcp-host/mcp-host/internal/suggest"
)

// unknownCommand says in one line that name is not a command of parent,
// with the closest one when there is a plausible one, and returns
// exitUsage. The full usage is only printed on --help.
func unknownCommand(stderr io.Writer, parent, name string, known []string) int {
	if s := suggest.Closest(name, known); s != "" {
		fmt.Fprintf(stderr, "%s: unknown command %q: did you mean %q? (see: %s --help)\n", parent, message("%s", name), s, parent)
	} else {
		fmt.Fprintf(stderr, "%s: unknown command %q (see: %s --help)\n", parent, message("%s", name), parent)
	}
	return exitUsage
}
