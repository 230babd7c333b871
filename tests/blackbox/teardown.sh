#!/bin/bash
# SPDX-License-Identifier: ISC
# The teardown: a start that fails after any of its steps (PROCTORD_FAIL_AT, sandbox.c) exits 3
# and leaves nothing behind: no cgroup, no directory, no report file, no mount, no process.
# The helpers need bash; "sh file.sh" must work too.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# The steps, from sandbox.c's table: a step added there is tested here.
src=$(cd "$(dirname "$0")/../.." && pwd)
steps=$(sed -n 's/^ *\[SB_[A-Z_]*\] = {"\([a-z-]*\)".*/\1/p' "$src/src/daemon/sandbox.c")
if [ "$(wc -w <<<"$steps")" -lt 10 ]; then
	echo "Bail out! no steps found in $src/src/daemon/sandbox.c"
	exit 1
fi

root=0
[ "$(id -u)" = 0 ] && root=1
mkdir -p "$T/rep" "$T/box"
chmod 0755 "$T"

# cg_left PID: the cgroups proctord PID made (named after it) in each
# hierarchy of this script, where the proctord started by it makes them.
# Globs and builtins, no ls: this runs three times a case.
cg_left() {
	local d c
	for d in $(cg_dirs $$ 'memory|pids|cpu|cpuacct|freezer|cpuset'); do
		for c in "$d/proctor-$1" "$d/proctor-$1".*; do
			[ ! -e "$c" ] || echo "$c"
		done
	done
}
# mounts_left: mounts of the host that name this script's directory (the
# box's are in its init's mount namespace and die with it).
mounts_left() { grep -F "$T" /proc/self/mountinfo; }
# procs_left: processes of this script, and the tree's lock still held.
procs_left() {
	tagged_pids
	[ ! -e "$1" ] || flock -x -n "$1" true || echo "the tree's lock is held"
}

# nothing_left WHAT PID LOCK: one test line per kind of leftover.
nothing_left() {
	local what=$1 pid=$2 lock=$3 left
	left=$(find "$XDG_RUNTIME_DIR" "$T/rep" -mindepth 1 -maxdepth 1)
	check_eq "$what: no directory, no report file" "" "$left"
	left=$(cg_left "$pid")
	check_eq "$what: no cgroup" "" "$left"
	left=$(mounts_left)
	check_eq "$what: no mount" "" "$left"
	left=$(procs_left "$lock")
	check_eq "$what: no process" "" "$left"
	clear_left "$pid"
}

# clear_left PID: whatever a failed case left, gone, so that the next case
# fails only for what it leaves itself.
clear_left() {
	local d p
	for p in $(tagged_pids); do kill -KILL "$p" 2>/dev/null; done
	for p in $(cg_left "$1") $(private_left); do
		[ -e "$p/cgroup.kill" ] && echo 1 >"$p/cgroup.kill" 2>/dev/null
		wait_for 2 rm_cgroup "$p"
	done
	rm -rf "${XDG_RUNTIME_DIR:?}"/* "$T/rep"/*
}

# private_left: any proctord's cgroups in this script's private parents
# (lib.sh: bb.PID, where only its own proctords run).
private_left() {
	local d c
	for d in $(cg_dirs $$ 'memory|pids|freezer'); do
		[ "$d" != "${d%/bb."$$"}" ] || continue
		for c in "$d"/proctor-*; do
			[ ! -e "$c" ] || echo "$c"
		done
	done
}

# --seccomp for the filter's steps; not under valgrind, which has no
# seccomp(2): the filter step would fail there of itself.
seccomp=(--seccomp)
vg_on && seccomp=()

# fail_at STEP ARGS...: proctord in the foreground, failing after STEP,
# with the program a tree of processes; checks its exit and what is left.
n=0
fail_at() {
	local step=$1 what rc pid lock
	shift
	n=$((n + 1))
	what="$step${1:+ ($*)}"
	lock="$T/lock.$n"
	PD_ERR="$T/pd.fail.$n.err"
	PROCTORD_FAIL_AT=$step "$PROCTORD" --report "$T/rep/report.json" --output-limit 1MiB \
		--env PROCTOR_BB_TAG \
		"${seccomp[@]}" "$@" -- "$PROGS/tree" "$lock" "$T/ready.$n" \
		>"$T/pd.fail.$n.out" 2>"$PD_ERR" </dev/null &
	pid=$!
	if wait_for "$T_OP" pid_gone "$pid"; then
		wait "$pid"
		rc=$?
	else
		rc=timeout
		kill -KILL "$pid"
	fi
	check_eq "$what: exit 3" 3 "$rc" || diag "$(<"$PD_ERR")"
	check_re "$what: says why" "PROCTORD_FAIL_AT=$step: the start fails here on purpose" \
		"$(<"$PD_ERR")"
	nothing_left "$what" "$pid" "$lock"
}

for step in $steps; do
	fail_at "$step"
done

# In a box: its sources, its directory apart, its init and mounts.
if [ "$root" = 1 ]; then
	vg_bind=()
	vg_on && vg_bind=(--bind "$T/vg")
	for step in box apart program supervise; do
		fail_at "$step" --box "$T/box" --ro-bind "$PROGS:$PROGS" "${vg_bind[@]}"
	done
else
	skip "the box's steps" "need root"
fi

# --daemonize: the daemon's exit code is the caller's, and the daemon undoes
# what it set up (its cgroups: none left at all in this script's own).
for step in daemonize cgroups program; do
	n=$((n + 1))
	PROCTORD_FAIL_AT=$step pd_start --report "$T/rep/report.json" -- "$PROGS/tree" \
		"$T/lock.$n" "$T/ready.$n"
	check_eq "$step (--daemonize): exit 3" 3 "$PD_RC"
	check_eq "$step (--daemonize): no cgroup in this script's own" "" "$(private_left)"
	nothing_left "$step (--daemonize)" none "$T/lock.$n"
done

# Failures of the options' own, after earlier steps.
n=$((n + 1))
"$PROCTORD" --report "$T/rep/missing/report.json" -- true >/dev/null 2>"$T/pd.real.err" &
pid=$!
wait "$pid"
check_eq "a --report in a missing directory: exit 2" 2 "$?" || diag "$(<"$T/pd.real.err")"
nothing_left "--report in a missing directory" "$pid" "$T/none"

# A signal: the loop's end, the report, and the same teardown.
n=$((n + 1))
"$PROCTORD" --report "$T/rep/report.json" --output-limit 1MiB -- "$PROGS/tree" "$T/lock.$n" \
	"$T/ready.$n" >"$T/pd.sig.out" 2>"$T/pd.sig.err" </dev/null &
pid=$!
if check "SIGTERM: the tree is up" wait_for "$T_OP" test -e "$T/ready.$n"; then
	kill -TERM "$pid"
	pd_reap "$pid"
	check_eq "SIGTERM: exit 4" 4 "$PD_EXIT" || diag "$(<"$T/pd.sig.err")"
	check "SIGTERM: the report is written" test -s "$T/rep/report.json"
	rm -f "$T/rep/report.json"
	nothing_left "SIGTERM" "$pid" "$T/lock.$n"
fi

done_testing
