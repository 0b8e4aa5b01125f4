package bench

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// treeRSS is the resident memory of process pid and all its descendants,
// in bytes, from /proc (0 when unknown).
func treeRSS(pid int) int64 {
	children := procChildren()
	var total int64
	page := int64(os.Getpagesize())
	for todo := []int{pid}; len(todo) > 0; {
		p := todo[0]
		todo = append(todo[1:], children[p]...)
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "statm"))
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 1 {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			total += n * page
		}
	}
	return total
}
