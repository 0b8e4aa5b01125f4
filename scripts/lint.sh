#!/usr/bin/env bash
# The static checks (`make lint`, and the first steps of `make test`):
# gofmt, go mod tidy changing nothing, go vet (here, and go vet's analyzers
# for the desktop platforms users run, Windows and macOS on amd64 and arm64:
# every package and test binary, through scripts/crossvet) and staticcheck
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

step "go mod tidy leaves go.mod and go.sum as they are"
tidy=$(mktemp -d)
trap 'rm -rf "$tidy"' EXIT
cp go.mod go.sum "$tidy/"
go mod tidy
if ! cmp -s go.mod "$tidy/go.mod" || ! cmp -s go.sum "$tidy/go.sum"; then
  diff -u "$tidy/go.mod" go.mod >&2 || true
  cp "$tidy/go.mod" "$tidy/go.sum" .
  echo "lint: go mod tidy changes go.mod or go.sum (the diff is above): run go mod tidy and commit the result" >&2
  exit 1
fi

step "go vet ./..."
go vet ./...

# Code that builds only on Linux is a bug: vet every package and test
# binary for Windows and macOS too, on both architectures each. go vet
# would compile the whole dependency tree, the standard library included,
# for each platform to type-check against it (with empty caches 46 to 49 s
# per platform on two cores); scripts/crossvet runs go vet's own analyzers
# over the same packages type-checked from source, which needs no
# compiler (see its doc comment).
step "build and vet scripts/crossvet (a module of its own: golang.org/x/tools)"
(cd scripts/crossvet && go vet . && go build -o "$tidy/crossvet" .)
for platform in windows/amd64 windows/arm64 darwin/arm64 darwin/amd64; do
  step "go vet's analyzers over ./... for $platform (scripts/crossvet)"
  GOOS=${platform%/*} GOARCH=${platform#*/} "$tidy/crossvet" ./...
done

step "staticcheck ./..."
go run "$STATICCHECK" ./...
