//go:build unix

package cputime

import "testing"

// Work shows up as CPU time.
func TestProcessGrows(t *testing.T) {
	before := Process()
	x := 0
	for i := 0; Process() == before && i < 1e9; i++ {
		x += i
	}
	if Process() <= before {
		t.Fatalf("CPU time did not grow (%v -> %v, %d)", before, Process(), x)
	}
}
