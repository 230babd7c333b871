#!/bin/bash
# SPDX-License-Identifier: ISC
# CI under load: N runs in a row (default 5) of .ci/run, each from a fresh
# clone of REV, beside two CPU hogs (stress --cpu 1, each in a session of
# its own, so that the kernel's autogroups give each a share). One line per
# run in OUT/summary, each run's output in OUT/runK.log, its suites' whole
# logs in OUT/runK-logs.
#
#   bash tests/ci-under-load.sh REV [N [OUT]]
#
# Needs stress (apt-get install stress). A run beside the hogs took 11 to
# 12.5 minutes on the 2-CPU build machine (Linux 6.18, 2026-11; 35-40 on the
# slower one before it).
set -u
cd -- "$(dirname -- "$0")/.." || exit 2
[ $# -ge 1 ] || { echo "usage: bash tests/ci-under-load.sh REV [N [OUT]]" >&2; exit 2; }
rev=$(git rev-parse --verify "$1^{commit}") || exit 2
n=${2:-5}
out=${3:-$(mktemp -d "${TMPDIR:-/tmp}/ci-under-load.XXXXXX")}
command -v stress >/dev/null || { echo "ci-under-load: stress is not installed" >&2; exit 2; }
mkdir -p "$out"
src=$(pwd)
hogs=
trap 'for h in $hogs; do pkill -P "$h"; kill "$h"; done 2>/dev/null' EXIT
for i in $(seq "$n"); do
	clone=$(mktemp -d "${TMPDIR:-/tmp}/ci-under-load-clone.XXXXXX")
	# As a clone anywhere else: the tests run the build's programs as
	# nobody, who must reach them (mktemp makes the directory 0700).
	chmod 0755 "$clone"
	git clone -q "$src" "$clone" && git -C "$clone" checkout -q "$rev" || exit 1
	setsid stress --cpu 1 >/dev/null 2>&1 </dev/null &
	hogs="$!"
	setsid stress --cpu 1 >/dev/null 2>&1 </dev/null &
	hogs="$hogs $!"
	s=$(date +%s)
	(cd "$clone" && env -u TMPDIR -u ASAN_OPTIONS -u UBSAN_OPTIONS CI=true bash .ci/run) >"$out/run$i.log" 2>&1
	rc=$?
	for h in $hogs; do pkill -P "$h"; kill "$h"; done 2>/dev/null
	wait 2>/dev/null
	hogs=
	echo "run $i of $n ($rev): exit $rc, $(($(date +%s) - s)) s: $(tail -n 1 "$out/run$i.log")" | tee -a "$out/summary"
	# The whole logs of the suites, for a flake whose summary is not enough.
	for l in "$clone"/build*/meson-logs/testlog*.json; do
		[ -f "$l" ] || continue
		d=${l#"$clone"/}
		mkdir -p "$out/run$i-logs/${d%%/*}" && cp "$l" "$out/run$i-logs/${d%%/*}/"
	done
	rm -rf "$clone"
done
