#!/bin/bash
# SPDX-License-Identifier: ISC
# The README's interactive task, run exactly as printed; a judge that dies ends proctord at once (--end-on-eof), not at the wall limit.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

: "${PROCTOR:?set PROCTOR to the proctor command}"
PROCTOR=$(realpath "$PROCTOR")
export PROCTORD
README=$(realpath "$(dirname "$0")/../../README.md")
# The README's commands say "proctor": this one.
export PATH="$(dirname "$PROCTOR"):$PATH"

# --- --end-on-eof: what it takes -----------------------------------------------
out=$("$PROCTORD" --end-on-eof 1 -- true 2>&1 </dev/null)
check_eq "--end-on-eof 1: a usage error (exit 2)" 2 "$?"
check_re "...saying why" "--end-on-eof 1: not a descriptor number from 3 up" "$out"
out=$("$PROCTORD" --end-on-eof 9 -- true 2>&1 </dev/null 9<&-)
check_eq "--end-on-eof on a closed descriptor: exit 2" 2 "$?"
check_re "...saying so" "--end-on-eof 9: not an open descriptor" "$out"
: >"$T/plain"
out=$("$PROCTORD" --end-on-eof 9 -- true 2>&1 </dev/null 9<"$T/plain")
check_eq "--end-on-eof on a regular file, which never ends: exit 2" 2 "$?"
check_re "...saying it must be a pipe or a socket" "not a pipe or a socket" "$out"

# --- the caller of a daemonized proctord dies --------------------------------------
# The caller holds the write end (here a sleep standing for it); proctord
# the read end, as descriptor 9.
exec 9< <(exec sleep 1000)
caller=$!
sb="$T/daemon"
pd_start --dir "$sb" --wall-time 60s --report "$T/daemon.json" --end-on-eof 9 -- sleep 1000 9<&9
exec 9<&-
pd=$(pd_pid "$sb")
sleep 0.2
wait1 "$sb"
check_eq "--end-on-eof: while its caller lives, the program runs" running "$ANS_HEAD"
t0=${EPOCHREALTIME/./}
kill -KILL "$caller"
check "the caller killed: the daemon ends, well before its 60 s wall limit" \
	wait_for 30 pid_gone "${pd:-0}"
native timing check_range "...promptly (< 5 s)" 0 5000000 $((${EPOCHREALTIME/./} - t0))
check "...removes its directory" gone "$sb"
check_eq "...and reports the program killed terminate" "killed terminate" \
	"$("$PROGS/jsonget" "$T/daemon.json" status.head 2>&1)"

# --- the README's interactive task ----------------------------------------------------
# readme_blocks DIR: each fenced block preceded by "<!-- readme-test:
# interactive-NAME -->" into DIR/NAME, exactly as printed.
readme_blocks() {
	awk -v dir="$1" '
		/^<!-- readme-test: interactive-[^ ]+ -->$/ {
			name = $3; sub(/^interactive-/, "", name); want = 1; next
		}
		want && /^```/ { if (out) { close(out); out = ""; want = 0 } else out = dir "/" name; next }
		out { print > out }
	' "$README"
}

if ! command -v g++ >/dev/null || ! command -v python3 >/dev/null; then
	skip "the README's interactive task" "no g++ or no python3"
	vg_check
	done_testing
	exit 0
fi

mkdir "$T/ok"
readme_blocks "$T/ok"
check_eq "the README has the interactive task's three blocks" \
	"interactor.py run solution.cpp" "$(cd "$T/ok" && echo *)"
(cd "$T/ok" && timeout 120 bash run >"$T/ok.out" 2>"$T/ok.err")
check_eq "the README's interactive task, run as printed, succeeds" 0 "$?" ||
	diag "$(cat "$T/ok.out" "$T/ok.err")"
check_re "...the interactor accepts" "^accepted: [0-9]+ guesses, exit code 0$" "$(<"$T/ok.out")"
check_re "...and proctor run's verdict is exited 0" "^proctor: exited 0; " "$(tail -n 1 "$T/ok.err")"

# The same interactor, its judge killed in the middle of a run whose
# solution never ends (nor reads): proctor run ends at once, not at the
# README's 10 s wall limit.
mkdir "$T/kill"
readme_blocks "$T/kill"
printf '#!/bin/sh\ntouch started\nexec sleep 1000\n' >"$T/kill/solution"
chmod 0755 "$T/kill/solution"
(cd "$T/kill" && exec python3 interactor.py 42 >"$T/kill.out" 2>"$T/kill.err") &
judge=$!
check "the solution runs" wait_for "$T_OP" test -e "$T/kill/started"
run_pid=$(pgrep -P "$judge" -x proctor)
check "...under proctor run, the judge's child" test -n "$run_pid"
t0=${EPOCHREALTIME/./}
kill -KILL "$judge"
wait "$judge" 2>/dev/null
check "the judge killed: proctor run ends, before the 10 s wall limit" \
	wait_for 9 pid_gone "${run_pid:-0}"
native timing check_range "...promptly (< 5 s)" 0 5000000 $((${EPOCHREALTIME/./} - t0))
check_re "...with the solution killed terminate" "^proctor: killed terminate: " \
	"$(tail -n 1 "$T/kill.err")"
check_eq "...and nothing of it left" "" "$(compgen -G "$TMPDIR/proctor-run.*")"

vg_check
done_testing
