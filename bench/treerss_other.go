//go:build !linux

package bench

// treeRSS is 0 (unknown): the bench reads process trees from Linux's /proc
// only.
func treeRSS(int) int64 { return 0 }
