// Package agentrun runs agent turns over the tools of the servers a
// [runtime.Manager] keeps: each run takes a gated snapshot of their tools,
// searches the catalog instead of offering it whole when it is too large,
// puts the servers' instructions before the model, traces the run and routes
// the servers' progress reports to the model's calls. A direct tool call
// outside a turn passes the same gate.
//
// It uses only the manager's exported API; the manager (package runtime)
// does not import it, and it must not import runtime/serve or cmd/.
package agentrun
