// Package protocol defines the wire protocol between a UI and `host serve`:
// JSON-RPC 2.0, one JSON object per line, over the runtime's stdin and
// stdout. It holds the method names, the params and results of every
// method, the notifications, the error codes, and a [Conn] that carries
// them in both directions.
//
// The split follows gopls: [Server] has one method per request the UI sends
// to the runtime, [Client] one per request or notification the runtime sends
// to the UI. [ServerHandler] and [ClientHandler] map method names to those
// interfaces, and [NewServerCaller] and [NewClientCaller] implement them over
// a [Conn], so neither the runtime nor a UI touches JSON. PROTOCOL.md in this
// directory is the reference for UI authors.
//
// It must not import any runtime/... package: the runtime implements these
// interfaces, and a UI uses them without the runtime.
package protocol

// Version is the version of this protocol, exchanged in initialize. It
// changes when a method, field or meaning changes incompatibly.
const Version = "2026-11-27"
