package main

import (
	"runtime/debug"
)

// Set by a release build (make release: scripts/release.sh) with
// -ldflags "-X main.version=v1.2.3 -X main.commit=… -X main.date=…".
var (
	// version is the runtime's version, reported in initialize and by
	// host --version.
	version = "0.1.0-dev"
	// commit is the source revision a release was built from.
	commit = ""
	// date is when a release was built (RFC 3339, UTC).
	date = ""
)

// versionString is what "host --version" prints after "host ": the
// version (the stamped one; else the module version "go install
// …@v1.2.3" records; else the development default), the commit (the
// stamped one, else the VCS revision the build recorded), the build date
// when stamped, and the Go version.
func versionString() string {
	v, rev, modified := version, commit, ""
	bi, ok := debug.ReadBuildInfo()
	if ok && v == "0.1.0-dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	if ok && rev == "" {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = "+dirty"
				}
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += " (" + rev + modified
		if date != "" {
			v += ", " + date
		}
		v += ")"
	}
	if ok {
		v += " " + bi.GoVersion
	}
	return v
}
