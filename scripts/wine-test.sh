#!/usr/bin/env bash
# Runs the Windows unit tests that can run on Linux under Wine (Debian's
# wine64, installed by scripts/deps.sh): tokenstore (LockFileEx locking,
# chunked records in Wine's Credential Manager through go-keyring, paths
# under %AppData%) and the stdio
# server's Windows paths: runtime/process (npx-style .cmd resolution and
# cmd.exe quoting, the environment allowlist, CREATE_NO_WINDOW, a started
# child's environment) and runtime/session over it (the Job Object, the
# platform-neutral stdio tests).
# `make test` runs it after the Linux suite (scripts/test.sh).
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

# Tests of runtime/process and runtime/session that mean something on
# Windows; the rest assume unix processes (sh, /proc) or are covered on
# Linux.
process_tests='^(TestLookPath|TestEnvValue|TestBatchCommand|TestIsBatch|TestPrepare|TestEnviron|TestNamesFor|TestStart)'
session_tests='^(TestStdioCommand|TestStdioCloseEndsTheJob|TestStdioNonJSON|TestStdioEnvDirAndStderr|TestStdioCrashIsReported|TestStdioBannerOnStdout|TestStdioRequestIDs|TestStdioEnvironmentIsAllowlisted|TestCallOverHTTPAndStdio|TestLineFilter)'

# The Credential Manager test writes to the vault: here, the prefix's.
export MCP_HOST_TEST_WINCRED=1
flags=(-count=1 -tags wine -ldflags=-checklinkname=0 -exec "$wine" -timeout 5m)
step "tokenstore under wine"
GOOS=windows GOARCH=amd64 timeout 600 go test "${flags[@]}" ./tokenstore/ "$@"
step "runtime/process under wine"
GOOS=windows GOARCH=amd64 timeout 600 go test "${flags[@]}" -run "$process_tests" ./runtime/process/ "$@"
step "runtime/session under wine"
GOOS=windows GOARCH=amd64 timeout 600 go test "${flags[@]}" -run "$session_tests" ./runtime/session/ "$@"
step "done"
