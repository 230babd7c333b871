#!/bin/bash
# SPDX-License-Identifier: ISC
# The terminating wait: a grace period to end by itself, then a forced kill answered within grace + 20 ms.
# The helpers need bash; "sh file.sh" must work too.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# terminate DIR: write 0 and read the answer with the C client, which times
# the wait itself (open of wait to EOF on status) without a fork in the way.
# Where it may, the client and the programs killed at the grace's end run
# real-time (SCHED_FIFO 1), as proctord does: the bound is proctord's, not
# the scheduler's. The answer waits for the killed tree's exit and reap (it
# reports the reaped tree's CPU), and a client of normal priority, woken by
# it, waits its turn behind CPU hogs: 72-80 ms at a load of 8-36, 77 ms
# beside two hogs.
rt=()
! chrt -f 1 true 2>/dev/null || rt=(chrt -f 1)
terminate() {
	witness_start
	timeout "$T_OP" "${rt[@]}" "$PROGS/waitloop" -t -r 0 "$1" 1 >"$T/term" 2>"$T/term.err"
	WAIT_RC=$?
	head -n 3 "$T/term" >"$T/answer"
	ans_parse "$T/answer"
	ELAPSED=$(sed -n 's/^elapsed_us //p' "$T/term")
	diag "terminating wait on $1 took ${ELAPSED:-?} µs"
	witness_stop
	[ "$WAIT_RC" -eq 0 ] || diag "terminating wait failed (rc $WAIT_RC): $(<"$T/term.err")"
}

# A program that ends inside the grace period ended by itself.
sb="$T/quick"
pd_start --dir "$sb" --grace 500ms -- sleep 0.01
terminate "$sb"
check_eq "a program that ends within the grace period is exited 0" "exited 0" "$ANS_STATUS" || ans_diag
# The answer should come when the program ends, not when the grace runs out.
check_range "...and the answer comes before the 500 ms grace has run out" 0 499999 "${ELAPSED:-x}"

# A program that ignores SIGTERM: only the kill after the grace ends it. The
# issue's bound is grace + 20 ms, measured by the client; no extra slack
# (skipped where the machine itself stalled over 10 ms: punctual).
sb="$T/ign"
pd_start --dir "$sb" --grace 50ms -- "${rt[@]}" "$PROGS/ignterm"
wait1 "$sb"
check_eq "the SIGTERM-ignoring program is running" running "$ANS_STATUS"
terminate "$sb"
check_eq "a program that does not end in the grace period is killed terminate" "killed terminate" "$ANS_HEAD" || ans_diag
check_range "the terminating wait takes at least the 50 ms grace" 50000 9999999 "${ELAPSED:-x}"
punctual 10000 "the terminating wait returns within grace + 20 ms" 0 70000 "${ELAPSED:-x}"
check_eq "the final answer reports memory 0" 0 "$ANS_MEM"
check "proctord removes its directory after the terminating wait" wait_for "$T_OP" gone "$sb"

# sleep dies of SIGTERM: "killed terminate" (not "signaled SIGTERM") shows that
# no signal is sent during the grace period, and the default grace is 50 ms.
sb="$T/sleep"
pd_start --dir "$sb" -- "${rt[@]}" sleep 100
terminate "$sb"
check_eq "no SIGTERM during the grace: sleep is killed terminate" "killed terminate" "$ANS_HEAD" || ans_diag
punctual 10000 "the default grace is 50 ms (answer within 50..70 ms)" 50000 70000 "${ELAPSED:-x}"

# One SIGTERM to proctord during a grace period that a client's 0 started
# is passed on to the program and lets the grace run its course: a program
# that saves its state and exits within it is "exited 3", not killed.
# (Only a second signal cuts the grace short.)
sb="$T/sigterm-grace"
rm -f "$T/sg.ready" "$T/sg.saved"
"$PROCTORD" --dir "$sb" --grace 2s --report "$T/sg.json" -- "$PROGS/ignsig" "$T/sg.ready" "$T/sg.saved" \
	>/dev/null 2>&1 </dev/null &
pd=$!
wait_for 10 test -e "$T/sg.ready"
timeout "$T_OP" bash -c 'echo 0 > "$1/wait"' _ "$sb"
sleep 0.05
kill -TERM "$pd"
wait "$pd"
check_eq "proctord stopped by SIGTERM exits 4" 4 "$?"
check_eq "...the program got the SIGTERM during the client's grace" TERM "$(cat "$T/sg.saved" 2>&1)"
check_eq "...and, ending within the grace, is exited 3" \
	"exited 3" "$(jsonget "$T/sg.json" status.head 2>&1)"

done_testing
