module github.com/mcp-host/mcp-host

go 1.25.0

require github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
