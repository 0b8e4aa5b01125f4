package main

import (
	"fmt"

	"github.com/mcp-host/mcp-host/runtime/approval"
	"github.com/mcp-host/mcp-host/termsafe"
)

// approve records the user's answer about a server a project file defines
// or the organization's managed policy forces:
// `host mcp approve <id>` lets it start, `host mcp deny <id>` keeps it off.
// Both are pinned to the definition shown here; a running host serve picks
// the answer up at once.
func (c *cli) approve(args []string, yes bool) int {
	name := map[bool]string{true: "approve", false: "deny"}[yes]
	fs := newFlagSet(name, c.stderr)
	pos, code := c.parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) != 1 {
		return c.failf(exitUsage, "%s: want one server id", name)
	}
	e, _, err := c.entry(pos[0])
	if err != nil {
		return c.failf(exitUsage, "%s: %v", name, err)
	}
	if !e.NeedsApproval() {
		if e.Forced() {
			return c.failf(exitUsage, "%s: server %q is provided and approved by the organization (managed policy %s, \"servers_preapproved\"): there is nothing to approve", name, e.ID, e.DefinedPath)
		}
		return c.failf(exitUsage, "%s: server %q is defined by the %s config (%s), not a project file: there is nothing to approve", name, e.ID, e.DefinedIn, e.DefinedPath)
	}
	def := e.Definition()
	digest := def.Digest()
	store := c.approvals()
	if yes {
		err = store.Approve(e.DefinedPath, e.ID, digest)
	} else {
		err = store.Deny(e.DefinedPath, e.ID, digest)
	}
	if err != nil {
		return c.failf(exitFailure, "%s %s: not %s: %v", name, e.ID, map[bool]string{true: "approved", false: "denied"}[yes], err)
	}
	verb := map[bool]string{true: "approved", false: "denied"}[yes]
	fmt.Fprintf(c.stdout, "%s %s, as defined in %s:\n", verb, e.ID, termsafe.Line(e.Origin()))
	for _, f := range def.Summary() {
		fmt.Fprintf(c.stdout, "  %s\n", termsafe.Line(f))
	}
	if yes {
		fmt.Fprintf(c.stdout, "It starts the next time a host in this project connects (a running host serve starts it now). A changed definition asks again.\n")
	} else {
		fmt.Fprintf(c.stdout, "It stays off until its definition changes or you run: host mcp approve %s\n", e.ID)
	}
	return exitOK
}

// approvalLabel says where a project-defined entry stands, for list.
func approvalLabel(s *approval.Store, path, id string, def approval.Definition) string {
	return string(s.Lookup(path, id, def.Digest()))
}
