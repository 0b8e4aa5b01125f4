//go:build !linux

package main

import "errors"

// dialOther: MPTCP and the raw UDP probe are Linux's.
func dialOther(kind, _ string) error { return errors.New(kind + " probe is Linux's") }

// errnoName: the tests that read it are Linux's.
func errnoName(error) string { return "none" }
