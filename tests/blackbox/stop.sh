#!/bin/bash
# SPDX-License-Identifier: ISC
# proctor stop returns once proctord has cleaned up (its directory is reusable
# at once), and a client notices at once a proctord killed right after start.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

: "${PROCTOR:?set PROCTOR to the proctor command}"

# Under valgrind every start takes about a second: fewer rounds.
rounds=50
! vg_on || rounds=5

# stop, then at once a new proctord on the same --dir, again and again: in
# even rounds proctord created the directory (stop must see it removed), in
# odd rounds it was there before (stop must see proctord's lock released).
box="$T/box"
mkdir "$box"
pd_start --dir "$box" -- sleep 100
bad_stop=0 bad_start=0 left=0
for i in $(seq "$rounds"); do
	if ! timeout "$T_OP" "$PROCTOR" stop "$box" >"$T/stop.out" 2>"$T/stop.err"; then
		bad_stop=$((bad_stop + 1))
		diag "round $i: proctor stop failed: $(<"$T/stop.err")"
	fi
	if [ $((i % 2)) -eq 0 ] && [ -e "$box" ]; then
		left=$((left + 1))
		diag "round $i: $box is still there after proctor stop returned"
	fi
	# The next round's proctord: its own directory in even rounds, one
	# made beforehand in odd rounds.
	if [ $((i % 2)) -eq 1 ]; then
		rmdir "$box" 2>/dev/null || diag "round $i: cannot remove $box: $(ls -A "$box")"
	else
		mkdir -p "$box"
	fi
	pd_start --dir "$box" -- sleep 100 || bad_start=$((bad_start + 1))
done
check_eq "proctor stop x $rounds: each one succeeds" 0 "$bad_stop"
check_eq "...a directory proctord created is gone when stop returns" 0 "$left"
check_eq "...and a new proctord on the same --dir starts at once, every time" 0 "$bad_start"
timeout "$T_OP" "$PROCTOR" stop "$box" >/dev/null

# With --json too.
box="$T/box2"
pd_start --dir "$box" -- sleep 100
timeout "$T_OP" "$PROCTOR" stop --json "$box" >"$T/stop.json"
check_eq "stop --json: the final answer" "killed terminate" "$(jsonget "$T/stop.json" status.head)"
check "...and the directory is gone" gone "$box"

# A server that answers the terminating wait but does not exit (it keeps
# its lifetime lock on DIR): stop prints the answer, then fails at its
# timeout saying so.
fake="$T/fake"
mkdir "$fake"
: >"$fake/lock"
mkfifo "$fake/wait" "$fake/status"
exec 9<"$fake"
flock -x 9
(
	exec 7<>"$fake/wait"
	: >"$T/fake.ready"
	read -r -u 7 _ && printf '5\n0\nexited 0\n' >"$fake/status"
	exec sleep 60
) &
server=$!
# The request must find the server reading: else stop says "gone" at once
# (seen under load), and the server, in its read with lib.sh's TERM trap,
# would outlive the kill below.
wait_for "$T_OP" test -e "$T/fake.ready"
t0=${EPOCHREALTIME/./}
out=$(timeout 20 "$PROCTOR" stop --timeout 0.5 "$fake" 2>"$T/fake.err")
rc=$?
dt=$((${EPOCHREALTIME/./} - t0))
exec 9<&-
kill -KILL "$server" 2>/dev/null
wait "$server" 2>/dev/null
check_eq "stop on a server that answers but does not exit: exit 1" 1 "$rc"
check_eq "...after printing the final answer" $'5\n0\nexited 0' "$out"
check_re "...and saying it did not exit" "did not exit within the timeout" "$(<"$T/fake.err")"
native timing check_range "...at its timeout (0.5 s + 5 s for stop)" 5400000 8000000 "$dt"

# A proctord killed within a few ms of its start: a wait says at once that it
# is gone (or that there is no sandbox, when it died before making one),
# never waits out its timeout.
busy_wait_us() {
	local until=$((${EPOCHREALTIME/./} + $1))
	while [ "${EPOCHREALTIME/./}" -lt "$until" ]; do :; done
}
rounds=20
! vg_on || rounds=5
slow=0 wrong=0 worst=0
for i in $(seq "$rounds"); do
	d="$T/killed.$i"
	"$PROCTORD" --dir "$d" -- sleep 100 >/dev/null 2>&1 </dev/null &
	pid=$!
	busy_wait_us $(((i % 6) * 1000))
	pd_kill "$pid"
	wait "$pid" 2>/dev/null
	t0=${EPOCHREALTIME/./}
	out=$(timeout 20 "$PROCTOR" wait --timeout 8 "$d" 2>&1)
	rc=$?
	dt=$((${EPOCHREALTIME/./} - t0))
	[ "$dt" -le "$worst" ] || worst=$dt
	if [ "$rc" -ne 1 ] || [[ ! $out =~ (proctord is gone|no sandbox) ]]; then
		wrong=$((wrong + 1))
		diag "round $i (kill after $((i % 6)) ms): exit $rc: $out"
	fi
	if [ "$dt" -gt 2000000 ]; then
		slow=$((slow + 1))
		diag "round $i (kill after $((i % 6)) ms): the wait took $dt µs: $out"
	fi
done
check_eq "a wait on a proctord SIGKILLed 0-5 ms after start, x $rounds: exit 1, gone or no sandbox" 0 "$wrong"
native timing check_eq "...within 2 s every time (the worst: $((worst / 1000)) ms)" 0 "$slow"

# The same once it has served: a request was taken, then proctord died
# before answering. The wait says so within a fraction of its timeout.
d="$T/stopped-then-killed"
pd_start --dir "$d" -- sleep 100
pid=$(pd_pid "$d")
kill -STOP "$pid"
t0=${EPOCHREALTIME/./}
timeout 20 "$PROCTOR" wait --timeout 8 "$d" >"$T/w.out" 2>&1 &
wpid=$!
sleep 0.3
pd_kill "$pid"
kill -CONT "$pid" 2>/dev/null
wait "$wpid"
rc=$?
dt=$((${EPOCHREALTIME/./} - t0))
check_eq "a proctord killed after taking the request: the wait exits 1" 1 "$rc"
check_re "...saying proctord is gone" "proctord is gone" "$(<"$T/w.out")"
native timing check_range "...well before its 8 s timeout (0.3..2 s)" 300000 2000000 "$dt"

done_testing
