package protocol_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"
)

// A request is handled after the notifications the peer sent before it:
// a UI asked a question shows it after the text and tool calls it is
// about (the demo printed the permission prompt inside the answer's
// first words).
func TestRequestWaitsForEarlierNotifications(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	h := func(_ context.Context, method string, params json.RawMessage) (any, error) {
		if method == "note" {
			time.Sleep(5 * time.Millisecond) // a slow terminal
			mu.Lock()
			seen = append(seen, string(params))
			mu.Unlock()
			return nil, nil
		}
		mu.Lock()
		n := len(seen)
		mu.Unlock()
		return map[string]int{"notes_seen": n}, nil
	}
	send, recv := rawPeer(t, h, 0)
	for i := range 10 {
		send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"note","params":%d}`+"\n", i))
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"ask","params":{}}` + "\n")
	got := recv()
	res, _ := got["result"].(map[string]any)
	if res["notes_seen"] != float64(10) {
		t.Errorf("the request was handled after %v of the 10 notifications sent before it: %v", res["notes_seen"], got)
	}
}
