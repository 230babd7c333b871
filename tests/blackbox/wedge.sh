#!/bin/bash
# SPDX-License-Identifier: ISC
# The protocol does not wedge: a stuck status reader, answers while a kill is under way, signals during shutdown.
# The helpers need bash; "sh file.sh" must work too.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# main_pid PROCTORD_PID: the program proctord started (its only child).
main_pid() {
	local c=''
	# The file has no final newline: read fails, but sets c.
	read -r c _ <"/proc/$1/task/$1/children" 2>/dev/null
	[ -n "$c" ] && echo "$c"
}

# --- once a kill is decided, every answer says killed ---------------------------

# A tracer holds the killed program unreaped (its zombie is the tracer's to
# wait for), so proctord stays between the kill and the reap for as long as
# the test likes. Every answer in that time must already say killed.
sb="$T/held"
pd_start --dir "$sb" --wall-time 300ms -- sleep 100
main=$(main_pid "$(pd_pid "$sb")") ||
	{ echo "Bail out! no program under the proctord of $sb"; exit 1; }
"$PROGS/ptracehold" "$main" 4000 >"$T/held.out" 2>"$T/held.err" &
tracer=$!
wait_for "$T_OP" grep -q seized "$T/held.out"
# Poll from before the deadline until the first answer that is not running.
timeout "$T_OP" "$PROGS/waitloop" -p 0 "$sb" 10000000 >"$T/held.poll" 2>"$T/held.poll.err"
rc=$?
state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$main/status" 2>/dev/null)
head -n 3 "$T/held.poll" >"$T/answer"
ans_parse "$T/answer"
check_eq "a wall-time kill is answered killed wall-time" "killed wall-time" "$ANS_HEAD" ||
	diag "waitloop rc $rc: $(cat "$T/held.poll.err" "$T/held.err")"
check_eq "...while the killed program is not yet reaped (a zombie held by a tracer)" Z "${state:-gone}"
check_eq "...with memory 0" 0 "$ANS_MEM"
timeout "$T_OP" "$PROGS/waitloop" -e "killed wall-time" "$sb" 50 >/dev/null 2>"$T/held.after"
check_eq "every later answer before the reap says killed wall-time" 0 "$?" ||
	diag "$(cat "$T/held.after")"
kill "$tracer" 2>/dev/null
wait "$tracer" 2>/dev/null
wait0 "$sb"
check_eq "...and so does the final answer, after the reap" "killed wall-time" "$ANS_HEAD" || ans_diag

# Twenty ordinary wall-time kills, polled in a tight loop from just before the
# deadline: no running after the first killed, and the first killed not before
# the deadline (nor long after it).
n=20 bad_head=0 bad_after=0 early=0 late=0 worst=0
for i in $(seq "$n"); do
	sb="$T/wall.$i"
	t0=$(now_us)
	pd_start --dir "$sb" --wall-time 100ms -- sleep 100 || { bad_head=$((bad_head + 1)); continue; }
	t1=$(now_us)
	sleep 0.07
	timeout "$T_OP" "$PROGS/waitloop" -t -p 0 "$sb" 10000000 >"$T/wall.poll" 2>"$T/wall.err"
	head -n 3 "$T/wall.poll" >"$T/answer"
	ans_parse "$T/answer"
	if [ "$ANS_HEAD" != "killed wall-time" ]; then
		bad_head=$((bad_head + 1))
		ans_diag
	fi
	at=$(sed -n 's/^realtime_us //p' "$T/wall.poll")
	at=${at:-0}
	# The deadline is 100 ms after the start, which lies between t0 and t1.
	[ "$at" -ge $((t0 + 100000)) ] || early=$((early + 1))
	[ $((at - t1 - 100000)) -le "$worst" ] || worst=$((at - t1 - 100000))
	[ "$at" -le $((t1 + 100000 + 500000)) ] || late=$((late + 1))
	timeout "$T_OP" "$PROGS/waitloop" -e "killed wall-time" "$sb" 30 >/dev/null 2>"$T/wall.after" ||
		{ bad_after=$((bad_after + 1)); diag "$(cat "$T/wall.after")"; }
	wait0 "$sb"
	[ "$ANS_HEAD" = "killed wall-time" ] || bad_after=$((bad_after + 1))
done
diag "first killed answer at most $worst µs after the deadline (counted from readiness)"
check_eq "$n wall-time kills polled in a tight loop: the first non-running answer is killed wall-time" 0 "$bad_head"
check_eq "...no answer after it says running (or anything but killed wall-time)" 0 "$bad_after"
check_eq "...and none came before the 100 ms deadline" 0 "$early"
native timing check_eq "...nor more than 500 ms after it" 0 "$late"

done_testing
