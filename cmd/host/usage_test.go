package main

import (
	"regexp"
	"strings"
	"testing"
)

// host --help names every host mcp command (permissions was missing).
func TestUsageNamesEveryCommand(t *testing.T) {
	c := &cli{}
	for name := range c.commands() {
		if !regexp.MustCompile(`(?m)^  (\S+\|)*` + regexp.QuoteMeta(name) + `(\||\s)`).MatchString(usage) {
			t.Errorf("host --help does not name %q", name)
		}
	}
	if !strings.Contains(usage, "MCP commands") {
		t.Fatal("usage has no MCP commands section")
	}
}
