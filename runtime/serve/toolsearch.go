package serve

import (
	"github.com/mcp-host/mcp-host/protocol"
	"github.com/mcp-host/mcp-host/runtime/agentrun"
	"github.com/mcp-host/mcp-host/runtime/config"
)

// toolSearch keeps the global config's tool-search budget for the agent,
// which is created at initialize, after the first load.
type toolSearch struct {
	budget config.ToolSearch
}

// setToolSearch records the budget of a (re)loaded configuration and hands
// it to the agent, when there is one: runs started from now on use it.
func (s *service) setToolSearch(b config.ToolSearch) {
	s.mu.Lock()
	s.ts.budget = b
	agent := s.agent
	s.mu.Unlock()
	if agent != nil {
		agent.SetToolSearch(toolSearchOptions(b))
	}
}

// toolSearchOptions returns the last loaded budget in the agent's terms.
func (s *service) toolSearchOptions() agentrun.ToolSearchOptions {
	s.mu.Lock()
	defer s.mu.Unlock()
	return toolSearchOptions(s.ts.budget)
}

func toolSearchOptions(b config.ToolSearch) agentrun.ToolSearchOptions {
	return agentrun.ToolSearchOptions{MaxTools: b.MaxTools, MaxBytes: b.MaxBytes}
}

// wireToolSearch is a run's search mode as the protocol says it; nil when
// the catalog is offered whole.
func wireToolSearch(info *agentrun.ToolSearchInfo) *protocol.ToolSearchInfo {
	if info == nil {
		return nil
	}
	return &protocol.ToolSearchInfo{Tool: info.Tool, Tools: info.Tools, Bytes: info.Bytes, MaxTools: info.MaxTools, MaxBytes: info.MaxBytes}
}
