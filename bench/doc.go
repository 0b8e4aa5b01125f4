// Package bench measures mcp-host against the SDK it stands on and against
// the TypeScript SDK, on one machine in one run, and prints the results as
// ratios to the bare go-sdk client (`make bench`, see docs/PERFORMANCE.md).
//
// Every comparison is taken in interleaved rounds (each path once per round,
// in a rotating order) so that the machine's drift touches every path alike;
// a ratio is the median over the rounds of that round's ratio. Absolute
// times are printed only as context.
//
// The servers under test are go-sdk Streamable HTTP servers on loopback in
// a child process (an echo tool, a 10,000-tool catalog, 50 servers with
// latencies), so that the allocations counted per call are the client's
// alone. Measurements that need a process of their own (peak RSS, one-shot
// commands) run the bench binary again in a child mode, see [RunChild].
package bench
