//go:build !linux

package sandbox

// codeLayer: only Linux has the helper that keeps the files that run
// code later read-only (see mountns_linux.go).
func codeLayer(*Effective) (string, string) { return "", "" }
