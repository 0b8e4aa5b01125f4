package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/termsafe"
)

// connectAll connects every enabled server of scope ("effective" for all)
// at once in one manager, waits until each has settled, and returns the
// manager (the caller closes it) and the statuses by id.
func (c *cli) connectAll(all []config.ServerEntry, scope string) (*runtime.Manager, map[string]runtime.Status) {
	var entries []config.ServerEntry
	wait := time.Duration(0)
	for _, e := range all {
		if (scope == "effective" || e.Source == scope) && e.Err == nil && e.Blocked == nil && e.Config.IsEnabled() {
			entries = append(entries, e)
			wait = max(wait, e.Config.StartupTimeout()+5*time.Second)
		}
	}
	m := runtime.NewManager(c.managerOptions())
	m.Apply(entries)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	sts, _ := m.WaitSettled(ctx)
	out := make(map[string]runtime.Status, len(sts))
	for _, st := range sts {
		out[st.ID] = st
	}
	return m, out
}

// setState copies what --status adds to a row of host mcp list.
func setState(r *jsonServer, st runtime.Status) {
	if r.Policy != nil {
		return
	}
	r.State, r.LastError = string(st.State), st.LastError
	if st.State == runtime.StateReady {
		n := st.Tools
		r.Tools = &n
	}
}

// printStatusList is host mcp list --status as a table: each server's
// state, and its tool count or the first line of its error, as one
// terminal-safe line (the error is the server's or a project file's).
func (c *cli) printStatusList(rows []jsonServer, targets map[string]string) int {
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTRANSPORT\tSOURCE\tSTATE\tTARGET")
	for _, r := range rows {
		state := r.State
		switch {
		case r.Policy != nil:
			state = fmt.Sprintf("blocked_by_policy: %s: %s (%s)", termsafe.LineMax(r.Policy.Rule, maxErrorLine), termsafe.LineMax(r.Policy.Reason, maxErrorLine), termsafe.Line(r.Policy.File))
		case r.Error != "":
			state = "invalid: " + termsafe.LineMax(r.Error, maxErrorLine)
		case !r.Enabled:
			state = "disabled"
		case r.Tools != nil:
			state = fmt.Sprintf("ready (%d tools)", *r.Tools)
		case r.LastError != "":
			state += ": " + truncate(firstLine(ownError(r.ID, r.LastError)), maxErrorLine)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", termsafe.Line(r.ID), termsafe.Line(r.Transport), r.Source, state, targets[r.ID])
	}
	tw.Flush()
	for _, r := range rows {
		for _, w := range r.Warnings {
			c.warnf("%s: %s", r.ID, w)
		}
	}
	return exitOK
}
