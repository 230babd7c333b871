#!/bin/bash
# SPDX-License-Identifier: ISC
# Many sandboxes of one user: a proctord with no inotify instance left (the
# kernel's 128 a user by default) still serves, each answer on a fresh
# status FIFO; a start beside many live sandboxes does not look at each of
# their cgroups for stale ones.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"



# --- no inotify instance left ------------------------------------------------
# The limit of a user namespace of our own is lowered to 0 there (never the
# host's fs.inotify.max_user_instances, shared with everyone): the kernel
# counts each instance against every level up, so none can be had inside.
if ! unshare -U -r sh -c 'echo 0 >/proc/sys/user/max_inotify_instances' 2>/dev/null; then
	skip "a proctord without an inotify instance" "no user namespace whose limits may be lowered here"
else
	sb="$T/noino"
	unshare -U -r sh -c 'echo 0 >/proc/sys/user/max_inotify_instances && exec "$@"' sh \
		"$PROCTORD" --daemonize --cgroup none --dir "$sb" -- sleep 100 \
		>"$T/noino.out" 2>"$T/noino.err" </dev/null
	check_eq "with no inotify instance left, proctord starts" 0 $? || diag "$(<"$T/noino.err")"
fi
if [ -p "${sb:-}/status" ]; then
	check "...and says it takes a fresh status FIFO for each answer, naming the sysctl" \
		wait_for "$T_OP" grep -q "no inotify instance left (fs.inotify.max_user_instances); each answer gets a fresh status FIFO" "$T/noino.err"
	chmod 0640 "$sb/status"
	ino=$(stat -c %i "$sb/status")
	n=0
	for i in 1 2 3 4 5; do
		# shellcheck disable=SC2153 # PROCTOR: the build's proctor (tests/blackbox/meson.build)
		ans=$(timeout 5 "$PROCTOR" wait --timeout 1 "$sb") && [[ $ans == *running ]] && n=$((n + 1))
	done
	check_eq "...five waits, each answered" 5 "$n"
	check "...each on a FIFO of its own" test "$(stat -c %i "$sb/status")" != "$ino"
	check_eq "...which keeps the mode given to status (a group of clients)" 640 "$(stat -c %a "$sb/status")"
	# A read-write reader needs no end of file: with inotify it was told
	# from proctord's own close by counting merged events.
	{ read -r _; read -r _; read -r c; echo "$c"; } <>"$sb/status" >"$T/rw.out" &
	rw=$!
	echo 1 >"$sb/wait"
	wait "$rw"
	check_eq "...a read-write reader gets its answer" running "$(<"$T/rw.out")"
	ans=$(timeout 5 "$PROCTOR" wait --timeout 1 "$sb")
	check_re "...and the next client is answered at once, not after a 2 s deadline" 'running$' "$ans"
	# A reader that never closes keeps its FIFO, alone. It reads its answer
	# before the next client comes, as a client holding the lock would: a
	# client that opened status before proctord had taken the request (seen
	# under load) would share that FIFO with it, and take its answer.
	exec {held}<>"$sb/status"
	echo 1 >"$sb/wait"
	a=
	read -r -t 5 a <&"$held" && read -r -t 1 _ <&"$held" && read -r -t 1 _ <&"$held"
	ans=$(timeout 5 "$PROCTOR" wait --timeout 1 "$sb")
	check_re "...a reader that holds status past its answer delays nobody" 'running$' "$ans"
	check_re "...and gets its own answer" '^[0-9]+$' "$a"
	b=
	read -r -t 0.2 b <&"$held"
	check_eq "...and no other" "" "$b"
	exec {held}<&-
	# One spare FIFO waits for the next answer (.status.PID.N), no more.
	check_re "...and no renewal left a FIFO behind (one spare at most)" \
		'^(\.status\.[0-9]+\.[0-9]+ )?lock status wait$' \
		"$(find "$sb" -mindepth 1 -printf '%f\n' | LC_ALL=C sort | paste -sd ' ')"
	out=$(timeout 5 "$PROCTOR" stop "$sb")
	check_re "...the terminating wait ends it" 'killed terminate' "$out"
	check "...and its directory is gone" wait_for "$T_OP" gone "$sb"
fi

# --- the stale sweep beside many live sandboxes ----------------------------------
LIVE=32
if [ "$(id -u)" -ne 0 ]; then
	skip "a start looks at a sample of its siblings' cgroups" "needs root (cgroups of its own)"
elif ! command -v strace >/dev/null; then
	skip "a start looks at a sample of its siblings' cgroups" "no strace"
elif vg_on; then
	skip "a start looks at a sample of its siblings' cgroups" "strace and valgrind both trace"
else
	for i in $(seq "$LIVE"); do
		pd_start --dir "$T/live.$i" --memory-max 64MiB --pids 16 -- sleep 100 || break
	done
	check_eq "$LIVE sandboxes run" "$LIVE" "$(find "$T" -maxdepth 1 -name 'live.*' | wc -l)"
	# The start ends once its cgroups are made (the sweep comes first).
	PROCTORD_FAIL_AT=cgroups strace -f -e trace=flock -o "$T/flock.trace" \
		"$PROCTORD" --memory-max 64MiB --pids 16 --dir "$T/next" -- /bin/true \
		>/dev/null 2>"$T/next.err"
	# One shared life lock per hierarchy used; an exclusive one per cgroup
	# looked at (each sibling's fails: its proctord holds it).
	hier=$(grep -c 'LOCK_SH' "$T/flock.trace")
	looked=$(grep -cE 'LOCK_EX\|LOCK_NB\) += -1' "$T/flock.trace")
	diag "cgroup hierarchies: $hier; live siblings' locks tried: $looked"
	check "the next start made cgroups" test "$hier" -ge 1
	check_range "...and tried the locks of at most 8 live siblings a hierarchy, not all $LIVE" \
		0 $((8 * hier)) "$looked"
	printf "%s\n" "$T"/live.* | xargs -P 8 -I{} "$PROCTOR" stop {} >/dev/null
	check "...the $LIVE sandboxes stop" wait_for "$T_OP" sh -c "! ls -d '$T'/live.* >/dev/null 2>&1"
fi

done_testing
