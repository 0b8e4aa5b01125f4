#!/usr/bin/env bash
# The static checks (`make lint`, and the first steps of `make test`):
# gofmt, go mod tidy changing nothing, go vet (here, and cross-compiled for the desktop platforms users
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

# Code that builds only on Linux is a bug: compile and vet every package and
# test binary for Windows and macOS too. Each OS is vetted on its first
# architecture (windows/amd64, darwin/arm64) and on the second (arm64,
# amd64) only when some package of the module has other files there: both
# are 64-bit little-endian, the module has no architecture-specific file
# today, and vetting the twin compiled the whole dependency tree once more
# (86 to 172 s each with empty caches) to check the very same files. go
# list compares the file sets (no compilation); a file such as
# foo_arm64.go or a //go:build arm64 line brings the twin's vet back. What
# this gives up: a dependency's API that differs between the two
# architectures is type-checked against one (the x/sys calls the module
# makes have the same types on both).
# shellcheck source=scripts/cross.sh
. scripts/cross.sh # CROSS_GCFLAGS: no optimisation for the cross-vets' compilation
files='{{.ImportPath}} {{.GoFiles}} {{.CgoFiles}} {{.TestGoFiles}} {{.XTestGoFiles}} {{.EmbedFiles}} {{.TestEmbedFiles}} {{.XTestEmbedFiles}}'
for platforms in "windows amd64 arm64" "darwin arm64 amd64"; do
  read -r goos first twin <<<"$platforms"
  step "go vet ./... for $goos/$first"
  GOOS=$goos GOARCH=$first go vet -gcflags="$CROSS_GCFLAGS" ./...
  if cmp -s <(GOOS=$goos GOARCH=$first go list -f "$files" ./...) <(GOOS=$goos GOARCH=$twin go list -f "$files" ./...); then
    step "$goos/$twin: every package has the files of $goos/$first (go list), vetted there"
  else
    step "go vet ./... for $goos/$twin (some package's files differ from $goos/$first's)"
    GOOS=$goos GOARCH=$twin go vet -gcflags="$CROSS_GCFLAGS" ./...
  fi
done

step "staticcheck ./..."
go run "$STATICCHECK" ./...
