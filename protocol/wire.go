package protocol

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// looksLikeResponse reports whether line is a JSON object without a method,
// that is, a response (or garbage shaped like one).
func looksLikeResponse(line []byte) bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(line, &probe) != nil {
		return false
	}
	_, hasMethod := probe["method"]
	_, hasResult := probe["result"]
	_, hasError := probe["error"]
	return !hasMethod && (hasResult || hasError)
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// salvageID returns the id of a message that failed to decode, where it
// can be read, so that the peer can match the error to its request.
func salvageID(line []byte) jsonrpc.ID {
	var probe struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(line, &probe) != nil {
		return jsonrpc.ID{}
	}
	id, err := jsonrpc.MakeID(probe.ID)
	if err != nil {
		return jsonrpc.ID{}
	}
	return id
}
