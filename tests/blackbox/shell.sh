#!/bin/bash
# SPDX-License-Identifier: ISC
# The protocol as a person at a shell uses it: echo 1 > wait; cat status, on a sleeping program.
# The helpers need bash; "sh file.sh" must work too.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

sb="$T/sb"
pd_start --dir "$sb" -- sleep 100
check_eq "proctord --daemonize exits 0 once the sandbox is up" 0 "$PD_RC"
check_eq "--daemonize prints the sandbox directory" "$sb" "$PD_DIR"
check "the sandbox has FIFOs wait and status and a regular file lock" \
	eval '[ -p "$sb/wait" ] && [ -p "$sb/status" ] && [ -f "$sb/lock" ] && [ ! -L "$sb/lock" ]'
pid=$(pd_pid "$sb")

wait1 "$sb"
check_eq "echo 1 > wait; cat status returns" 0 "$WAIT_RC"
check_re "the answer is exactly three lines, each ending in a newline" "$ANSWER_RE" "$ANS_RAW"
check_re "line 1 (CPU µs) is a decimal integer" '^[0-9]+$' "$(sed -n 1p "$T/answer")"
check_re "line 2 (resident bytes) is a decimal integer" '^[0-9]+$' "$(sed -n 2p "$T/answer")"
check_eq "line 3 is running" running "$(sed -n 3p "$T/answer")"
check "the memory of a live program is not 0" test "${ANS_MEM:-0}" -gt 0

prev=$ANS_CPU bad=0 down=0
for i in $(seq 20); do
	wait1 "$sb"
	if [ "$ANS_OK" != 1 ] || [ "$ANS_STATUS" != running ]; then
		bad=$((bad + 1))
		ans_diag
		continue
	fi
	if [ "$ANS_CPU" -lt "${prev:-0}" ]; then
		down=$((down + 1))
		diag "wait $i: CPU went from $prev to $ANS_CPU"
	fi
	prev=$ANS_CPU
done
check_eq "20 more waits are all answered, well-formed and running" 0 "$bad"
check_eq "CPU µs never decreases across 20 waits" 0 "$down"

wait0 "$sb"
check_eq "the terminating wait on a sleeping program says killed terminate" "killed terminate" "$ANS_HEAD" || ans_diag
check_eq "the terminating wait reports memory 0" 0 "$ANS_MEM"
check "proctord exits after the terminating wait" wait_for "$T_OP" pid_gone "${pid:-0}"
check "proctord removes the directory it created" wait_for "$T_OP" gone "$sb"

# Foreground: the exit code can be waited for.
fg="$T/fg"
pd_start_fg --dir "$fg" -- sleep 100
wait_for "$T_OP" is_fifo "$fg/status"
wait1 "$fg"
check_eq "a foreground proctord answers waits" running "$ANS_STATUS"
wait0 "$fg"
check_eq "a foreground proctord answers the terminating wait" "killed terminate" "$ANS_HEAD"
pd_reap "$PD_PID"
check_eq "a foreground proctord exits 0 once the terminating wait is answered" 0 "$PD_EXIT"
check_eq "a foreground proctord given --dir prints nothing on stdout" "" "$(<"$T/pd.$pd_seq.out")"

done_testing
