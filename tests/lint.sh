#!/bin/sh
# SPDX-License-Identifier: ISC
# Static analysis: cppcheck and clang-tidy over every C file of the project
# (src/*/ and tests/), through the build's compile_commands.json. Clean, or
# exit 1 with the findings.
#
#   sh tests/lint.sh [--fast] [BUILDDIR]   (default: build; meson setup it first)
#
# --fast (CI): clang's static analyzer (the clang-analyzer-* checks, some 85%
# of clang-tidy's time) over src/ only; tests/ get every other check.
#
# The checks and why some are off: .clang-tidy (clang-tidy) and
# tests/cppcheck.supp (cppcheck). Prints one "ok"/"not ok" line per tool.
set -u
cd -- "$(dirname -- "$0")/.." || exit 2
fast=
if [ "${1:-}" = --fast ]; then
  fast=1
  shift
fi
build=${1:-build}
if [ ! -f "$build/compile_commands.json" ]; then
  echo "lint: no $build/compile_commands.json (meson setup $build first)" >&2
  exit 2
fi
for tool in cppcheck clang-tidy; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "lint: $tool is not installed" >&2
    exit 2
  fi
done
jobs=$(nproc 2>/dev/null || echo 2)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0

# cppcheck: warnings, style, performance and portability; the POSIX and GNU
# library models so that it knows open, read, pipe2 and friends.
if cppcheck --project="$build/compile_commands.json" --quiet -j "$jobs" \
  --enable=warning,style,performance,portability --library=posix --library=gnu \
  --inline-suppr --suppress=missingIncludeSystem --suppressions-list=tests/cppcheck.supp \
  --error-exitcode=1 >"$out" 2>&1; then
  echo "ok - cppcheck: no finding"
else
  echo "not ok - cppcheck"
  sed 's/^/  /' "$out"
  status=1
fi

# clang-tidy: one process per file, as many at once as there are CPUs. The
# files are the project's own C files, each with its flags from the build.
# proctord's second thread (opener.c) gets concurrency-mt-unsafe, which
# src/daemon/.clang-tidy turns off for the rest of proctord.
files=$(ls src/*/*.c tests/*/*.c)
thread_files=src/daemon/opener.c
# tidy FILES...: clang-tidy on each; with --fast, the analyzer on src/ only.
tidy() {
  if [ -n "$fast" ]; then
    printf '%s\n' "$@" | grep '^src/' | xargs -P "$jobs" -n 1 clang-tidy -p "$build" --quiet &&
      printf '%s\n' "$@" | grep -v '^src/' |
      xargs -P "$jobs" -n 1 clang-tidy -p "$build" --quiet --checks='-clang-analyzer-*'
  else
    printf '%s\n' "$@" | xargs -P "$jobs" -n 1 clang-tidy -p "$build" --quiet
  fi
}
# shellcheck disable=SC2086 # $files is a list of paths without blanks
if tidy $files >"$out" 2>&1 &&
  clang-tidy -p "$build" --quiet --checks=concurrency-mt-unsafe $thread_files >>"$out" 2>&1; then
  echo "ok - clang-tidy${fast:+ (--fast: the analyzer on src/ only)}: no finding in" \
    "$(printf '%s\n' $files | wc -l) files" \
    "(and none of concurrency-mt-unsafe in $thread_files)"
else
  echo "not ok - clang-tidy"
  # The "N warnings generated" chatter is not a finding.
  grep -v -e '^[0-9]* warnings\? generated\.$' -e '^Suppressed [0-9]* warnings' \
    -e '^Use -header-filter' "$out" | sed 's/^/  /'
  status=1
fi
exit "$status"
