// Command floodpeer is an MCP server over Streamable HTTP (go-sdk) for
// e2e/flood_test.go, in a process of its own so that its work is not the
// race-built test binary's: its "storm" tool sends, as 10,000 a second,
// stormCount resources/updated of mem://watched and a tools/list_changed
// every fifth time (it adds and removes a tool); "blinker" changes its
// tool list every 20 ms for two seconds; "echo" answers at once. GET
// /lists says how many tools/list requests it got. It listens on -addr.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const stormCount = 10000

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "loopback address to listen on")
	flag.Parse()
	var lists atomic.Int64
	srv := mcp.NewServer(&mcp.Implementation{Name: "flood-peer", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				lists.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	srv.AddResource(&mcp.Resource{URI: "mem://watched", Name: "watched"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "mem://watched", Text: "x"}}}, nil
	})
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		return text("echo"), nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "storm"}, func(ctx context.Context, req *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
		began := time.Now()
		for i := range stormCount {
			if i%100 == 0 { // 10,000 a second: a hundred every 10 ms
				time.Sleep(time.Until(began.Add(time.Duration(i) * time.Millisecond / 10)))
			}
			_ = srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "mem://watched"})
			if i%5 == 0 {
				if i%10 == 0 {
					mcp.AddTool(srv, &mcp.Tool{Name: "blink"}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
						return text("blink"), nil, nil
					})
				} else {
					srv.RemoveTools("blink")
				}
			}
		}
		return text("storm done"), nil, nil
	})
	// "blinker" changes the list every 20 ms for two seconds: past the
	// go-sdk's own debounce of list_changed, a hundred notifications.
	mcp.AddTool(srv, &mcp.Tool{Name: "blinker"}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		for i := range 100 {
			if i%2 == 0 {
				mcp.AddTool(srv, &mcp.Tool{Name: "blink"}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
					return text("blink"), nil, nil
				})
			} else {
				srv.RemoveTools("blink")
			}
			time.Sleep(20 * time.Millisecond)
		}
		return text("blinked"), nil, nil
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	mux.HandleFunc("/lists", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, lists.Load()) })
	log.Fatal(http.ListenAndServe(*addr, mux))
}
