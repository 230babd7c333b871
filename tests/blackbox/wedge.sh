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
# The deadline leaves a loaded machine time to find the program and seize it
# before the kill (valgrind's proctord takes seconds to start one); the
# tracer holds it 2.5 s past the deadline. proctord runs in the foreground,
# its pid known: no scan of /proc, which a loaded machine made outlast the
# deadline.
held_ms=3000
! vg_on || held_ms=8000
pd_start_fg --dir "$sb" --wall-time "${held_ms}ms" -- sleep 100
held_pd=$PD_PID
main=""
for _ in $(seq 100); do
	main=$(main_pid "$held_pd") && break
	pause 0.1
done
[ -n "$main" ] || { echo "Bail out! no program under the proctord of $sb"; exit 1; }
"$PROGS/ptracehold" "$main" $((held_ms + 2500)) >"$T/held.out" 2>"$T/held.err" &
tracer=$!
wait_for "$T_OP" grep -qs seized "$T/held.out"
# Poll from before the deadline until the first answer that is not running.
timeout "$T_OP" "$PROGS/waitloop" -p 0 "$sb" 10000000 >"$T/held.poll" 2>"$T/held.poll.err"
rc=$?
# The answer says killed once the kill is decided and sent; the program turns
# zombie when it next runs, which on a loaded machine may be a moment later.
for _ in $(seq 50); do
	state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$main/status" 2>/dev/null)
	[ "${state:-gone}" = R ] || [ "${state:-gone}" = S ] || break
	pause 0.05
done
head -n 3 "$T/held.poll" >"$T/answer"
ans_parse "$T/answer"
check_eq "a wall-time kill is answered killed wall-time" "killed wall-time" "$ANS_HEAD" ||
	diag "waitloop rc $rc: $(cat "$T/held.poll.err" "$T/held.err")"
check_eq "...while the killed program is not yet reaped (a zombie held by a tracer)" Z "${state:-gone}"
check_eq "...with memory 0" 0 "$ANS_MEM"
timeout "$T_OP" "$PROGS/waitloop" -e "killed wall-time" "$sb" 50 >/dev/null 2>"$T/held.after"
check_eq "every later answer before the reap says killed wall-time" 0 "$?" ||
	diag "$(<"$T/held.after")"
kill "$tracer" 2>/dev/null
wait "$tracer" 2>/dev/null
wait0 "$sb"
check_eq "...and so does the final answer, after the reap" "killed wall-time" "$ANS_HEAD" || ans_diag
pd_reap "$held_pd"

# Twenty ordinary wall-time kills, polled in a tight loop from just before the
# deadline: no running after the first killed, and the first killed not before
# the deadline (nor long after it).
n=20 bad_head=0 bad_after=0 early=0 late=0 worst=0
for i in $(seq "$n"); do
	sb="$T/wall.$i"
	t0=${EPOCHREALTIME/./}
	pd_start --dir "$sb" --wall-time 100ms -- sleep 100 || { bad_head=$((bad_head + 1)); continue; }
	t1=${EPOCHREALTIME/./}
	pause 0.07
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
		{ bad_after=$((bad_after + 1)); diag "$(<"$T/wall.after")"; }
	wait0 "$sb"
	[ "$ANS_HEAD" = "killed wall-time" ] || bad_after=$((bad_after + 1))
done
diag "first killed answer at most $worst µs after the deadline (counted from readiness)"
check_eq "$n wall-time kills polled in a tight loop: the first non-running answer is killed wall-time" 0 "$bad_head"
check_eq "...no answer after it says running (or anything but killed wall-time)" 0 "$bad_after"
check_eq "...and none came before the 100 ms deadline" 0 "$early"
native timing check_eq "...nor more than 500 ms after it" 0 "$late"

# --- a status reader that never reads nor closes ---------------------------------

: "${PROCTOR:?set PROCTOR to the proctor command}"

# holds_status PID: PID is sleep, with the status FIFO open as its stdin.
holds_status() { [ "$(cat "/proc/$1/comm" 2>/dev/null)" = sleep ]; }

# A client writes 1, opens status and then holds it, never reading, for the
# whole test (sleep has it as its standard input). A client that comes
# before the reader deadline (2 s) gets a well-formed answer when it passes
# (the stuck client's, which it never read); every later client gets its own.
sb="$T/stuck"
pd_start --dir "$sb" -- sleep 100
ino=$(stat -c %i "$sb/status")
bash -c 'echo 1 > "$1/wait"; exec sleep 1000 <"$1/status"' _ "$sb" &
stuck=$!
wait_for "$T_OP" holds_status "$stuck"
t=${EPOCHREALTIME/./}
timeout "$T_OP" "$PROCTOR" wait --timeout 8 "$sb" >"$T/answer" 2>"$T/answer.err"
rc=$?
t=$((${EPOCHREALTIME/./} - t))
ans_parse "$T/answer"
check_eq "a client that comes while the status FIFO is held gets a well-formed answer" \
	"0 1 running" "$rc $ANS_OK $ANS_HEAD" || { diag "$(<"$T/answer.err")"; ans_diag; }
native timing check_range "...once the 2 s reader deadline has passed (within 3 s)" 0 3000000 "$t"
bad=0 slow=0 worst=0
for i in 1 2 3 4 5; do
	t=${EPOCHREALTIME/./}
	timeout "$T_OP" "$PROCTOR" wait --timeout 5 "$sb" >"$T/answer" 2>"$T/answer.err"
	rc=$?
	t=$((${EPOCHREALTIME/./} - t))
	ans_parse "$T/answer"
	[ "$rc" = 0 ] && [ "$ANS_OK" = 1 ] && [ "$ANS_HEAD" = running ] ||
		{ bad=$((bad + 1)); diag "proctor wait $i: rc $rc, $(<"$T/answer.err")"; ans_diag; }
	[ "$t" -le 1000000 ] || slow=$((slow + 1))
	[ "$t" -le "$worst" ] || worst=$t
	t=${EPOCHREALTIME/./}
	wait1 "$sb"
	rc=$?
	t=$((${EPOCHREALTIME/./} - t))
	[ "$rc" = 0 ] && [ "$ANS_OK" = 1 ] && [ "$ANS_HEAD" = running ] ||
		{ bad=$((bad + 1)); diag "shell wait $i: rc $rc"; ans_diag; }
	[ "$t" -le 1000000 ] || slow=$((slow + 1))
	[ "$t" -le "$worst" ] || worst=$t
done
diag "slowest wait after the stuck reader: $worst µs"
check_eq "a stuck status reader: 5 proctor waits and 5 shell waits after its deadline get their own answer" 0 "$bad"
native timing check_eq "...each within 1 s" 0 "$slow"
check "...and the stuck reader is still there" holds_status "$stuck"
new=$(stat -c '%F %a %i' "$sb/status")
check_eq "...while the status FIFO in the directory is a fresh one, mode 0600" "fifo 600 new" \
	"$(echo "$new" | sed "s/ $ino\$/ old/; s/ [0-9]*\$/ new/")"
wait0 "$sb"
check_eq "...and the terminating wait is answered as usual" "killed terminate" "$ANS_HEAD" || ans_diag
check "...after which proctord removes its directory" wait_for "$T_OP" gone "$sb"
kill "$stuck"
wait "$stuck" 2>/dev/null

# --- a second signal does not cut the clean-up short ----------------------------

# proc_state PID: the state letter of PID (Z once it has exited, unreaped).
proc_state() {
	local line
	{ read -r line <"/proc/$1/stat"; } 2>/dev/null || { echo gone; return; }
	line=${line##*) }
	echo "${line%% *}"
}

# One signal to proctord, then a stream of them (TERM, INT, HUP, QUIT in turn,
# 1 ms apart) until it has exited: whichever phase each lands in (the grace
# period, the kill, the clean-up after the loop), proctord ends with status 4
# and leaves nothing behind.
mkfifo "$T/pace"
exec {pace}<>"$T/pace"
sigs=(TERM INT HUP QUIT)
n=20 bad_exit=0 left=0 hung=0
for i in $(seq "$n"); do
	sb="$T/sig.$i"
	pd_start_fg --dir "$sb" -- sleep 100
	if ! wait_for "$T_OP" test -p "$sb/wait"; then
		hung=$((hung + 1))
		continue
	fi
	kill -s "${sigs[i % 4]}" "$PD_PID"
	for j in $(seq 5000); do
		st=$(proc_state "$PD_PID")
		[ "$st" != Z ] && [ "$st" != gone ] || break
		kill -s "${sigs[(i + j) % 4]}" "$PD_PID" 2>/dev/null
		read -r -t 0.001 -u "$pace"
	done
	pd_reap "$PD_PID"
	if [ "$PD_EXIT" != 4 ]; then
		bad_exit=$((bad_exit + 1))
		diag "try $i (SIG${sigs[i % 4]} first): proctord exited $PD_EXIT"
	fi
	gone "$sb" || { left=$((left + 1)); diag "try $i: $sb left behind: $(ls -A "$sb" | tr "\n" " ")"; }
done

# A signal during the start-up of proctord --daemonize (to the caller, which
# waits for the daemon to be ready): whenever it lands, nothing is left
# behind. Either the caller got the directory first (exit 0: the sandbox
# lives), or the daemon got the signal and ended the sandbox (exit 4), or the
# signal came before anything was made (death by SIGTERM).
n=20 bad_exit=0 left=0 shell_exe=$(readlink "/proc/$$/exe")
for i in $(seq "$n"); do
	sb="$T/early.$i"
	"$PROCTORD" --daemonize --dir "$sb" -- sleep 100 >"$T/early.out" 2>/dev/null </dev/null &
	p=$!
	# Not before the exec: the forked shell would run this script's traps
	# (and its clean-up) on the signal.
	until [ "$(readlink "/proc/$p/exe" 2>/dev/null)" != "$shell_exe" ]; do :; done
	for j in $(seq $((i % 10))); do read -r -t 0.001 -u "$pace"; done
	kill -TERM "$p" 2>/dev/null
	wait "$p"
	rc=$?
	case $rc in
	0) wait0 "$sb" || { bad_exit=$((bad_exit + 1)); diag "try $i: exit 0, but no answer"; } ;;
	4 | 143) ;;
	*) bad_exit=$((bad_exit + 1)); diag "try $i: proctord --daemonize exited $rc" ;;
	esac
	wait_for "$T_OP" gone "$sb" || { left=$((left + 1)); diag "try $i (exit $rc): $sb left behind"; }
done
check_eq "SIGTERM during proctord --daemonize's start-up: exit 0 (and a sandbox that answers), 4, or death by the signal" 0 "$bad_exit"
check_eq "...and nothing is left behind" 0 "$left"
exec {pace}<&-
check_eq "$n proctords hit by a stream of TERM/INT/HUP/QUIT all start" 0 "$hung"
check_eq "...and all exit with status 4" 0 "$bad_exit"
check_eq "...and remove their directory" 0 "$left"

done_testing
