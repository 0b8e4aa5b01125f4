# Sourced by scripts/lint.sh and scripts/wine-test.sh: the compiler flags of
# every windows and darwin build they make. The cross-vets compile the
# dependencies without optimisation or inlining: vet reads only their
# types, which -N -l do not change, and with empty caches darwin/arm64's vet
# took 51 s instead of 67. The wine tests build their windows/amd64 test
# binaries with the same flags, so they reuse the vet's compilation (with
# other flags they compiled the dependencies again: 47 s against 9 s for
# runtime/session's test binary). -dwarf=false: no debug information, as
# every build of scripts/test.sh (see there).
CROSS_GCFLAGS='all=-N -l -dwarf=false'
