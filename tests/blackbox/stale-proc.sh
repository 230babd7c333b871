#!/bin/bash
# SPDX-License-Identifier: ISC
# No cgroups and a /proc that is not proctord's (a container's that was not mounted afresh, or a
# masked one): --check says so, the run reports --cpu-time as not enforced, and proctord neither
# measures nor kills what that /proc names under its pids.
#
# proctord runs in a PID namespace of its own (unshare) under the host's
# /proc, where its pid names another process (2: kthreadd, whose children
# are kernel threads; the old proctord walked and "killed" them for ever).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	skip "a /proc that is not proctord's" "needs root (unshare --pid --mount)"
	done_testing
	exit 0
fi
if ! unshare --pid --fork --mount true 2>/dev/null; then
	skip "a /proc that is not proctord's" "no PID or mount namespaces here"
	done_testing
	exit 0
fi

# LeakSanitizer reads the threads of the process it checks from /proc, which
# this suite takes away: under ASan it stops with a fatal error of its own.
# Leaks are the other suites' business.
if ldd "$PROCTORD" 2>/dev/null | grep -q libasan; then
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	export ASAN_OPTIONS
fi

# in_foreign CMD...: CMD in a new PID namespace that still sees the host's /proc (killed
# with all of it after 20 s: unshare holds SIGTERM while it waits).
in_foreign() { timeout -s KILL 20 unshare --pid --fork --kill-child sh -c '"$@"; exit $?' sh "$@"; }

out=$(in_foreign "$PROCTORD" --check --cgroup none --cpu-time 1s -- /bin/true 2>&1)
rc=$?
check_eq "--check under another PID namespace's /proc, without cgroups: --cpu-time cannot be honoured (exit 3)" \
	3 "$rc" || diag "$out"
check_re "...it says /proc is not proctord's, and why" \
	$'\n/proc +NOT proctord\'s: its "self" is [0-9]+ where proctord is [0-9]+' "$out"
check_re "...and that no CPU figure comes from it" $'\ncpu +NONE while the program runs' "$out"
check_re "...and which limit is lost" $'\ncpu_time cannot be honoured: [^\n]*only RLIMIT_CPU' "$out"

if ldd "$PROCTORD" 2>/dev/null | grep -q libasan; then
	# The sanitizers read their options from /proc/self/environ: under a
	# masked /proc detect_leaks=0 never reaches them, and LeakSanitizer
	# stops with a fatal error of its own at the exit.
	skip "--check under a masked /proc (a tmpfs): not proctord's, it has no self" \
		"under ASan (its options come from /proc/self/environ)"
elif vg_on; then
	# valgrind itself reads /proc/self (maps, exe, cmdline) to start.
	skip "--check under a masked /proc (a tmpfs): not proctord's, it has no self" \
		"under valgrind (it needs /proc/self to start)"
else
	out=$(timeout -s KILL 20 unshare --pid --fork --kill-child --mount sh -c 'mount -t tmpfs none /proc && "$@"' sh \
		"$PROCTORD" --check --cgroup none -- /bin/true 2>&1)
	check_re "--check under a masked /proc (a tmpfs): not proctord's, it has no self" \
		$'\n/proc +NOT proctord\'s: it has no "self"' "$out"
fi

out=$("$PROCTORD" --check --cgroup none --cpu-time 1s -- /bin/true 2>&1)
check_re "--check under proctord's own /proc says so" $'\n/proc +proctord\'s own' "$out"

# The run: the CPU limit falls to RLIMIT_CPU (2 s for 1 s), and it says so.
t0=${EPOCHREALTIME/./}
in_foreign "$PROCTORD" --dir "$T/sb" --cgroup none --cpu-time 1s --report "$T/r.json" \
	--end-fd 3 -- "$PROGS/spin" 1 3>/dev/null 2>"$T/run.err"
rc=$?
t1=${EPOCHREALTIME/./}
get() { jsonget "$1" "$2" 2>/dev/null; }
check_eq "a run there ends by itself (exit 0), not stuck sweeping what /proc names" 0 "$rc"
native timing check_range "...within 10 s" 0 10000000 $((t1 - t0))
check_eq "...the report lists cpu_time as not enforced" '["cpu_time"]' \
	"$(get "$T/r.json" not_enforced | tr -d ' \n')"
check_eq "...the backstop ended it" "killed cpu-time" "$(get "$T/r.json" status.head)"
check_re "...and proctord warned at the start" \
	"warning: cpu_time cannot be honoured: no cgroup counts the tree's CPU, and /proc is not proctord's" \
	"$(<"$T/run.err")"

in_foreign "$PROCTORD" --strict --dir "$T/strict" --cgroup none --cpu-time 1s -- \
	sh -c ': >"$1"' sh "$T/strict.ran" 2>"$T/strict.err"
check_eq "with --strict it is an error (exit 3)" 3 "$?"
check "...and the program never ran" test ! -e "$T/strict.ran"

# Without --cpu-time nothing is lost, and the tree still ends and is killed.
in_foreign "$PROCTORD" --dir "$T/plain" --cgroup none --wall-time 1s --report "$T/plain.json" \
	--end-fd 3 -- sh -c 'sleep 30 & sleep 30' 3>/dev/null 2>"$T/plain.err"
check_eq "a --wall-time kill there ends the run (exit 0)" 0 "$?"
check_eq "...killed wall-time" "killed wall-time" "$(get "$T/plain.json" status.head)"
check_eq "...nothing is reported as not enforced" "[]" "$(get "$T/plain.json" not_enforced | tr -d ' \n')"

none_tagged() { [ -z "$(tagged_pids)" ]; }
check "no process of this script's sandboxes is left" wait_for "$T_OP" none_tagged
done_testing
