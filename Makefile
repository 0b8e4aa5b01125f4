# mcp-host. `make demo` sets up and runs the main job; `make test` runs the
# whole test suite (it installs its own peers first).

.PHONY: build demo test deps

build:
	go build -o bin/host ./cmd/host

deps:
	bash scripts/deps.sh

# Until `host demo` exists: connect to the bundled example server and list
# its tools through the real runtime.
demo: deps build
	MCP_HOST_CONFIG=examples/config.json ./bin/host mcp test everything
	MCP_HOST_CONFIG=examples/config.json ./bin/host mcp tools everything

test:
	bash scripts/test.sh
