package protocol

// ToolSearchInfo says that the model is not offered the whole tool
// catalog: it exceeds the tool-search budget (the global config's
// "tool_search"), so the model gets a search tool (Tool) and, from then
// on, the tools it has found. Every tool stays behind the permission gate
// as before; the search itself only reads the runtime's own catalog and
// needs no confirm.
type ToolSearchInfo struct {
	// Tool is the search tool's public name: "mcp_tool_search".
	Tool string `json:"tool"`
	// Tools and Bytes measure the catalog behind it: its MCP tools, and
	// the bytes of their names, descriptions and input schemas.
	Tools int `json:"tools"`
	Bytes int `json:"bytes"`
	// MaxTools and MaxBytes are the budget it exceeds.
	MaxTools int `json:"max_tools"`
	MaxBytes int `json:"max_bytes"`
}
