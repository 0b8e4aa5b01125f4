package protocol

// CodeUnsupportedVersion: initialize named a protocol version other than
// the runtime's [Version]; the session stays uninitialized (initialize may
// be sent again). The message names both versions, and the data's
// protocol_version is the runtime's.
const CodeUnsupportedVersion = -32010

// KindUnsupportedVersion is the error kind of CodeUnsupportedVersion.
const KindUnsupportedVersion = "unsupported_version"

func init() { kinds[CodeUnsupportedVersion] = KindUnsupportedVersion }

// CheckVersion answers the protocol_version of initialize: nil when it is
// [Version] or empty (a UI that names none gets this version), else the
// error naming both versions.
func CheckVersion(ui string) *Error {
	if ui == "" || ui == Version {
		return nil
	}
	return NewError(CodeUnsupportedVersion, ErrorData{Method: MethodInitialize, Field: "protocol_version", ProtocolVersion: Version},
		"initialize: the UI speaks protocol %s, this runtime speaks %s: use a UI (or a client generated from this host's protocol/schema/schema.json) that speaks %s, or a host release that speaks %s",
		ui, Version, Version, ui)
}
