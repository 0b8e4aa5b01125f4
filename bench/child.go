package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/pprof"
	"strings"
	"time"
)

// childEnv names the child mode a bench binary runs in (see [RunChild]).
const childEnv = "MCPHOST_BENCH_CHILD"

// cpuProfileEnv, when set in a measuring child's environment, names a file
// for its CPU profile (to look into a slow row by hand).
const cpuProfileEnv = "MCPHOST_BENCH_CPUPROFILE"

// childResult is what a measuring child prints on stdout as JSON.
type childResult struct {
	NS    int64 `json:"ns"`
	Tools int   `json:"tools,omitempty"`
}

// RunChild runs the child mode the environment names, if any, and reports
// whether it did; the caller then exits. Call it first thing in main (and
// in TestMain): the bench runs its own binary again for the measurements
// that need a process of their own.
func RunChild() bool {
	mode := os.Getenv(childEnv)
	if mode == "" {
		return false
	}
	if err := runChild(mode, os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "bench child %s: %v\n", mode, err)
		os.Exit(1)
	}
	return true
}

func runChild(mode string, args []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if path := os.Getenv(cpuProfileEnv); path != "" && mode != "serve" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var (
		res childResult
		err error
	)
	switch mode {
	case "serve":
		return serveChild(args)
	case "stdio":
		return stdioChild(ctx)
	case "catalog-floor":
		res, err = catalogFloor(ctx, args[0])
	case "catalog-bare":
		res, err = catalogBare(ctx, args[0])
	case "catalog-host":
		res, err = catalogHost(ctx, args[0])
	case "catalog-host-cached":
		res, err = catalogHostCached(ctx, args[0])
	case "many-bare":
		res, err = manyBare(ctx, args)
	case "many-host":
		res, err = manyHost(ctx, args)
	default:
		return fmt.Errorf("unknown mode")
	}
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

// serveChild serves bench servers until stdin closes, printing one URL a
// line and then "ready".
func serveChild(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	tools := fs.Int("tools", 0, "catalog tools besides echo")
	servers := fs.Int("servers", 1, "number of servers")
	minLat := fs.Duration("latency-min", 0, "latency of the first server's answers")
	maxLat := fs.Duration("latency-max", 0, "latency of the last server's answers")
	if err := fs.Parse(args); err != nil {
		return err
	}
	s := NewServer(*tools)
	for i := range *servers {
		lat := *minLat
		if *servers > 1 {
			lat += (*maxLat - *minLat) * time.Duration(i) / time.Duration(*servers-1)
		}
		bs, err := Serve(s, lat)
		if err != nil {
			return err
		}
		fmt.Println(bs.URL)
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	return nil
}

// A child is a running child process of the bench binary.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *tail
}

// startServers starts a serve child and returns it with its URLs.
func startServers(self string, args ...string) (*child, []string, error) {
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), childEnv+"=serve")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	c := &child{cmd: cmd, stdin: stdin, stderr: &tail{}}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("bench servers: %w", err)
	}
	var urls []string
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if lines.Text() == "ready" {
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return c, urls, nil
		}
		urls = append(urls, lines.Text())
	}
	c.stop()
	return nil, nil, fmt.Errorf("bench servers exited before ready: %s", c.stderr)
}

// stop closes the child's stdin and waits for it.
func (c *child) stop() {
	c.stdin.Close()
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

// measure runs a measuring child to its end and returns its result and
// peak RSS.
func measure(self, mode string, args ...string) (childResult, int64, error) {
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	var out strings.Builder
	stderr := &tail{}
	cmd.Stdout, cmd.Stderr = &out, stderr
	if err := cmd.Run(); err != nil {
		return childResult{}, 0, fmt.Errorf("bench child %s: %w: %s", mode, err, stderr)
	}
	var res childResult
	if err := json.Unmarshal([]byte(out.String()), &res); err != nil {
		return childResult{}, 0, fmt.Errorf("bench child %s: %q: %w", mode, out.String(), err)
	}
	return res, peakRSS(cmd.ProcessState), nil
}
