#!/usr/bin/env bash
# `make release`: the host binary for linux, darwin and windows on amd64
# and arm64, each in an archive (tar.gz; zip for Windows) with the README,
# and dist/SHA256SUMS over the archives. Plain `go build` plus tar, zip and
# sha256sum rather than goreleaser: nothing to install, and every step is a
# command a maintainer can run by hand (docs/DESIGN.md). The version, the
# commit and the build date are stamped into `host --version` with
# -ldflags -X. VERSION overrides the version (default: git describe);
# PLATFORMS overrides the list ("linux/amd64 darwin/arm64").
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo 0.1.0-dev)}
COMMIT=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
DATE=${DATE:-$(date -u +%Y-%m-%dT%H:%M:%SZ)}
PLATFORMS=${PLATFORMS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"}
LDFLAGS="-s -w -X main.version=$VERSION -X main.commit=$COMMIT -X main.date=$DATE"

rm -rf dist
mkdir -p dist
for platform in $PLATFORMS; do
  os=${platform%/*} arch=${platform#*/}
  name="host_${VERSION}_${os}_${arch}"
  dir="dist/$name"
  exe=host
  [ "$os" = windows ] && exe=host.exe
  echo "release: $name"
  mkdir -p "$dir"
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "$LDFLAGS" -o "$dir/$exe" ./cmd/host
  # Linux's sandbox helper, started beside host (docs/SANDBOX.md).
  [ "$os" = linux ] && CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "-s -w" -o "$dir/host-confine" ./cmd/host-confine
  cp README.md "$dir/"
  if [ "$os" = windows ]; then
    (cd dist && zip -qr "$name.zip" "$name")
  else
    tar -C dist -czf "dist/$name.tar.gz" "$name"
  fi
  rm -rf "$dir"
done
(cd dist && sha256sum host_* > SHA256SUMS)
echo "release: dist/SHA256SUMS"
cat dist/SHA256SUMS
