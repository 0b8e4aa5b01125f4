// Package serve is the UI-protocol server behind `host serve`: it answers a
// UI's JSON-RPC requests (protocol/) with the runtime's server manager,
// agent runs and logins, asks the UI for confirmations, logins and
// elicitations, pushes status and run events to it, and watches the
// configuration files to apply their changes without a restart.
//
// The wire types live in protocol/ and the server manager in runtime/; this
// package only translates between them. It must not import cmd/, and
// runtime, protocol, core, session, auth, adapter and permission must not
// import it.
package serve
