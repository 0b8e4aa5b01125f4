package runtime

import (
	"errors"
	"strings"
	"testing"
)

// TestLostSessionSaysSo: between a session's end and the status update,
// a call gets the cause, never `server "x" is ready`.
func TestLostSessionSaysSo(t *testing.T) {
	sv := &server{status: Status{ID: "x", State: StateReady}, gone: errors.New("EOF from the server")}
	_, err := sv.liveSession()
	if err == nil || strings.Contains(err.Error(), "is ready") || !strings.Contains(err.Error(), "EOF from the server") {
		t.Errorf("liveSession: %v", err)
	}
}
