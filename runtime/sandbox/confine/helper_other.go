//go:build !linux

package confine

import (
	"fmt"
	"os"
)

// Main is the helper's program, which only Linux has: mcp-host confines
// servers elsewhere with the OS's own sandbox and never starts it.
func Main() {
	fmt.Fprintln(os.Stderr, "host-confine: only used on Linux")
	os.Exit(2)
}
