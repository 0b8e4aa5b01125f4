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
# Two targets at a time (FUZZ_LANES), each with two workers: one target
# alone left a core idle while it linked its binary and gathered its
# baseline coverage, and after go test ends (make test) these targets are
# what is left to run. Each target's output is kept and printed whole, in
# the order above; a failure fails the run once every target has run.
lanes=${FUZZ_LANES:-2}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
start=$SECONDS
echo "fuzz: ${#targets[@]} targets, $lanes at a time"
pids=()
for i in "${!targets[@]}"; do
  read -r pkg name <<<"${targets[$i]}"
  while [ "$(jobs -rp | wc -l)" -ge "$lanes" ]; do
    wait -n || true
  done
  (
    echo "fuzz: $name in $pkg for $fuzztime (started at $((SECONDS - start))s)"
    go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -parallel 2 "$pkg"
  ) >"$logs/$i" 2>&1 &
  pids[i]=$!
done
failed=0
for i in "${!targets[@]}"; do
  rc=0
  wait "${pids[i]}" || rc=$?
  cat "$logs/$i"
  if [ "$rc" -ne 0 ]; then
    echo "fuzz: FAILED: ${targets[$i]} (exit $rc)" >&2
    failed=1
  fi
done
echo "fuzz: done ($((SECONDS - start))s)"
exit "$failed"
