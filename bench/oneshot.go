package bench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// buildBinaries builds cmd/host and bench/cmd/sdkcall into dir.
func buildBinaries(root, dir string) (host, sdkcall string, err error) {
	host, sdkcall = filepath.Join(dir, "host"), filepath.Join(dir, "sdkcall")
	for pkg, out := range map[string]string{"./cmd/host": host, "./bench/cmd/sdkcall": sdkcall} {
		if err := goBuild(root, out, pkg); err != nil {
			return "", "", err
		}
	}
	return host, sdkcall, nil
}

// oneShot runs cmd to its end, checks that it printed hello (or, for
// version, anything), and returns its wall time from start to exit.
func oneShot(name string, env []string, dir string, args ...string) (time.Duration, error) {
	cmd := exec.Command(name, args...)
	cmd.Env, cmd.Dir = env, dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	want := "hello"
	if len(args) == 1 && args[0] == "version" {
		want = ""
	}
	if err != nil || !strings.Contains(out.String(), want) {
		return 0, fmt.Errorf("%s %s: %v: %s%s", filepath.Base(name), strings.Join(args, " "), err, out.String(), errOut.String())
	}
	return d, nil
}

// oneShotSetup writes the host's config for url into dir and returns the
// environment `host mcp call` runs in: its own config, token and approval
// files, nothing from the user's.
func oneShotSetup(dir, url string) ([]string, error) {
	global := filepath.Join(dir, "config", "config.json")
	if err := os.MkdirAll(filepath.Dir(global), 0o700); err != nil {
		return nil, err
	}
	cfg := fmt.Sprintf(`{"version": 1, "mcp": {"servers": {"bench": {"transport": "http", "url": %q}}}}`, url)
	if err := os.WriteFile(global, []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	return append(os.Environ(), "MCP_HOST_CONFIG="+global, "MCP_HOST_SERVERS="), nil
}
