module github.com/mcp-host/mcp-host

go 1.26.0

require (
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/pkg/browser v0.0.0-20240102092130-5ac0b6a4141c
	github.com/zalando/go-keyring v0.2.8
	golang.org/x/oauth2 v0.35.0
	golang.org/x/term v0.47.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/danieljoos/wincred v1.2.3 // indirect
	github.com/godbus/dbus/v5 v5.2.2 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/sync v0.20.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)
