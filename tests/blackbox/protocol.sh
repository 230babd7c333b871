#!/bin/bash
# SPDX-License-Identifier: ISC
# Protocol abuse and load: garbage, pipelining, clients that never read, 1,000 waits, 8 concurrent clients.
# The helpers need bash; "sh file.sh" must work too.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

sb="$T/sb"
pd_start --dir "$sb" -- sleep 100
pid=$(pd_pid "$sb")

# Garbage is answered (so the client does not hang) and the program left alone.
timeout "$T_OP" bash -c 'printf "hello\n" > "$1/wait"; cat "$1/status"' _ "$sb" >"$T/answer"
ans_parse "$T/answer"
check_eq "garbage on the wait FIFO gets a well-formed answer" 1 "$ANS_OK" || ans_diag
check_eq "...whose head is invalid" invalid "$ANS_HEAD"
wait1 "$sb"
check_eq "...and the program keeps running" running "$ANS_STATUS" || ans_diag

# Pipelined requests: one answer each, in order, and no extra one.
# pipelined DESCRIPTION WRITE COUNT
pipelined() {
	local desc=$1
	shift
	local i good=0 prev=0
	timeout "$T_OP" bash -c 'printf "$2" > "$1/wait"' _ "$sb" "$1"
	for i in $(seq "$2"); do
		read_status "$sb"
		if [ "$ANS_OK" = 1 ] && [ "$ANS_STATUS" = running ] && [ "$ANS_CPU" -ge "$prev" ]; then
			good=$((good + 1))
			prev=$ANS_CPU
		else
			ans_diag
		fi
	done
	check_eq "$desc in one write get $2 running answers, one per read of status" "$2" "$good"
	# The next request is an invalid one: if a surplus answer were queued, it
	# (running) would arrive instead.
	pd_wait x "$sb"
	check_eq "...and no surplus answer" invalid "$ANS_HEAD" || ans_diag
}
pipelined 'three requests (1\n1\n1\n)' '1\n1\n1\n' 3
pipelined 'two requests without newlines (11)' '11' 2

# A client that opens status and closes it without reading, with its answer
# pending; then one that gives up while blocked in open (timeout).
for i in 1 2 3 4 5; do
	timeout "$T_OP" bash -c 'echo 1 > "$1/wait"; exec 3<"$1/status"; exec 3<&-' _ "$sb"
done
timeout 0.3 cat "$sb/status" >/dev/null
check "clients that open status and close it unread do not end proctord" kill -0 "${pid:-0}"
check "...which serves the next client (after draining orphaned answers)" resync "$sb"
wait1 "$sb"
check_eq "...and the program is still running" running "$ANS_STATUS" || ans_diag

# Load: 1,000 sequential waits, each checked by the C client.
timeout 120 "$PROGS/waitloop" -e running "$sb" 1000 >/dev/null 2>"$T/loop.err"
rc=$?
check_eq "1,000 sequential waits are all answered, well-formed and running" 0 "$rc" || diag "$(<"$T/loop.err")"

# 8 concurrent clients, serialised on DIR/lock as the protocol asks.
pids=()
for c in 1 2 3 4 5 6 7 8; do
	timeout 120 "$PROGS/waitloop" -l -e running "$sb" 50 >/dev/null 2>"$T/client.$c.err" &
	pids+=($!)
done
bad=0
for c in 1 2 3 4 5 6 7 8; do
	if ! wait "${pids[$((c - 1))]}"; then
		bad=$((bad + 1))
		diag "client $c: $(<"$T/client.$c.err")"
	fi
done
check_eq "8 concurrent clients (flock on lock) x 50 waits: all answers well-formed" 0 "$bad"

wait0 "$sb"
check_eq "the terminating wait still works after all that" "killed terminate" "$ANS_HEAD" || ans_diag

# A client that writes 1 and never opens status must not stall proctord: the
# wall-time kill lands on time (0.7 s after start, 300 ms for start-up and
# polling: a sanitizer build on a busy machine took 112 ms; a stalled proctord
# would be seconds late) and later waits are answered. A later client may get the orphaned
# answer first; every answer must still be well-formed (waitloop checks that).
sb="$T/orphan"
t0=${EPOCHREALTIME/./}
pd_start --dir "$sb" --wall-time 700ms -- sleep 10
timeout "$T_OP" bash -c 'echo 1 > "$1/wait"' _ "$sb"
sleep 0.1
pd_poll "$sb" 5
check_eq "after an orphaned request, all answers are well-formed until the end" 0 "$WAIT_RC"
check_eq "after an orphaned request, the wall-time kill still happens" "killed wall-time" "$ANS_HEAD" || ans_diag
native timing check_range "...on time (0.70..1.00 s after start)" 700000 1000000 "$((${POLL_AT:-0} - t0))"
good=0
for i in 1 2 3; do
	wait1 "$sb"
	[ "$ANS_OK" = 1 ] && [ "$ANS_HEAD" = "killed wall-time" ] && good=$((good + 1))
done
check_eq "...and later waits are answered with the final status" 3 "$good" || ans_diag
resync "$sb"
wait0 "$sb"
check_eq "...and the terminating wait too" "killed wall-time" "$ANS_HEAD"

# An answer nobody read is composed for the next client at its own moment,
# and a terminating wait never receives an earlier client's answer in place
# of the final one. hold exits when its FIFO is written: a stale answer
# would say running, a fresh one exited 0.
sb="$T/stale"
mkfifo "$T/stale.go"
pd_start --dir "$sb" -- "$PROGS/hold" 1 "$T/stale.ready" "$T/stale.go"
wait_for 10 test -e "$T/stale.ready"
timeout "$T_OP" bash -c 'echo 1 > "$1/wait"' _ "$sb"
timeout "$T_OP" bash -c 'echo go > "$1"' _ "$T/stale.go"
sleep 0.3
wait1 "$sb"
check_eq "after a client that never read, the next client gets figures of its own moment" \
	"exited 0" "$ANS_HEAD" || ans_diag
wait0 "$sb"
check_eq "...and a terminating wait after it gets the final answer" "exited 0" "$ANS_HEAD" || ans_diag
check_eq "...with memory 0" 0 "$ANS_MEM"

# Pipelining in several writes (bash's printf writes line by line): the
# answers owed before the terminating request are the same client's and are
# kept: three reads, three answers. Answers are composed when their reader
# comes, so the two 1s may already report the end that the 0 (grace 50 ms)
# caused: either head is right, a missing answer is not.
sb="$T/multiwrite"
pd_start --dir "$sb" -- sleep 100
timeout "$T_OP" bash -c 'for r in 1 1 0; do printf "%s\n" "$r"; done > "$1/wait"' _ "$sb"
got=0 last=""
for i in 1 2 3; do
	read_status "$sb"
	if [ "$ANS_OK" = 1 ] && [[ $ANS_HEAD =~ ^(running|killed\ terminate)$ ]]; then
		got=$((got + 1))
	else
		ans_diag
	fi
	last=$ANS_HEAD
done
check_eq "1, 1, 0 in three writes get three well-formed answers" 3 "$got"
check_eq "...the last of them the final one" "killed terminate" "$last"

# A client that wrote 1 and vanished, then a terminating wait a while later:
# the terminating wait gets the final answer, not the vanished client's.
# The wait is one process that opens status right after its write
# (tests/progs/fifocall), before proctord has read the 0: the opener thread
# then had the reader and gave it the orphan's "running" (2 of 6 times),
# and the final answer went to nobody. Eight sandboxes, their terminating
# waits at once.
for i in 1 2 3 4 5 6 7 8; do
	pd_start --dir "$T/orphan$i" -- sleep 100
	timeout "$T_OP" bash -c 'echo 1 > "$1/wait"' _ "$T/orphan$i"
done
# Between FIFO_STALE_US (1 s: the orphan's answer is stale) and
# FIFO_READER_TIMEOUT (2 s: it would be dropped anyway), half a second from
# each: 1.3 s failed once on a loaded machine.
pause 1.5
for i in 1 2 3 4 5 6 7 8; do
	"$PROGS/fifocall" "$T_OP" 0 "$T/orphan$i" >"$T/orphan$i.answer" 2>&1 &
done
wait
heads=""
for i in 1 2 3 4 5 6 7 8; do
	ans_parse "$T/orphan$i.answer"
	[ "$ANS_HEAD" = "killed terminate" ] || ans_diag
	heads="$heads${heads:+, }$ANS_HEAD"
done
check_eq "a terminating wait 1.5 s after a vanished client's request gets the final answer (8 sandboxes)" \
	"$(printf 'killed terminate, %.0s' 1 2 3 4 5 6 7)killed terminate" "$heads"

done_testing
