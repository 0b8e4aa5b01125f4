#!/usr/bin/env bash
# Runs every fuzz target briefly (FUZZTIME inputs each, default 20000x, some
# seconds): the seed corpora already run under go test; this looks a little
# further on every run. A finding fails the run and is written to the
# package's testdata/fuzz for go test to replay. The budget is a count, not a
# duration: when a duration runs out while the fuzzer minimizes a new input,
# go test fails with "context deadline exceeded", which is no finding.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-20000x}
targets=(
  "./termsafe FuzzSanitize"
  "./runtime/config FuzzLoad"
  "./runtime/session FuzzStdioLineFilter"
  "./runtime/session FuzzSSEGuard"
  "./runtime/session FuzzIDScanner"
  "./runtime/session FuzzAnswerMatch"
  "./chat FuzzMarkdown"
  "./runtime/adapter FuzzSchema"
)
for t in "${targets[@]}"; do
  read -r pkg name <<<"$t"
  echo "fuzz: $name in $pkg for $fuzztime"
  go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -parallel 2 "$pkg"
done
