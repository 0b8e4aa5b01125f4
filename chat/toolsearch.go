package chat

import (
	"fmt"

	"github.com/mcp-host/mcp-host/protocol"
)

// noteToolSearch records whether the run that just started is in search
// mode (its running status says so): the catalog exceeds the runtime's
// budget and the model searches it instead of seeing every tool. The
// status line shows it until the next run says otherwise.
func (m *Model) noteToolSearch(p protocol.RunStatusParams) {
	if p.Status == protocol.RunRunning {
		m.toolSearch = p.ToolSearch
	}
}

// toolSearchLabel is the status line's note of search mode, or "".
func (m *Model) toolSearchLabel() string {
	if m.toolSearch == nil {
		return ""
	}
	return fmt.Sprintf("tool search: %d tools", m.toolSearch.Tools)
}
