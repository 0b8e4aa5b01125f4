package runtime

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	goruntime "runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/sandbox"
)

// A host-list policy gets a proxy: the server's proxy variables point at
// it, NO_PROXY is emptied, the sandbox grants its port, and stopping
// closes it. "all" and "none" get none and keep their environment.
func TestStartProxyForHostList(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("no sandbox on Windows")
	}
	sv := &server{entry: config.ServerEntry{ID: "probe"}}
	cmd := exec.Command("true")
	cmd.Env = []string{"PATH=/usr/bin", "HTTPS_PROXY=http://elsewhere:1", "NO_PROXY=*"}
	eff := &sandbox.Effective{Network: sandbox.NetworkAllow, Allow: []string{"127.0.0.1:9"}}
	if err := sv.startProxy(cmd, eff); err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(int(eff.ProxyPort))
	for _, kv := range []string{"PATH=/usr/bin", "HTTPS_PROXY=http://" + addr, "http_proxy=http://" + addr, "NO_PROXY=", "no_proxy="} {
		if !slices.Contains(cmd.Env, kv) {
			t.Errorf("env lacks %s: %q", kv, cmd.Env)
		}
	}
	if slices.Contains(cmd.Env, "HTTPS_PROXY=http://elsewhere:1") || slices.Contains(cmd.Env, "NO_PROXY=*") {
		t.Errorf("the host's proxy settings leaked: %q", cmd.Env)
	}
	c, err := net.DialTimeout("tcp", addr, 3*time.Second)
	if err != nil {
		t.Fatalf("the proxy is not listening: %v", err)
	}
	c.Close()
	sv.stopProxy()
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Error("the proxy still listens after stopProxy")
	}
	for _, mode := range []string{sandbox.NetworkAll, sandbox.NetworkNone} {
		cmd := exec.Command("true")
		cmd.Env = []string{"HTTPS_PROXY=http://mine:1"}
		eff := &sandbox.Effective{Network: mode}
		if err := sv.startProxy(cmd, eff); err != nil || eff.ProxyPort != 0 || len(cmd.Env) != 1 {
			t.Errorf("network %s: err %v, port %d, env %q", mode, err, eff.ProxyPort, cmd.Env)
		}
	}
}

// A "host:*" grant parsed from a server's config admits every port of
// that host through the server's proxy, and no other host.
func TestProxyAnyPortOfOneHost(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("no sandbox on Windows")
	}
	var cfg config.ServerConfig
	if err := json.Unmarshal([]byte(`{"command": "true", "sandbox": {"network": ["127.0.0.1:*"]}}`), &cfg); err != nil {
		t.Fatal(err)
	}
	eff, err := sandbox.Resolve(cfg.SandboxPolicy(), sandbox.Context{Home: t.TempDir(), Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	sv := &server{entry: config.ServerEntry{ID: "anyport", Config: cfg}}
	if err := sv.startProxy(exec.Command("true"), eff); err != nil {
		t.Fatal(err)
	}
	defer sv.stopProxy()
	proxy := "127.0.0.1:" + strconv.Itoa(int(eff.ProxyPort))
	connect := func(target string) int {
		t.Helper()
		c, err := net.DialTimeout("tcp", proxy, 3*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
		resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: http.MethodConnect})
		if err != nil {
			t.Fatalf("CONNECT %s: %v", target, err)
		}
		return resp.StatusCode
	}
	for range 2 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		go func() {
			if c, err := l.Accept(); err == nil {
				c.Close()
			}
		}()
		if code := connect(l.Addr().String()); code != http.StatusOK {
			t.Errorf("CONNECT %s: %d, want 200 (any port of 127.0.0.1)", l.Addr(), code)
		}
		_, port, _ := net.SplitHostPort(l.Addr().String())
		for _, other := range []string{"127.0.0.2:" + port, "localhost:" + port} {
			if code := connect(other); code != http.StatusForbidden {
				t.Errorf("CONNECT %s: %d, want 403 (another host)", other, code)
			}
		}
	}
}
