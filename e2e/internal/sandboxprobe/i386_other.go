//go:build !(linux && amd64)

package main

import "errors"

// viaI386: the i386 ABI is x86-64 Linux's.
func viaI386(what, _ string) error { return errors.New("no i386 ABI here: " + what) }
