package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// rawVersion is the protocol version the raw HTTP client speaks.
const rawVersion = "2025-11-25"

// A rawClient is the floor: plain net/http JSON-RPC POSTs to a bench
// server after a hand-made handshake, each answer read whole and checked
// for a string, nothing decoded.
type rawClient struct {
	url    string
	client *http.Client
	sid    string
}

// newRawClient makes the handshake with the server at url.
func newRawClient(ctx context.Context, url string) (*rawClient, error) {
	c := &rawClient{url: url, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + rawVersion + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	if _, err := c.post(ctx, []byte(init), `"result"`); err != nil {
		return nil, fmt.Errorf("raw HTTP: initialize: %w", err)
	}
	if _, err := c.post(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), ""); err != nil {
		return nil, fmt.Errorf("raw HTTP: initialized: %w", err)
	}
	return c, nil
}

// post sends body and returns the answer, which must contain want.
func (c *rawClient) post(ctx context.Context, body []byte, want string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.sid != "" {
		req.Header.Set("Mcp-Session-Id", c.sid)
		req.Header.Set("Mcp-Protocol-Version", rawVersion)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		c.sid = sid
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 || !strings.Contains(string(b), want) {
		return nil, fmt.Errorf("raw HTTP: status %d: %.200s", resp.StatusCode, b)
	}
	return b, nil
}

// close lets go of the client's connections.
func (c *rawClient) close() { c.client.CloseIdleConnections() }

// catalogFloor lists every tool with the raw client, one page after the
// other, taking each page's nextCursor from its bytes (go-sdk servers
// write it before the tools, base64 without escapes) and counting the
// tools by their inputSchema members: what the server's pages cost a
// client that does nothing with them.
func catalogFloor(ctx context.Context, url string) (childResult, error) {
	start := time.Now()
	c, err := newRawClient(ctx, url)
	if err != nil {
		return childResult{}, err
	}
	defer c.close()
	tools, params := 0, `{}`
	for id := 1; ; id++ {
		page, err := c.post(ctx, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":%s}`, id, params), `"tools"`)
		if err != nil {
			return childResult{}, fmt.Errorf("raw HTTP: tools/list: %w", err)
		}
		tools += bytes.Count(page, []byte(`"inputSchema":`))
		_, rest, found := bytes.Cut(page, []byte(`"nextCursor":"`))
		if !found {
			return childResult{NS: int64(time.Since(start)), Tools: tools}, nil
		}
		cursor, _, _ := bytes.Cut(rest, []byte{'"'})
		params = `{"cursor":"` + string(cursor) + `"}`
	}
}
