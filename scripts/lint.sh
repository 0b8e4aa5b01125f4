#!/usr/bin/env bash
# The static checks (`make lint`, and the first steps of `make test`):
# gofmt, go vet (here, and cross-compiled for the desktop platforms users
# run: Windows and macOS, every package and test binary) and staticcheck
# over every package. staticcheck runs at a
# pinned release through `go run`, so nothing needs installing; raise the
# version on purpose, not by accident.
set -euo pipefail
cd "$(dirname "$0")/.."

STATICCHECK=honnef.co/go/tools/cmd/staticcheck@v0.8.2 # 2026.2.2

start=$SECONDS
step() { echo "lint: $* ($((SECONDS - start))s)"; }

step "gofmt"
unformatted=$(find . \( -path './.*' -o -name node_modules -o -name testdata \) -prune -o -name '*.go' -print | xargs -r gofmt -l)
if [ -n "$unformatted" ]; then
  echo "lint: gofmt -l lists files that are not gofmt'd (run gofmt -w on them):" >&2
  echo "$unformatted" >&2
  exit 1
fi

step "go vet ./..."
go vet ./...

# Code that builds only on Linux is a bug: compile and vet every package and
# test binary for Windows and macOS too.
for platform in windows/amd64 windows/arm64 darwin/arm64 darwin/amd64; do
  step "go vet ./... for $platform"
  GOOS=${platform%/*} GOARCH=${platform#*/} go vet ./...
done

step "staticcheck ./..."
go run "$STATICCHECK" ./...
