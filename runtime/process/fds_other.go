//go:build !unix

package process

// closeInheritedOnExec has nothing to do outside Unix: Windows handles
// are inherited only when marked inheritable, which Go does not do.
func closeInheritedOnExec() {}
