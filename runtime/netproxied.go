package runtime

import (
	"fmt"
	"os"
	"os/exec"
	goruntime "runtime"
	"slices"
	"strings"

	"github.com/mcp-host/mcp-host/runtime/netproxy"
	"github.com/mcp-host/mcp-host/runtime/sandbox"
)

// proxyEnv are the variables that point a server's HTTP clients at its
// proxy; NO_PROXY and no_proxy are emptied so that no host bypasses it.
var proxyEnv = []string{"HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy", "ALL_PROXY", "all_proxy"}

// startProxy gives a sandboxed stdio server whose policy lists
// "host:port" pairs a filtering proxy of its own (package netproxy): the
// sandbox then lets it connect to the proxy's port alone, and the proxy
// holds it to the listed hosts. A proxy of an earlier start is closed
// first. Other policies, and Windows (no sandbox), get none.
func (sv *server) startProxy(cmd *exec.Cmd, eff *sandbox.Effective) error {
	sv.stopProxy()
	if eff.Off || eff.Network != sandbox.NetworkAllow || goruntime.GOOS == "windows" {
		return nil
	}
	p, err := netproxy.Start(eff.Allow, sv.noteStderr)
	if err != nil {
		return fmt.Errorf("sandbox network proxy for %s: %w", sv.entry.ID, err)
	}
	sv.mu.Lock()
	sv.proxy = p
	sv.mu.Unlock()
	eff.ProxyPort = uint16(p.Port())
	eff.Proxied = true
	url := "http://" + p.Addr()
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	env := cmd.Env[:0:0]
	for _, kv := range cmd.Env {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case slices.Contains(proxyEnv, name), name == "NO_PROXY", name == "no_proxy":
		default:
			env = append(env, kv)
		}
	}
	for _, name := range proxyEnv {
		env = append(env, name+"="+url)
	}
	cmd.Env = append(env, "NO_PROXY=", "no_proxy=")
	return nil
}

// stopProxy closes the server's proxy, if any.
func (sv *server) stopProxy() {
	sv.mu.Lock()
	p := sv.proxy
	sv.proxy = nil
	sv.mu.Unlock()
	if p != nil {
		_ = p.Close()
	}
}

// noteStderr adds the proxy's line to the server's kept stderr, where
// mcp get shows it.
func (sv *server) noteStderr(line string) {
	sv.mu.Lock()
	s := sv.sess
	sv.mu.Unlock()
	if s != nil {
		s.NoteStderr(line)
	}
}
