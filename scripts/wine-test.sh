#!/usr/bin/env bash
# Runs the Windows unit tests that can run on Linux under Wine (Debian's
# wine64, installed by scripts/deps.sh): tokenstore (LockFileEx locking,
# chunked records in Wine's Credential Manager through go-keyring, paths
# under %AppData%) and the stdio
# server's Windows paths: runtime/process (npx-style .cmd resolution and
# cmd.exe quoting, the environment allowlist, CREATE_NO_WINDOW, a started
# child's environment) and runtime/session over it (the Job Object, the
# platform-neutral stdio tests).
# `make test` runs it after the Linux suite (scripts/test.sh), with
# E2E_REQUIRED=1: a machine that cannot run it then fails the suite
# instead of skipping. Each package's run must pass at least a known number
# of tests (run_windows below): a rename that empties a -run selection, or
# tests that start skipping, fail it instead of passing nothing.
#
# Two things Wine 8.0 (bookworm) lacks are bridged, and only for this run:
#   - bcryptprimitives.dll (Go's runtime needs its ProcessPrng to start):
#     scripts/winebcrypt writes a DLL forwarding it to RtlGenRandom;
#   - FileDispositionInformationEx (os.RemoveAll, so every t.TempDir
#     cleanup, fails with "Invalid function"): the test binaries are built
#     with -tags wine, whose wine_windows_test.go files make os.RemoveAll
#     use the fallback Go keeps for older Windows (needs
#     -ldflags=-checklinkname=0).
set -euo pipefail
cd "$(dirname "$0")/.."

start=$SECONDS
step() { echo "wine-test: $* ($((SECONDS - start))s)"; }

if [ "$(uname -m)" != x86_64 ]; then
  if [ "${E2E_REQUIRED:-}" = 1 ]; then
    echo "wine-test: FAILED: E2E_REQUIRED=1 but Debian's wine64 runs windows/amd64 binaries on x86_64 only, this is $(uname -m)" >&2
    exit 1
  fi
  echo "wine-test: SKIPPED: Debian's wine64 runs windows/amd64 binaries on x86_64 only, this is $(uname -m)" >&2
  exit 0
fi
wine=$(command -v wine64 || true)
[ -n "$wine" ] || wine=/usr/lib/wine/wine64 # Debian's wine64 is not on PATH
[ -x "$wine" ] || { echo "wine-test: wine64 not found; scripts/deps.sh installs it" >&2; exit 1; }

export WINEPREFIX=${WINEPREFIX:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/mcp-host-wine}
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" # no Mono/Gecko prompts
dll=$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll
if [ ! -f "$dll" ]; then
  step "wine prefix in $WINEPREFIX"
  timeout 120 "$wine" wineboot --init </dev/null
fi
go run ./scripts/winebcrypt "$dll"
# --prefix-only: make the prefix and stop. make test does that at normal
# priority before the tests start, since this script then runs at nice 19
# beside them, where a first wineboot could outlast its timeout.
if [ "${1:-}" = --prefix-only ]; then
  step "prefix ready"
  exit 0
fi

# Tests of runtime/process and runtime/session that mean something on
# Windows; the rest assume unix processes (sh, /proc) or are covered on
# Linux.
process_tests='^(TestLookPath|TestEnvValue|TestBatchCommand|TestIsBatch|TestPrepare|TestEnviron|TestNamesFor|TestStart)'
session_tests='^(TestStdioCommand|TestStdioCloseEndsTheJob|TestStdioNonJSON|TestStdioEnvDirAndStderr|TestStdioCrashIsReported|TestStdioBannerOnStdout|TestStdioRequestIDs|TestStdioEnvironmentIsAllowlisted|TestCallOverHTTPAndStdio|TestLineFilter)'

# The Credential Manager test writes to the vault: here, the prefix's.
export MCP_HOST_TEST_WINCRED=1
# The test binaries and their windows/amd64 dependencies are compiled
# without optimisation or inlining (-N -l: these tests measure no speed,
# and the compile is about a quarter shorter) and without debug
# information (-dwarf=false, -w: as every build of scripts/test.sh).
flags=(-count=1 -v -tags wine "-ldflags=-checklinkname=0 -w" "-gcflags=all=-N -l -dwarf=false" -exec "$wine" -timeout 5m)

# run_windows PKG MIN [go test args...] runs PKG's tests under wine and
# fails unless they pass and at least MIN top-level tests passed. MIN is
# what the package passes today: lower it only when tests really leave
# the package (and add them where they went).
run_windows() {
  local pkg=$1 min=$2
  shift 2
  step "$pkg under wine"
  local log rc passed
  log=$(mktemp)
  set +e
  GOOS=windows GOARCH=amd64 timeout 600 go test "${flags[@]}" "$pkg" "$@" >"$log" 2>&1
  rc=$?
  set -e
  grep -vE '^=== (RUN|PAUSE|CONT|NAME)' "$log" || true
  passed=$(grep -cE '^--- PASS: ' "$log" || true)
  rm -f "$log"
  if [ "$rc" -ne 0 ]; then
    echo "wine-test: $pkg failed (exit $rc)" >&2
    exit "$rc"
  fi
  if [ "$passed" -lt "$min" ]; then
    echo "wine-test: FAILED: $passed tests of $pkg passed, want at least $min: the -run selection no longer matches them (renamed or moved?), or they skip" >&2
    exit 1
  fi
  echo "wine-test: $passed tests of $pkg passed (at least $min expected)"
}

run_windows ./tokenstore/ 14 "$@"
run_windows ./runtime/process/ 12 -run "$process_tests" "$@"
run_windows ./runtime/session/ 16 -run "$session_tests" "$@"
step "done"
