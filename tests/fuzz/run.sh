#!/bin/sh
# SPDX-License-Identifier: ISC
# Build the libFuzzer targets with clang, ASan and UBSan in build-fuzz/ and
# run each for a bounded time (default 20 s):
#
#   sh tests/fuzz/run.sh [SECONDS] [TARGET...]      TARGET: request status units config
#
# A crash fails the run; the input is saved as
# build-fuzz/tests/fuzz/fuzz-artifacts/TARGET-crash-HASH. Reproduce it with
# build-fuzz/tests/fuzz/fuzz-TARGET FILE, then add the file to
# tests/fuzz/corpus/TARGET/ so that every build replays it.
set -eu
cd -- "$(dirname -- "$0")/../.."
secs=${1:-20}
[ $# -eq 0 ] || shift
case $secs in
  '' | *[!0-9]*)
    echo "usage: sh tests/fuzz/run.sh [SECONDS] [TARGET...]" >&2
    exit 2
    ;;
esac
opts="-Dfuzz=true -Dfuzz_seconds=$secs -Dtests=false -Dman=disabled -Db_sanitize=address,undefined -Db_lundef=false"
if [ -f build-fuzz/meson-private/coredata.dat ]; then
  # shellcheck disable=SC2086 # $opts is a list of words
  meson setup --reconfigure $opts build-fuzz >/dev/null
else
  # shellcheck disable=SC2086
  CC=clang meson setup $opts build-fuzz >/dev/null
fi
meson compile -C build-fuzz >/dev/null
# shellcheck disable=SC2086 # no target given: the whole suite
exec meson test -C build-fuzz --suite fuzzing --print-errorlogs "$@"
