#!/usr/bin/env bash
# `make release`: the host binary for linux, darwin and windows on amd64
# and arm64, each in an archive (tar.gz; zip for Windows) with the README and docs/,
# the TypeScript client's npm tarball when npm is installed, and
# dist/SHA256SUMS over them all. Plain `go build` plus tar, zip and
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
  # The README and the docs it links to (relative links stay whole).
  cp README.md "$dir/"
  mkdir -p "$dir/docs" && cp docs/*.md "$dir/docs/"
  if [ "$os" = windows ]; then
    (cd dist && zip -qr "$name.zip" "$name")
  else
    tar -C dist -czf "dist/$name.tar.gz" "$name"
  fi
  rm -rf "$dir"
done

# The TypeScript client, @mcp-host/client, as the tarball npm installs
# (`npm install ./mcp-host-client-<version>.tgz`; clients/typescript/README.md),
# made by npm pack from the files its package.json lists. Its version is the
# package's own (package.json), not the host's. Without npm (or when NPM
# names a binary that is not there) there is no tarball, and the release
# says so.
NPM=${NPM:-npm}
client=()
if command -v "$NPM" >/dev/null 2>&1; then
  echo "release: npm pack clients/typescript"
  dist=$PWD/dist
  (cd clients/typescript && "$NPM" pack --ignore-scripts --loglevel=warn --pack-destination "$dist" >/dev/null)
  tgz=$(cd dist && ls mcp-host-client-*.tgz 2>/dev/null) || { echo "release: npm pack made no dist/mcp-host-client-*.tgz" >&2; exit 1; }
  client=("$tgz")
else
  echo "release: $NPM not found: no npm tarball of the TypeScript client (clients/typescript) in dist/; install npm and run make release again to have it"
fi
(cd dist && sha256sum host_* "${client[@]}" > SHA256SUMS)
echo "release: dist/SHA256SUMS"
cat dist/SHA256SUMS
