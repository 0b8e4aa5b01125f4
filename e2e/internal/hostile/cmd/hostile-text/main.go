// Command hostile-text is the [hostile] MCP server over stdio: every string
// it sends, and every line it writes to stderr, attacks the terminal that
// shows it.
//
//	hostile-text          serve over stdin/stdout; a payload line on stderr at start and per call
//	hostile-text -crash   write payload lines to stderr and exit 1 before the handshake
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/mcp-host/mcp-host/e2e/internal/hostile"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	crash := flag.Bool("crash", false, "write payloads to stderr and exit 1")
	flag.Parse()
	fmt.Fprintf(os.Stderr, "%s: starting%s\n", hostile.StderrLine, hostile.Payload)
	if *crash {
		fmt.Fprintf(os.Stderr, "%s: crashing%s\n", hostile.StderrLine, hostile.Payload)
		os.Exit(1)
	}
	srv := hostile.NewServer(hostile.Options{Stderr: os.Stderr})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintf(os.Stderr, "hostile-text: %v\n", err)
		os.Exit(1)
	}
}
