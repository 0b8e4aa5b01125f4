package bench

import (
	"context"
	"fmt"
	"os"
	"time"

	hostrt "github.com/mcp-host/mcp-host/runtime"
	"github.com/mcp-host/mcp-host/runtime/adapter"
	"github.com/mcp-host/mcp-host/runtime/config"
	"github.com/mcp-host/mcp-host/runtime/listcache"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// catalogBare connects a bare go-sdk client and lists every tool.
func catalogBare(ctx context.Context, url string) (childResult, error) {
	start := time.Now()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		return childResult{}, fmt.Errorf("bare go-sdk: connect %s: %w", url, err)
	}
	defer cs.Close()
	// Kept, as a client keeps the catalog it offers.
	var tools []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return childResult{}, fmt.Errorf("bare go-sdk: list tools: %w", err)
		}
		tools = append(tools, t)
	}
	return childResult{NS: int64(time.Since(start)), Tools: len(tools)}, nil
}

// catalogHost connects mcp-host's manager to the server and adapts its
// catalog as a run does (Manager.Catalog).
func catalogHost(ctx context.Context, url string) (childResult, error) {
	return catalogHostWith(ctx, url, hostrt.ManagerOptions{})
}

// catalogHostCached is catalogHost with the user's list cache in the
// directory $MCPHOST_BENCH_CACHE, which an earlier run filled: the catalog
// of a server whose list is still fresh comes from there.
func catalogHostCached(ctx context.Context, url string) (childResult, error) {
	return catalogHostWith(ctx, url, hostrt.ManagerOptions{ToolsCache: &listcache.Dir{Path: os.Getenv(cacheEnv)}})
}

// cacheEnv names the list-cache directory of the catalog-host-cached child.
const cacheEnv = "MCPHOST_BENCH_CACHE"

// catalogHostWith is catalogHost with o, given the adapter options of the
// run as host serve gives them.
func catalogHostWith(ctx context.Context, url string, o hostrt.ManagerOptions) (childResult, error) {
	o.Adapter = &adapter.Options{}
	start := time.Now()
	m := hostrt.NewManager(o)
	defer m.Close()
	m.Apply([]config.ServerEntry{{ID: "bench", Source: config.SourceGlobal, DefinedIn: config.SourceGlobal,
		Config: config.ServerConfig{Transport: "http", URL: url}}})
	sts, err := m.WaitSettled(ctx, "bench")
	if err != nil || len(sts) != 1 || sts[0].State != hostrt.StateReady {
		return childResult{}, fmt.Errorf("mcp-host: server not ready: %v %+v", err, sts)
	}
	snap, _ := m.Catalog(adapter.Options{}, nil)
	n := len(snap.Tools())
	return childResult{NS: int64(time.Since(start)), Tools: n}, nil
}

// manyBare connects a bare go-sdk client to every server at once and lists
// each one's tools; it returns when all are done.
func manyBare(ctx context.Context, urls []string) (childResult, error) {
	start := time.Now()
	errs := make(chan error, len(urls))
	for _, u := range urls {
		go func() {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "1"}, nil).
				Connect(ctx, &mcp.StreamableClientTransport{Endpoint: u}, nil)
			if err != nil {
				errs <- fmt.Errorf("bare go-sdk: connect %s: %w", u, err)
				return
			}
			defer cs.Close()
			_, err = cs.ListTools(ctx, nil)
			errs <- err
		}()
	}
	for range urls {
		if err := <-errs; err != nil {
			return childResult{}, err
		}
	}
	return childResult{NS: int64(time.Since(start))}, nil
}

// manyHost applies every server to one manager and waits until all are
// ready.
func manyHost(ctx context.Context, urls []string) (childResult, error) {
	start := time.Now()
	m := hostrt.NewManager(hostrt.ManagerOptions{})
	defer m.Close()
	entries := make([]config.ServerEntry, len(urls))
	for i, u := range urls {
		entries[i] = config.ServerEntry{ID: fmt.Sprintf("s%02d", i), Source: config.SourceGlobal, DefinedIn: config.SourceGlobal,
			Config: config.ServerConfig{Transport: "http", URL: u}}
	}
	m.Apply(entries)
	sts, err := m.WaitSettled(ctx)
	if err != nil {
		return childResult{}, fmt.Errorf("mcp-host: %w", err)
	}
	for _, st := range sts {
		if st.State != hostrt.StateReady {
			return childResult{}, fmt.Errorf("mcp-host: %s: %s: %s", st.ID, st.State, st.LastError)
		}
	}
	return childResult{NS: int64(time.Since(start))}, nil
}
