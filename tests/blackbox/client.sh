#!/bin/bash
# SPDX-License-Identifier: ISC
# The proctor command (and so libproctor) against the real proctord: wait, stop, errors, concurrency, run, watch.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

: "${PROCTOR:?set PROCTOR to the proctor command}"
export PROCTORD

sb="$T/sb"
pd_start --dir "$sb" -- sleep 100

out=$(timeout "$T_OP" "$PROCTOR" wait "$sb")
check_eq "proctor wait exits 0" 0 "$?"
check_re "...and prints the three lines" $'^[0-9]+\n[0-9]+\nrunning$' "$out"
timeout "$T_OP" "$PROCTOR" wait --json "$sb" > "$T/w.json"
check_eq "proctor wait --json: an answer" answer "$(jsonget "$T/w.json" type)"
check_eq "...its kind" running "$(jsonget "$T/w.json" status.kind)"
check_re "...cpu_us is a number" '^[0-9]+$' "$(jsonget "$T/w.json" cpu_us)"
check_eq "...exit_code is null while running" null "$(jsonget "$T/w.json" status.exit_code)"

# 16 concurrent clients on one sandbox, 20 waits each, all well-formed. In a
# sanitizer build 5 each: every instrumented proctor costs some 90 ms of CPU
# (LeakSanitizer's exit check mostly), and the plain suite runs the 320.
rounds=20
! san_on || rounds=5
pids=()
for c in $(seq 16); do
	(for i in $(seq "$rounds"); do
		out=$(timeout "$T_OP" "$PROCTOR" wait "$sb") || exit 1
		[[ $out =~ ^[0-9]+$'\n'[0-9]+$'\n'running$ ]] || exit 1
	done) &
	pids+=($!)
done
bad=0
for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
check_eq "16 concurrent proctor clients x 20 waits: all answered running" 0 "$bad"

# A wait that cannot get the lock in time: an error, not a hang.
exec 8<"$sb/lock"
flock -x 8
t0=${EPOCHREALTIME/./}
out=$("$PROCTOR" wait --timeout 0.3 "$sb" 2>&1)
rc=$?
t1=${EPOCHREALTIME/./}
exec 8<&-
check_eq "a wait whose lock is held past its timeout exits 1" 1 "$rc"
check_re "...saying it timed out" "timeout" "$out"
check_range "...after about the timeout (0.3..2 s)" 300000 2000000 $((t1 - t0))

out=$("$PROCTOR" stop "$sb")
check_eq "proctor stop exits 0" 0 "$?"
check_re "...and prints the final answer" $'\n0\nkilled terminate: ' "$out"

out=$("$PROCTOR" wait "$T/nowhere" 2>&1)
check_eq "a wait on a missing directory exits 1" 1 "$?"
check_re "...saying there is no sandbox" "no sandbox" "$out"

# proctord killed outright: its FIFOs stay, nobody reads them.
sb2="$T/killed"
pd_start --dir "$sb2" -- sleep 100
pid=$(pd_pid "$sb2")
pd_kill "$pid"
wait_for 5 sh -c "! kill -0 $pid 2>/dev/null"
out=$(timeout "$T_OP" "$PROCTOR" wait --timeout 2 "$sb2" 2>&1)
check_eq "a wait on a sandbox whose proctord was killed exits 1 at once" 1 "$?"
check_re "...saying proctord is gone" "gone" "$out"

# proctord stopped: the request is taken, no answer comes: timed out.
sb3="$T/stopped"
pd_start --dir "$sb3" -- sleep 100
pid=$(pd_pid "$sb3")
kill -STOP "$pid"
out=$(timeout "$T_OP" "$PROCTOR" wait --timeout 0.5 "$sb3" 2>&1)
check_eq "a wait on a stopped proctord exits 1 after its timeout" 1 "$?"
check_re "...saying it timed out" "timeout" "$out"
kill -CONT "$pid"
# The timed-out client's answer is still owed: get back in step first.
resync "$sb3"
wait0 "$sb3"
check_eq "...and once it runs again, the sandbox still ends normally" "killed terminate" "$ANS_HEAD"

# Something else than a sandbox at DIR: never a hang.
mkdir "$T/fake"
mkfifo "$T/fake/lock"
t0=${EPOCHREALTIME/./}
out=$(timeout "$T_OP" "$PROCTOR" wait --timeout 3 "$T/fake" 2>&1)
rc=$?
check_eq "a FIFO where DIR/lock should be: the wait fails (exit 1)" 1 "$rc"
check_range "...at once, not at its timeout" 0 1000000 $((${EPOCHREALTIME/./} - t0))
check_re "...saying there is no sandbox" "no sandbox" "$out"

# proctor run: verdicts and exit codes.
# Only our own TMPDIR (lib.sh) is looked at: other users of the machine may
# run proctor run meanwhile.
before=$(ls -d "$TMPDIR"/proctor-run.* 2>/dev/null | sort)
run() {
	RUN_OUT=$(timeout 30 "$PROCTOR" run "$@" 2>"$T/run.err" </dev/null)
	RUN_RC=$?
	RUN_ERR=$(<"$T/run.err")
}
run -- sh -c 'echo out; echo err >&2; exit 3'
check_eq "run: an exit code is passed on" 3 "$RUN_RC"
check_eq "...the program's stdout is passed through" out "$RUN_OUT"
check_re "...its stderr too, then the verdict line" $'^err\nproctor: exited 3; cpu [0-9.]+ s, wall [0-9.]+ s, peak [0-9.]+ [KMG]?i?B$' "$RUN_ERR"
run -- "$PROGS/crash" segv
check_eq "run: SIGSEGV gives 128+11" 139 "$RUN_RC"
check_re "...and a verdict naming it" "^proctor: signaled SIGSEGV: " "$RUN_ERR"
run --cpu-time 200ms -- "$PROGS/spin" 1
check_eq "run: a CPU-time kill gives 152" 152 "$RUN_RC"
run --wall-time 200ms -- sleep 5
check_eq "run: a wall-time kill gives 124" 124 "$RUN_RC"
run --fsize 1MiB -- "$PROGS/fsize" "$T/big" 4
check_eq "run: a file-size kill gives 153" 153 "$RUN_RC"
# Memory, as far as this version enforces it (per process; the tree limit
# needs cgroups): a program refused its 256 MiB fails, and run says so.
mkfifo "$T/as.go"
run --address-space 64MiB -- "$PROGS/hold" 256 "$T/as.ready" "$T/as.go"
check_re "run: a program over --address-space fails, and the verdict (last line) says so" \
	"^proctor: (exited [1-9][0-9]*|signaled SIG[A-Z]+)" "${RUN_ERR##*$'\n'}"
check "...and a non-zero exit code" test "$RUN_RC" -ne 0
run -- "$T/no-such-program"
check_eq "run: a program that cannot start gives 127" 127 "$RUN_RC"
check_re "...with the failure in the verdict" "^proctor: failed exec: " "$RUN_ERR"
run --dir "$T/mine" -- true
check_eq "run refuses --dir (it owns the directory): 125" 125 "$RUN_RC"
check_re "...and says why" "cannot be used with run" "$RUN_ERR"
run --daemonize -- true
check_eq "run refuses --daemonize: 125" 125 "$RUN_RC"
run --bogus-option -- true
check_eq "run: a proctord usage error gives 125" 125 "$RUN_RC"
out=$(printf 'line\n' | timeout 30 "$PROCTOR" run -- cat 2>/dev/null)
check_eq "run: stdin is passed through" line "$out"
run --report "$T/run.json" -- sh -c 'exit 7'
check_eq "run: proctord options such as --report pass through" "exited 7" \
	"$(jsonget "$T/run.json" status.head 2>&1)"
after=$(ls -d "$TMPDIR"/proctor-run.* 2>/dev/null | sort)
check_eq "...and none of these runs left a directory in \$TMPDIR" "" \
	"$(comm -13 <(echo "$before") <(echo "$after") | grep . || true)"

# proctor watch, through a pseudo-terminal: the figures, then it ends with
# the program.
sb4="$T/watch"
pd_start --dir "$sb4" -- sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'
timeout 30 script -qec "$PROCTOR watch --interval 0.1 $sb4" /dev/null > "$T/watch.out" 2>&1
check_eq "watch exits 0 when the program ends" 0 "$?"
screen=$(tr -d '\r' < "$T/watch.out")
check_re "...after showing the program running with its CPU %" "status  running" "$screen"
check_re "...CPU and memory lines" "cpu +[0-9]+\\.[0-9]{3} s +[0-9]+\\.[0-9] % of one core" "$screen"
check_re "...and the final status" "status  exited 0" "$screen"
check_re "...drawn on a cleared screen (a terminal)" $'\e\\[H\e\\[2J' "$screen"
wait0 "$sb4"

done_testing
