// Package policy is the managed policy an organization sets: one JSON file
// at a system location the user can read but not write (see [SystemPath];
// MCP_HOST_MANAGED_POLICY names another file where no system file exists),
// above every config layer. It decides which servers may run, matched on
// what a server is (its URL, or its command line) and never on its id;
// which servers the organization provides (forced on, not removable);
// whether users may add their own; and settings users cannot loosen
// (sandbox required, project servers off, "trust" off, tool deny globs,
// the token store, OAuth callback ports).
//
// A policy file that cannot be read or does not parse, or that has an
// unknown key or a bad pattern, fails closed: every server it does not
// explicitly provide is blocked, with an error naming the file and the
// line:column.
//
// Like config it is a leaf: no MCP SDK and no runtime machinery. Host
// serve and the CLI call [Source.Load] and [Policy.Apply] after
// config.Load; the runtime calls each entry's check again at connect
// time, on the definition after ${VAR} expansion.
package policy
