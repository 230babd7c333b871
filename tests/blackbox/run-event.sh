#!/bin/bash
# SPDX-License-Identifier: ISC
# proctor run learns the end of the program as an event (proctord's --end-fd), never by polling: no timed sleep or poll, no wait call; --end-fd itself; v1 cgroups joined through tasks.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

: "${PROCTOR:?set PROCTOR to the proctor command}"
PROCTOR=$(realpath "$PROCTOR")
export PROCTORD

# (valgrind's gdb server puts its FIFOs in $TMPDIR too: not ours.)
left() { ls -A "$TMPDIR" | grep -v '^vgdb-'; }

# --- proctord --end-fd -----------------------------------------------------------
# fd 3 is the command substitution's pipe: it reads to EOF, which comes when
# proctord (its only writer) has closed its copy.
out=$(timeout 60 "$PROCTORD" --dir "$T/box1" --report "$T/r1.json" --end-fd 3 -- sh -c 'exit 7' \
	3>&1 >/dev/null 2>"$T/err1")
rc=$?
check_eq "--end-fd: proctord ends by itself, without a terminating wait, exit 0" 0 "$rc" ||
	diag "$(<"$T/err1")"
check_eq "...after writing one byte, 1, to the descriptor" 1 "$out"
check_eq "...and the report is written" "exited 7" \
	"$(jsonget "$T/r1.json" status.line 2>/dev/null)"
check "...and the sandbox directory is gone" test ! -e "$T/box1"

# The byte comes once the report is in place: a reader of the pipe that
# reads the report at once finds it whole.
mkfifo "$T/endfifo"
timeout 60 "$PROCTORD" --dir "$T/box2" --report "$T/r2.json" --end-fd 3 -- sh -c 'exit 4' \
	3>"$T/endfifo" >/dev/null 2>"$T/err2" &
pd=$!
got=$(head -c 1 "$T/endfifo"; cat "$T/r2.json" 2>/dev/null >"$T/r2.copy")
wait "$pd"
check_eq "the byte comes after the report is written" "exited 4" \
	"$(jsonget "$T/r2.copy" status.line 2>/dev/null)" || diag "byte: $got"

# A program that leaves a child behind: the tree is killed before the end is said.
out=$(timeout 60 "$PROCTORD" --dir "$T/box3" --end-fd 3 -- sh -c 'sleep 1000 & exit 0' \
	3>&1 >/dev/null 2>"$T/err3")
check_eq "--end-fd with a leftover child: the byte, once the tree is gone" 1 "$out"

for bad in 0 2 -3 3x "" 99999999999; do
	timeout 60 "$PROCTORD" --dir "$T/bad" --end-fd "$bad" -- true >/dev/null 2>"$T/err" 3>/dev/null
	rc=$?
	check_eq "--end-fd '$bad' is a usage error (2)" 2 "$rc"
	check_re "...in one line that names it" "^proctord: --end-fd $bad: " "$(<"$T/err")"
done
timeout 60 "$PROCTORD" --dir "$T/bad" --end-fd 9 -- true >/dev/null 2>"$T/err"
check_eq "--end-fd N with N not open: 2" 2 "$?"
check_re "...saying so" "not an open descriptor" "$(<"$T/err")"
timeout 60 "$PROCTORD" --dir "$T/bad" --end-fd 3 -- true >/dev/null 2>"$T/err" 3</dev/null
check_eq "--end-fd N with N read-only: 2" 2 "$?"
check_re "...saying so" "not open for writing" "$(<"$T/err")"
check "...and nothing was started (no directory)" test ! -e "$T/bad"

# The program does not inherit proctord's end of the pipe.
out=$(timeout 60 "$PROCTOR" run -- sh -c 'for n in $(seq 0 64); do [ -e /proc/self/fd/$n ] && echo $n; done' \
	</dev/null 2>/dev/null | tr '\n' ' ')
check_eq "proctor run: the program holds 0, 1 and 2 only" "0 1 2 " "$out"

timeout 60 "$PROCTOR" run --end-fd 5 -- true </dev/null >/dev/null 2>"$T/err"
check_eq "proctor run --end-fd is refused: 125" 125 "$?"
check_re "...saying so" "--end-fd cannot be used with run" "$(<"$T/err")"

# --- proctor run makes no timed wait and no wait call ---------------------------
if ! command -v strace >/dev/null; then
	skip "proctor run makes no timed sleep or poll" "no strace"
	skip "proctor run never opens the FIFOs" "no strace"
else
	# Only proctor itself (no -f): proctord and the program do their own.
	# LeakSanitizer cannot run under a tracer: without this an ASan build aborts.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 timeout 120 strace -o "$T/strace" -e trace=nanosleep,clock_nanosleep,poll,ppoll,select,pselect6,epoll_wait,epoll_pwait,openat,read \
		"$PROCTOR" run -- sh -c 'sleep 0.3; exit 5' </dev/null >/dev/null 2>"$T/err"
	rc=$?
	check_eq "proctor run under strace: the program's exit code" 5 "$rc" || diag "$(<"$T/err")"
	timed=$(grep -E '^(nanosleep|clock_nanosleep|poll|ppoll|select|pselect6|epoll_wait|epoll_pwait)\(' "$T/strace")
	check_eq "proctor run makes no timed sleep or poll while the program runs" "" "$timed" ||
		diag "$(head -5 <<<"$timed")"
	check_eq "proctor run never opens the wait or status FIFO" "" \
		"$(grep -E '/box/(wait|status)"' "$T/strace")"
	check_re "...it blocks in one read of proctord's pipe, which brings the byte" \
		'^read\([0-9]+, "1", 1\) += 1$' "$(grep -E '^read\([0-9]+, "1", 1\)' "$T/strace")"
fi

# --- v1 cgroups: joined through "tasks" ------------------------------------------
# cgroup.procs takes the kernel's global cgroup write lock, whose RCU grace
# period cost milliseconds per start; tasks, written by the joining thread
# itself, does not (Linux 5.15 on).
if [ "$(id -u)" != 0 ]; then
	skip "v1 cgroups are joined through tasks" "not root"
elif ! command -v strace >/dev/null; then
	skip "v1 cgroups are joined through tasks" "no strace"
elif ! { timeout 60 strace -f -y -e trace=write -o "$T/joins" "$PROCTORD" --dir "$T/boxv1" \
	--cgroup v1 -- touch "$T/v1.ran" >/dev/null 2>"$T/errv1" &
	# The FIFOs come before the program: a stop at once could end the
	# sandbox before its program joined (seen under valgrind).
	wait_for "$T_OP" test -e "$T/v1.ran"
	timeout 60 "$PROCTOR" stop "$T/boxv1" >/dev/null 2>&1
	wait $!; }; then
	skip "v1 cgroups are joined through tasks" "no v1 cgroup here: $(head -1 "$T/errv1")"
else
	# (No ") = 1": strace -f splits a call that another process's comes
	# between, "<unfinished ...>" then "<... write resumed>".)
	joins=$(grep -E '"0", 1' "$T/joins")
	check_re "v1 cgroups: the program's side joins through tasks" '/tasks>, "0", 1' "$joins"
	check_eq "...never through cgroup.procs" "" "$(grep 'cgroup.procs>' <<<"$joins")"
fi

# --- proctord gone without a word -----------------------------------------------
# The pipe's end comes without the byte: proctor run reaps proctord and says
# what ended it, as before.
has_child() { [ -n "$(pgrep -P "$1" 2>/dev/null)" ]; }
"$PROCTOR" run -- sleep 1000 </dev/null >/dev/null 2>"$T/err" &
run=$!
if wait_for "$T_OP" has_child "$run"; then
	pd=$(pgrep -P "$run" | head -1)
	# proctord has started the program once it has a child of its own.
	wait_for "$T_OP" has_child "$pd"
	pd_kill "$pd"
	wait "$run"
	rc=$?
	check_eq "proctord killed outright: proctor run exits 125" 125 "$rc"
	check_re "...naming the signal" "proctord was killed by SIGKILL before the verdict" "$(<"$T/err")"
else
	not_ok "proctord killed outright: no proctord under proctor run"
	kill "$run"
	wait "$run"
fi
check_eq "...and nothing is left in \$TMPDIR" "" "$(left)"

done_testing
