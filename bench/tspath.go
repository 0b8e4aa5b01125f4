package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"time"
)

// tsPath is the TypeScript SDK client, bench/ts/client.mjs under node,
// kept running and driven over its stdin so that its rounds interleave
// with the Go paths'.
func tsPath(ctx context.Context, node, modules, script, url string) (*callPath, error) {
	cmd := exec.CommandContext(ctx, node, script, modules, url)
	cmd.Dir = filepath.Dir(script)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("TypeScript client: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("TypeScript client: %w", err)
	}
	stderr := &tail{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("TypeScript client: start %s: %w", node, err)
	}
	lines := bufio.NewScanner(stdout)
	read := func() (map[string]any, error) {
		if !lines.Scan() {
			return nil, fmt.Errorf("TypeScript client exited: %v: %s", lines.Err(), stderr)
		}
		var v map[string]any
		if err := json.Unmarshal(lines.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("TypeScript client: %q: %w", lines.Text(), err)
		}
		if e, ok := v["error"]; ok {
			return nil, fmt.Errorf("TypeScript client: %v", e)
		}
		return v, nil
	}
	stop := func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}
	if _, err := read(); err != nil {
		stop()
		return nil, err
	}
	return &callPath{
		name: "TypeScript SDK " + tsVersion(modules),
		run: func(n, width int) (time.Duration, error) {
			cmdline := fmt.Sprintf("seq %d\n", n)
			if width > 1 {
				cmdline = fmt.Sprintf("par %d %d\n", n, width)
			}
			if _, err := io.WriteString(stdin, cmdline); err != nil {
				return 0, fmt.Errorf("TypeScript client: %w: %s", err, stderr)
			}
			v, err := read()
			if err != nil {
				return 0, err
			}
			ns, _ := v["ns"].(float64)
			return time.Duration(ns), nil
		},
		close: stop,
	}, nil
}

// tsVersion is the version of the TypeScript SDK under modules.
func tsVersion(modules string) string {
	var pkg struct {
		Version string `json:"version"`
	}
	if err := readJSONFile(filepath.Join(modules, "@modelcontextprotocol", "sdk", "package.json"), &pkg); err != nil {
		return "(version unknown)"
	}
	return pkg.Version
}
