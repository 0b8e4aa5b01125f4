//go:build !unix

package sandbox

func probeMain(_ []string) int { return 2 }
