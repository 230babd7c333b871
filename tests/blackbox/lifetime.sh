#!/bin/bash
# SPDX-License-Identifier: ISC
# The program never outlives proctord: not even one that clears its parent-death signal and forks away.
# The helpers need bash; "sh file.sh" must work too.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# Where nobody (the program with --user, or proctord itself) can write.
u="$T/pub"
mkdir -m 1777 "$u"
chmod 0711 "$T"
as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups --inh-caps=-all "$@"; }
have_nobody=0
command -v setpriv >/dev/null && id nobody >/dev/null 2>&1 && have_nobody=1
# Unprivileged, the namespaces come from clone3 (CLONE_NEWUSER | CLONE_NEWPID),
# which valgrind 3.19 does not know: proctord falls back to none, and says so.
# (As root it unshares a PID namespace and forks instead.)
nobody_why="no setpriv or no user nobody here"
if vg_on; then
	have_nobody=0
	nobody_why="under valgrind (no clone3: no user namespace for proctord as nobody)"
fi

# The escape helper's processes all hold LOCK_SH on their stdin: free once
# none is left.
lock_free_now() { flock -x -n "$1" true; }

# Whatever an escape left behind (the old behaviour): not for the next case.
kill_escapees() {
	local p
	for p in $(tagged_pids); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = escape ] && kill -KILL "$p" 2>/dev/null
	done
}

# escape_case NAME RUNNER [OPTIONS...]: proctord (started through RUNNER:
# "plain" or "nobody") runs the escape helper; once its tree is up,
# proctord is SIGKILLed; within 5 s no process of the tree may be left.
escape_case() {
	local name=$1 runner=$2 pid
	shift 2
	: >"$u/$name.lock"
	chmod 0644 "$u/$name.lock"
	if [ "$runner" = nobody ]; then
		timeout "$T_OP" setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
			"$PROCTORD" --daemonize --dir "$u/$name" "$@" --stdin "$u/$name.lock" -- \
			"$PROGS/escape" "$u/$name.ready" >"$T/$name.out" 2>"$T/$name.err"
		PD_RC=$?
		PD_ERR="$T/$name.err"
	else
		pd_start --dir "$u/$name" "$@" --stdin "$u/$name.lock" -- "$PROGS/escape" "$u/$name.ready"
	fi
	if [ "$PD_RC" != 0 ] || ! wait_for "$T_OP" test -e "$u/$name.ready"; then
		not_ok "[$name] the escape helper starts"
		diag "$(<"$PD_ERR")"
		return
	fi
	check "[$name] the running tree holds the lock" lock_held "$u/$name.lock"
	check_eq "[$name] proctord says nothing about a PID namespace" "" \
		"$(grep -i 'pid namespace' "$PD_ERR")"
	pid=$(pd_pid "$u/$name")
	pd_kill "$pid"
	check "[$name] SIGKILL to proctord: no process of the tree is left within 5 s" \
		wait_for 5 lock_free_now "$u/$name.lock"
	kill_escapees
}

escape_case auto plain --cgroup auto
escape_case none plain --cgroup none
escape_case user plain --cgroup auto --user nobody
escape_case usernone plain --cgroup none --user nobody --new-session
if [ "$have_nobody" = 1 ]; then
	escape_case nobody nobody --cgroup auto
	escape_case nobodynone nobody --cgroup none --new-session
else
	skip "proctord as nobody" "$nobody_why"
fi

# What the program sees: itself as PID 2, its parent (the init) as PID 1.
run_ids() {
	pd_start --dir "$u/$1" "${@:2}" --stdout "$u/$1.ids" -- \
		/bin/sh -c 'echo "$$ $PPID"; exec 2>/dev/null; test "$(cut -d" " -f5 /proc/self/stat)" -gt 0'
	pd_poll "$u/$1"
	wait0 "$u/$1"
}
run_ids ids
check_eq "the program is PID 2 and its parent PID 1" "2 1" "$(<"$u/ids.ids")"
check_eq "...and it exits 0" "exited 0" "$ANS_STATUS"
if [ "$have_nobody" = 1 ]; then
	timeout "$T_OP" setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		"$PROCTORD" --daemonize --dir "$u/idsn" --stdout "$u/idsn.ids" -- \
		/bin/sh -c 'echo "$$ $PPID"; id -u' >"$T/idsn.out" 2>&1
	pd_poll "$u/idsn"
	wait0 "$u/idsn"
	check_eq "as nobody too, the program is PID 2 with its own uid" "2 1
$(id -u nobody)" "$(<"$u/idsn.ids")"
else
	skip "as nobody, the program is PID 2" "$nobody_why"
fi

# --check says it.
out=$("$PROCTORD" --check 2>&1)
check_re "--check lists the PID namespace" $'\npid namespace +new: the program is PID 2' "$out"
if [ "$have_nobody" = 1 ]; then
	out=$(as_nobody "$PROCTORD" --check 2>&1)
	check_re "--check as nobody: a user namespace" $'\npid namespace +new, in a user namespace' "$out"
else
	skip "--check as nobody" "$nobody_why"
fi

# Where no PID namespace can be made (here: none allowed in a user namespace
# of our own), the old behaviour, with a warning; --strict makes it an error.
no_pidns() {
	unshare -Ur sh -c 'echo 0 >/proc/sys/user/max_pid_namespaces && exec "$@"' sh "$@"
}
if [ "$(id -u)" = 0 ] && no_pidns true 2>/dev/null; then
	out=$(no_pidns "$PROCTORD" --check --cgroup none 2>&1)
	check_re "no PID namespace: --check says so" $'\npid namespace +NOT available' "$out"
	out=$(no_pidns "$PROCTORD" --check --strict --cgroup none 2>&1)
	check_eq "...with --strict, --check exits 3" 3 "$?"
	timeout "$T_OP" unshare -Ur sh -c 'echo 0 >/proc/sys/user/max_pid_namespaces && exec "$@"' sh \
		"$PROCTORD" --daemonize --dir "$u/nons" --cgroup none -- /bin/sh -c 'exit 3' \
		>"$T/nons.out" 2>"$T/nons.err"
	check_re "...proctord warns at start" \
		"^proctord: warning: cannot make a PID namespace for the program .*: it may outlive proctord" \
		"$(<"$T/nons.err")"
	pd_poll "$u/nons"
	check_eq "...and runs the program as before" "exited 3" "$ANS_STATUS"
	wait0 "$u/nons"
	out=$(timeout "$T_OP" unshare -Ur sh -c 'echo 0 >/proc/sys/user/max_pid_namespaces && exec "$@"' \
		sh "$PROCTORD" --strict --dir "$u/nons2" --cgroup none -- true 2>&1)
	check_eq "...with --strict it is an error (exit 3)" 3 "$?"
	check_re "...saying why" "error: cannot make a PID namespace for the program" "$out"
	check "...and leaves no sandbox directory" gone "$u/nons2"
else
	skip "no PID namespace: the fallback" "not root, or no unshare -Ur here"
fi

# The figures still hold: an exit status, a signal, and the CPU of orphans
# the init reaped.
for mode in auto none; do
	pd_start --dir "$u/st$mode" --cgroup "$mode" -- /bin/sh -c 'exit 7'
	pd_poll "$u/st$mode"
	check_eq "[$mode] the program's exit status reaches proctord through the init" "exited 7" "$ANS_STATUS"
	wait0 "$u/st$mode"
	pd_start --dir "$u/sig$mode" --cgroup "$mode" -- /bin/sh -c 'kill -SEGV $$'
	pd_poll "$u/sig$mode"
	check_eq "[$mode] ...and a signal" "signaled SIGSEGV" "$ANS_HEAD"
	wait0 "$u/sig$mode"
	# Three orphans spin for 110 ms of CPU each, re-parented to the init,
	# which reaps them: their CPU reaches proctord through its rusage. The
	# program waits until the init has reaped them all. (They used to spin
	# for 500 ms of wall time, which beside two CPU hogs and a sanitizer
	# suite gave them 263 ms of CPU between them.)
	pd_start --dir "$u/cpu$mode" --cgroup "$mode" -- /bin/sh -c \
		'for i in 1 2 3; do (setsid "$0" 1 110 & echo $! >>"$1"); done
		for p in $(cat "$1"); do while kill -0 "$p" 2>/dev/null; do sleep 0.05; done; done' \
		"$PROGS/spin" "$T/orphans.$mode"
	pd_poll "$u/cpu$mode"
	native "CPU figures" check_range "[$mode] the CPU of orphans the init reaped counts" \
		300000 5000000 "$ANS_CPU"
	wait0 "$u/cpu$mode"
done

# --pids counts the program's processes, not the init's: --pids 1 still runs
# a program that does not fork, --pids 2 allows exactly one child, and the
# report's pids_peak leaves the init out.
if "$PROCTORD" --check --pids 2 2>/dev/null | grep -Eq '^pids +2 +command line +cgroup[12] pids.max'; then
	get() { jsonget "$1" "$2" 2>/dev/null; }
	run_pids() { # LIMIT REPORT CMD...
		local lim=$1 rep=$2 sb="$u/pids.$RANDOM"
		shift 2
		pd_start --dir "$sb" --pids "$lim" --report "$rep" -- "$@"
		pd_poll "$sb"
		wait0 "$sb"
	}
	run_pids 1 "$T/p1.json" /bin/true
	check_eq "--pids 1: a program that does not fork runs (the init is not counted)" "exited 0" "$ANS_STATUS"
	run_pids 2 "$T/p2.json" /bin/sh -c '/bin/true & wait'
	check_eq "--pids 2: one child may be started" "exited 0" "$ANS_STATUS"
	run_pids 2 "$T/p3.json" /bin/sh -c 'sleep 0.2 & sleep 0.2 & wait; exit 0'
	check "--pids 2: a second child at once is refused (fork fails)" \
		eval '[ "$(get "$T/p3.json" pids_max_hits)" -ge 1 ]'
	run_pids 5 "$T/p5.json" /bin/sh -c 'sleep 0.3 & sleep 0.3 & wait'
	check_eq "pids_peak counts the program's processes only (sh and two sleeps)" 3 "$(get "$T/p5.json" pids_peak)"
else
	skip "--pids and the init" "no pids cgroup proctord can use here"
fi

none_tagged() { [ -z "$(tagged_pids)" ]; }
check "no process of this script's sandboxes is left" wait_for "$T_OP" none_tagged
done_testing
