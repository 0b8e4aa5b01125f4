//go:build windows && wine

package process_test

import _ "unsafe" // for go:linkname

// Under Wine 8 (Debian bookworm) NtSetInformationFile does not know
// FileDispositionInformationEx and answers "Invalid function", which Go's
// os.RemoveAll does not take as "use the fallback" (it takes
// STATUS_INVALID_INFO_CLASS, _PARAMETER and _NOT_SUPPORTED): every
// t.TempDir cleanup would fail. Built with -tags wine (scripts/wine-test.sh),
// the test binary makes os.RemoveAll use the fallback Go keeps for older
// Windows and for file systems without POSIX deletes. Linking to it needs
// -ldflags=-checklinkname=0.
//
//go:linkname deleteatFallback internal/syscall/windows.TestDeleteatFallback
var deleteatFallback bool

func init() { deleteatFallback = true }
