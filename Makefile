# mcp-host. `make demo` sets up and runs the main job; `make test` runs the
# whole test suite (it installs its own peers first); `make lint` only its
# static checks (gofmt, go vet, staticcheck).

.PHONY: build demo test deps lint bench protocol release

build:
	go build -o bin/host ./cmd/host
	CGO_ENABLED=0 go build -o bin/host-confine ./cmd/host-confine

deps:
	bash scripts/deps.sh

# The embedded demo: an authorization server, a protected MCP server and a
# local stdio server on loopback, and the real runtime against them. It needs
# nothing but Go (no network, no API key). DEMO_FLAGS=--auto-approve runs it
# unattended.
demo: build
	./bin/host demo $(DEMO_FLAGS)

test:
	bash scripts/test.sh

lint:
	bash scripts/lint.sh

# The UI protocol's schema (protocol/schema/schema.json), the TypeScript
# client (clients/typescript) and host web's protocol module
# (web/static/protocol.js), regenerated from the Go types in protocol/:
# run it after changing them, and after a rebase that brings changes to them.
protocol:
	go run ./cmd/host protocol generate

# The published benchmark (docs/PERFORMANCE.md): mcp-host against the raw
# HTTP floor, the bare go-sdk and the TypeScript SDK, in one run, printed
# as a Markdown table of ratios. A few minutes; not part of make test.
# bench/node holds the npm servers only the bench uses (make test does not
# install them). BENCH_FLAGS='-only soak' runs the soak alone (minutes;
# '-only soak -soak-scale 50' for hours), which a plain make bench leaves out.
bench:
	cd bench/node && npm ci --no-audit --no-fund --ignore-scripts
	go run ./bench/cmd/mcpbench $(BENCH_FLAGS)

# Archives of the host binary for linux, darwin and windows on amd64 and
# arm64, with dist/SHA256SUMS; the version, commit and date are stamped
# into host --version (scripts/release.sh; VERSION=v1.2.3 make release).
release:
	bash scripts/release.sh
