#!/bin/bash
# SPDX-License-Identifier: ISC
# Whatever a reader of status does (opens it read-write, reads half, never reads, vanishes), the next well-behaved client gets a well-formed answer of its own.
# The helpers need bash; "sh file.sh" must work too.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
: "${PROCTOR:?set PROCTOR to the proctor command}"

# client_wait DIR: one proctor wait; sets RC, ELAPSED (µs) and ANS_*.
client_wait() {
	local t
	t=${EPOCHREALTIME/./}
	timeout "$T_OP" "$PROCTOR" wait --timeout 8 "$1" >"$T/answer" 2>"$T/answer.err"
	RC=$?
	ELAPSED=$((${EPOCHREALTIME/./} - t))
	ans_parse "$T/answer"
}

# holder_gone PID: the background reader has exited.
holder_gone() { ! kill -0 "$1" 2>/dev/null; }

# traced_start NAME STRACE_ARGS...: proctord --dir $T/NAME -- sleep 100 in
# the foreground (it says what it does, in $T/NAME.err) under strace with
# STRACE_ARGS, in the background: its pid in tracer, once status is there.
# LeakSanitizer aborts under a tracer.
traced_start() {
	local name=$1
	shift
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 timeout 60 strace -qq -o /dev/null \
		"$@" "$PROCTORD" --dir "$T/$name" -- sleep 100 >/dev/null 2>"$T/$name.err" </dev/null &
	tracer=$!
	wait_for "$T_OP" is_fifo "$T/$name/status"
}

# traceable DESCRIPTION: whether a case under strace can run here; if not,
# DESCRIPTION is skipped, saying why.
traceable() {
	if vg_on; then
		skip "$1" "under valgrind"
	elif ! command -v strace >/dev/null; then
		skip "$1" "no strace"
	else
		return 0
	fi
	return 1
}

# STUCK: the warning of proctord's "stuck" row, said when it waited out its
# 2 s deadline for a reader's close and replaced status.
STUCK="held the status FIFO for over"

# --- a read-write reader that reads its answer and closes ------------------------
# A shell's "<>" opens status O_RDWR: its close is not a plain reader's
# (inotify reports IN_CLOSE_WRITE, as for proctord's own write end), and
# proctord took it for a reader still there: the next client waited out the
# 2 s deadline and was let go with an empty answer.
sb="$T/rw"
pd_start_fg --dir "$sb" -- sleep 100
wait_for "$T_OP" is_fifo "$sb/status"
bad=0 worst=0
for i in 1 2 3; do
	timeout "$T_OP" bash -c 'echo 1 > "$1/wait"; { read -r a; read -r b; read -r c; } <>"$1/status"
		[ "$c" = running ]' _ "$sb" || { bad=$((bad + 1)); diag "read-write reader $i: no answer"; }
	client_wait "$sb"
	[ "$RC" = 0 ] && [ "$ANS_OK" = 1 ] && [ "$ANS_HEAD" = running ] ||
		{ bad=$((bad + 1)); diag "proctor wait $i: rc $RC, $(<"$T/answer.err")"; ans_diag; }
	[ "$ELAPSED" -le "$worst" ] || worst=$ELAPSED
	timeout "$T_OP" bash -c 'echo 1 > "$1/wait"; exec 3<>"$1/status"; read -r a <&3; read -r b <&3
		read -r c <&3; exec 3<&-' _ "$sb"
	wait1 "$sb"
	[ "$WAIT_RC" = 0 ] && [ "$ANS_OK" = 1 ] && [ "$ANS_HEAD" = running ] ||
		{ bad=$((bad + 1)); diag "shell wait $i: rc $WAIT_RC"; ans_diag; }
done
diag "slowest proctor wait after a read-write reader: $worst µs"
check_eq "after a read-write reader of status, 3 proctor waits and 3 shell waits are well-formed" 0 "$bad"
# Had proctord waited out its 2 s deadline for a read-write reader, it would
# have said so (in the foreground): its stderr tells, however slow a loaded
# machine made a wait.
check "...and no wait waited out the 2 s deadline for a reader's close" \
	bash -c '! grep -q "$1" "$2"' _ "$STUCK" "$PD_ERR" || diag "$(<"$PD_ERR")"
wait0 "$sb"
check_eq "...and the terminating wait is answered" "killed terminate" "$ANS_HEAD" || ans_diag
pd_reap "$PD_PID"
check_eq "...and proctord ends, exit 0" 0 "$PD_EXIT" || diag "$(<"$PD_ERR")"

# The worst moment for a read-write reader to close: after proctord has
# looked whether it is still there (poll) and before proctord's own close of
# its write end. Both closes are IN_CLOSE_WRITE, and inotify merges two
# identical events in a row: proctord saw one close, took it for its own,
# and waited out its deadline for the reader's (readers.sh failed so about
# once in 10 runs on a loaded machine). strace holds proctord 0.6 s on its
# way out of each poll(), which makes that moment certain: the reader opens
# status first (proctord answers it from its loop), reads its answer and
# closes 0.2 s later, while proctord is held. proctord runs in the
# foreground, where it says what it does.
if traceable "a read-write reader that closes just before proctord's own close"; then
	sb="$T/rwmerge"
	traced_start rwmerge -e trace=poll -e inject=poll:delay_exit=600000
	timeout "$T_OP" bash -c 'exec 3<>"$1/status"; echo 1 > "$1/wait"; read -r a <&3; read -r b <&3
		read -r c <&3; sleep 0.2; exec 3<&-; [ "$c" = running ]' _ "$sb"
	check_eq "a read-write reader that closes just before proctord's own close gets its answer" 0 $?
	# The next client comes once proctord is past its close.
	sleep 0.6
	client_wait "$sb"
	check_eq "...and the proctor wait after it is well-formed" "0 1 running" \
		"$RC $ANS_OK $ANS_HEAD" || { diag "$(<"$T/answer.err")"; ans_diag; }
	check "...without waiting out the 2 s deadline for the reader's close" \
		bash -c '! grep -q "$1" "$2"' _ "$STUCK" "$T/rwmerge.err" || diag "$(<"$T/rwmerge.err")"
	wait0 "$sb"
	check_eq "...and the terminating wait is answered" "killed terminate" "$ANS_HEAD" || ans_diag
	wait "$tracer"
	check_eq "...and proctord ends, exit 0" 0 $? || diag "$(<"$T/rwmerge.err")"
fi

# A read-write reader needs no end of file: it leaves as soon as it has read
# its answer. When the fresh FIFO took the name status only after the write,
# the client right after it could open the old one, where no answer comes,
# and proctord's look at the old FIFO for reuse then gave that client an end
# of file for an answer ("malformed answer": 9 times in 30 with proctord
# under valgrind beside two CPU hogs). strace holds each rename 0.5 s, which
# makes that moment certain.
if traceable "a read-write reader that leaves at once, and a client right after it"; then
	sb="$T/rwswap"
	traced_start rwswap -f -e trace=renameat2,renameat,rename \
		-e inject=renameat2,renameat,rename:delay_enter=500000
	timeout "$T_OP" bash -c 'echo 1 > "$1/wait"; { read -r a; read -r b; read -r c; } <>"$1/status"
		[ "$c" = running ]' _ "$sb"
	check_eq "a read-write reader that leaves as soon as it has read gets its answer" 0 $?
	client_wait "$sb"
	check_eq "...and the proctor wait right after it is well-formed" "0 1 running" \
		"$RC $ANS_OK $ANS_HEAD" || { diag "$(<"$T/answer.err")"; ans_diag; }
	wait0 "$sb"
	check_eq "...and the terminating wait is answered" "killed terminate" "$ANS_HEAD" || ans_diag
	wait "$tracer"
	check_eq "...and proctord ends, exit 0" 0 $? || diag "$(<"$T/rwswap.err")"
fi

# A read-write reader that keeps status open is a writer too: no reader of
# that FIFO sees an end of file while it holds it. The client that came
# meanwhile gets its answer at the reader deadline, and takes a whole
# answer without the end of file.
sb="$T/rwhold"
pd_start --dir "$sb" -- sleep 100
bash -c 'echo 1 > "$1/wait"; exec 3<>"$1/status"; read -r a <&3; read -r b <&3; read -r c <&3
	exec sleep 100' _ "$sb" &
holder=$!
sleep 0.3
client_wait "$sb"
check_eq "after a read-write reader that holds status: proctor wait is well-formed" \
	"0 1 running" "$RC $ANS_OK $ANS_HEAD" || { diag "$(<"$T/answer.err")"; ans_diag; }
native timing check_range "...within the 2 s deadline and a second" 0 3000000 "$ELAPSED"
client_wait "$sb"
check_eq "...and so is the next one" "0 1 running" "$RC $ANS_OK $ANS_HEAD" || ans_diag
native timing check_range "...at once (within 1 s)" 0 1000000 "$ELAPSED"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
wait0 "$sb"
check_eq "...and the terminating wait" "killed terminate" "$ANS_HEAD" || ans_diag

# The same as nobody: proctord, the read-write reader and the next client.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	chmod 0755 "$T"
	install -d -m 0755 -o nobody "$T/nb"
	nb=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
	timeout "$T_OP" "${nb[@]}" "$PROCTORD" --daemonize --dir "$T/nb/sb" -- sleep 100 \
		>/dev/null 2>"$T/nb.err" </dev/null
	timeout "$T_OP" "${nb[@]}" bash -c 'echo 1 > "$1/wait"; { read -r a; read -r b; read -r c; } <>"$1/status"' \
		_ "$T/nb/sb"
	t=${EPOCHREALTIME/./}
	out=$(timeout "$T_OP" "${nb[@]}" "$PROCTOR" wait --timeout 8 "$T/nb/sb" 2>&1)
	rc=$?
	t=$((${EPOCHREALTIME/./} - t))
	check_eq "as nobody, after a read-write reader: proctor wait is well-formed" "0 running" \
		"$rc $(echo "$out" | sed -n 3p)" || diag "$out" "$(<"$T/nb.err")"
	native timing check_range "...within 1 s" 0 1000000 "$t"
	timeout "$T_OP" "${nb[@]}" "$PROCTOR" stop "$T/nb/sb" >/dev/null 2>&1
else
	skip "as nobody, after a read-write reader" "not root, or no setpriv or user nobody"
fi

# --- a reader that reads half its answer and keeps status open ------------------
# The next client opens the same FIFO: whatever that reader left in the pipe
# must not become part of the next client's answer.
half() {
	local sb=$1 holder
	timeout "$T_OP" bash -c 'echo 1 > "$1/wait"' _ "$sb"
	bash -c 'exec 3<"$1/status"; dd bs=1 count=5 <&3 >/dev/null 2>&1; exec sleep 100 3<&3' _ "$sb" &
	holder=$!
	sleep 0.3
	HOLDER=$holder
}
sb="$T/half"
pd_start --dir "$sb" -- sleep 100
half "$sb"
client_wait "$sb"
check_eq "after a reader that read 5 bytes and holds status: proctor wait is well-formed" \
	"0 1 running" "$RC $ANS_OK $ANS_HEAD" || { diag "$(<"$T/answer.err")"; ans_diag; }
native timing check_range "...within the 2 s deadline and a second" 0 3000000 "$ELAPSED"
kill "$HOLDER" 2>/dev/null
wait "$HOLDER" 2>/dev/null
half "$sb"
wait1 "$sb"
check_eq "...and so is a shell wait (cat blocked in its open) after another one" \
	"0 1 running" "$WAIT_RC $ANS_OK $ANS_HEAD" || ans_diag
kill "$HOLDER" 2>/dev/null
wait "$HOLDER" 2>/dev/null
wait1 "$sb"
check_eq "...and the wait after that too" "0 1 running" "$WAIT_RC $ANS_OK $ANS_HEAD" || ans_diag
wait0 "$sb"
check_eq "...and the terminating wait" "killed terminate" "$ANS_HEAD" || ans_diag

# --- a reader that never reads, and one that vanishes ---------------------------
sb="$T/never"
pd_start --dir "$sb" -- sleep 100
bash -c 'echo 1 > "$1/wait"; exec sleep 100 <"$1/status"' _ "$sb" &
holder=$!
sleep 0.3
client_wait "$sb"
check_eq "after a reader that never reads and holds status: proctor wait is well-formed" \
	"0 1 running" "$RC $ANS_OK $ANS_HEAD" || { diag "$(<"$T/answer.err")"; ans_diag; }
wait1 "$sb"
check_eq "...and so is the shell wait after it" "0 1 running" "$WAIT_RC $ANS_OK $ANS_HEAD" || ans_diag
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
timeout "$T_OP" bash -c 'echo 1 > "$1/wait"; exec 3<"$1/status"; exec 3<&-' _ "$sb"
client_wait "$sb"
check_eq "after a reader that opened status and closed it unread: proctor wait is well-formed" \
	"0 1 running" "$RC $ANS_OK $ANS_HEAD" || { diag "$(<"$T/answer.err")"; ans_diag; }
native timing check_range "...at once (within 1 s)" 0 1000000 "$ELAPSED"
wait0 "$sb"
check_eq "...and the terminating wait" "killed terminate" "$ANS_HEAD" || ans_diag

done_testing
