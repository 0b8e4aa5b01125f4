// Command peakrss runs a command and writes its peak resident set size, in
// bytes, to the file named by $PEAKRSS_FILE; it exits with the command's
// exit code.
//
// A test cannot read the peak of a child it starts itself: on Linux a child
// started by Go's exec shares the parent's memory until it calls exec, and
// its recorded peak then starts from the parent's (a test binary built
// with -race is well over 100 MB). This small process in between has a
// peak of a few megabytes, so the figure it reports is the command's own.
package main

import (
	"fmt"
	"os"
	"os/exec"

	"github.com/mcp-host/mcp-host/e2e/internal/hostilehttp"
)

func main() {
	if len(os.Args) < 2 || os.Getenv("PEAKRSS_FILE") == "" {
		fmt.Fprintln(os.Stderr, "usage: PEAKRSS_FILE=path peakrss command [args...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintf(os.Stderr, "peakrss: %v\n", err)
		os.Exit(2)
	}
	rss, _ := hostilehttp.PeakRSS(cmd.ProcessState)
	if werr := os.WriteFile(os.Getenv("PEAKRSS_FILE"), []byte(fmt.Sprint(rss)), 0o600); werr != nil {
		fmt.Fprintf(os.Stderr, "peakrss: %v\n", werr)
		os.Exit(2)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
