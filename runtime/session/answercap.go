package session

import (
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// answerCaps are the answer caps (hostfetch.WithAnswerCap) of a stdio
// session's calls in flight, by the raw JSON of their ids, for the line
// filter: over HTTP each answer has its own response and the guard reads
// the cap from the request's context (guardRoundTripper.capFor); over
// stdio the answers share one stream, and the filter learns which call a
// line answers only from its id.
type answerCaps struct {
	mu   sync.Mutex
	caps map[string]int
}

// rawID is the JSON of id as the SDK writes it.
func rawID(id jsonrpc.ID) string {
	b, _ := json.Marshal(id.Raw())
	return string(b)
}

func (a *answerCaps) add(id jsonrpc.ID, n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.caps == nil {
		a.caps = map[string]int{}
	}
	a.caps[rawID(id)] = n
}

func (a *answerCaps) remove(id jsonrpc.ID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.caps) > 0 {
		delete(a.caps, rawID(id))
	}
}

// smallest returns the smallest cap in flight, or 0 if none.
func (a *answerCaps) smallest() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, c := range a.caps {
		if n == 0 || c < n {
			n = c
		}
	}
	return n
}

// of returns the cap of the call whose raw id is id, or 0 if it has none.
func (a *answerCaps) of(id []byte) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.caps[string(id)]
}
