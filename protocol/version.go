package protocol

import (
	"slices"
	"strings"
)

// CodeUnsupportedVersion: initialize named only protocol versions outside
// the runtime's window ([Versions]); the session stays uninitialized
// (initialize may be sent again). The message names the UI's versions and
// the runtime's, and the data's protocol_version is the newest the
// runtime speaks, supported_versions all of them.
const CodeUnsupportedVersion = -32010

// KindUnsupportedVersion is the error kind of CodeUnsupportedVersion.
const KindUnsupportedVersion = "unsupported_version"

func init() { kinds[CodeUnsupportedVersion] = KindUnsupportedVersion }

// Versions are the protocol versions this runtime speaks, newest first:
// every version released in the six months before [Version], and never
// fewer than the last three (PROTOCOL.md, "Versions"). A UI of any of
// them is served that version exactly, through its [Dialect].
var Versions = []string{Version, "2026-11-24", "2026-11-23", "2026-11-22"}

// Negotiate chooses the session's version from initialize's params: the
// newest version of the window that the UI names, in protocol_versions
// or protocol_version. A UI that names none gets [Version]. A UI whose
// versions are all outside the window gets CodeUnsupportedVersion naming
// the window.
func Negotiate(p *InitializeParams) (string, *Error) {
	named := append(slices.Clone(p.ProtocolVersions), p.ProtocolVersion)
	named = slices.DeleteFunc(named, func(v string) bool { return v == "" })
	if len(named) == 0 {
		return Version, nil
	}
	for _, v := range Versions {
		if slices.Contains(named, v) {
			return v, nil
		}
	}
	return "", NewError(CodeUnsupportedVersion, ErrorData{Method: MethodInitialize, Field: "protocol_version", ProtocolVersion: Version, SupportedVersions: Versions},
		"initialize: the UI speaks protocol %s, this runtime speaks %s: use a UI (or a client generated from this host's protocol/schema/schema.json) that speaks one of them, or a host release that speaks %s",
		strings.Join(named, ", "), strings.Join(Versions, ", "), named[0])
}

// CheckVersion answers a UI that names one version: nil when the runtime
// speaks it (or none is named), else the error of [Negotiate].
func CheckVersion(ui string) *Error {
	_, err := Negotiate(&InitializeParams{ProtocolVersion: ui})
	return err
}

// Dialect is how the runtime serves the UI of one protocol version: the
// one place where a version's incompatible changes are undone for older
// UIs (PROTOCOL.md, "Versions", lists each). Handlers never test a
// version; the protocol layer consults the session's dialect.
type Dialect struct {
	// Version is the negotiated version.
	Version string
	// LooseParams: a params field the runtime does not know is ignored,
	// as it was before 2026-11-27 (which made it -32602 naming it).
	LooseParams bool
	// ServerFieldID: an error about a request's server names the field
	// "id", as before 2026-11-27 (which renamed it "server").
	ServerFieldID bool
	// MissingParamsUnknownServer: a request without its required server
	// field answers -32002 unknown_server, as 2026-11-22 did (2026-11-23
	// made it -32602 naming the field).
	MissingParamsUnknownServer bool
}

// DialectOf is the dialect of version v (one of [Versions]).
func DialectOf(v string) Dialect {
	return Dialect{
		Version:                    v,
		LooseParams:                v < "2026-11-27",
		ServerFieldID:              v < "2026-11-27",
		MissingParamsUnknownServer: v < "2026-11-23",
	}
}

// Deprecation is an old name still served, and the version that drops it.
type Deprecation struct {
	// Old and New are the names; Where says where they appear.
	Old, New, Where string
	// Since is the version that introduced New; Dropped the first version
	// that no longer takes (or sends) Old: a UI of an older version keeps
	// it for as long as its version is in the window.
	Since, Dropped string
}

// Deprecations lists the aliases kept for older UIs (PROTOCOL.md,
// "Aliases"). Dropped is "the version after 2026-11-27" until that
// version exists.
var Deprecations = []Deprecation{
	{Old: "id", New: "server", Where: "params of mcp.get, mcp.reconnect, mcp.enable, mcp.disable, mcp.approve, mcp.login, mcp.logout", Since: "2026-11-27", Dropped: "the version after 2026-11-27"},
	{Old: "state", New: "status", Where: "a server status, its sandbox, error data", Since: "2026-11-27", Dropped: "the version after 2026-11-27"},
	{Old: "args", New: "arguments", Where: "a call of the scripted model", Since: "2026-11-27", Dropped: "the version after 2026-11-27"},
}
