#!/usr/bin/env bash
# Runs every fuzz target of the module (found below, not listed by hand)
# briefly (FUZZTIME inputs each, default 20000x, some seconds): the seed
# corpora already run under go test; this looks a little
# further on every run. A finding fails the run and is written to the
# package's testdata/fuzz for go test to replay. The budget is a count, not a
# duration: when a duration runs out while the fuzzer minimizes a new input,
# go test fails with "context deadline exceeded", which is no finding.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-20000x}
# Every Fuzz* target of the module, found here rather than listed by hand
# (a new or renamed target runs without anyone remembering this file):
# "dir name" for each `func FuzzX(f *testing.F)` in a _test.go file,
# outside node_modules and dot directories.
mapfile -t targets < <(
  find . \( -name node_modules -o -name '.?*' \) -prune -o -name '*_test.go' -print0 |
    xargs -0 grep -HoE '^func Fuzz[A-Za-z0-9_]*\(' |
    sed -E 's#^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\($#\1 \2#' |
    sort -u
)
if [ "${#targets[@]}" -eq 0 ]; then
  echo "fuzz: no Fuzz* targets found; the search is broken" >&2
  exit 1
fi
start=$SECONDS
echo "fuzz: ${#targets[@]} targets"
for t in "${targets[@]}"; do
  read -r pkg name <<<"$t"
  echo "fuzz: $name in $pkg for $fuzztime ($((SECONDS - start))s)"
  go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -parallel 2 "$pkg"
done
echo "fuzz: done ($((SECONDS - start))s)"
