#!/bin/bash
# SPDX-License-Identifier: ISC
# Signals to proctord and to proctor run climb a ladder: the first reaches the program and starts the grace, the second ends the grace.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

: "${PROCTOR:?set PROCTOR to the proctor command}"
PROCTOR=$(realpath "$PROCTOR")
export PROCTORD

# A background job of a script starts with SIGINT ignored; env puts it back.
fg_start() {
	pd_seq=$((pd_seq + 1))
	PD_ERR="$T/pd.$pd_seq.err"
	env --default-signal=INT "$PROCTORD" "$@" >/dev/null 2>"$PD_ERR" </dev/null &
	PD_PID=$!
}
head_of() { "$PROGS/jsonget" "$1" status.head 2>&1; }

# --- proctord in the foreground ------------------------------------------------
for sig in INT TERM HUP; do
	sb="$T/ign-$sig"
	fg_start --dir "$sb" --grace 20s --report "$T/ign-$sig.json" -- "$PROGS/ignsig" "$T/ign-$sig.ready"
	wait_for "$T_OP" test -e "$T/ign-$sig.ready"
	kill -s "$sig" "$PD_PID"
	pause 0.3
	check "one SIG$sig to proctord, ignored by the program: proctord runs on" kill -0 "$PD_PID"
	wait1 "$sb"
	check_eq "...and says the program is running, within the 20 s grace" running "$ANS_HEAD"
	t0=${EPOCHREALTIME/./}
	kill -s "$sig" "$PD_PID"
	pd_reap "$PD_PID"
	check_eq "a second SIG$sig ends the grace: proctord exits 4" 4 "$PD_EXIT"
	native timing check_range "...at once, not at the grace's end (< 5 s)" 0 5000000 $((${EPOCHREALTIME/./} - t0))
	check_eq "...the program killed terminate" "killed terminate" "$(head_of "$T/ign-$sig.json")"
done

# The first signal reaches the program: it saves its state and exits.
for sig in TERM INT; do
	fg_start --grace 20s --report "$T/save-$sig.json" -- "$PROGS/ignsig" "$T/save-$sig.ready" "$T/save-$sig"
	wait_for "$T_OP" test -e "$T/save-$sig.ready"
	t0=${EPOCHREALTIME/./}
	kill -s "$sig" "$PD_PID"
	pd_reap "$PD_PID"
	check_eq "SIG$sig to proctord reaches the program first" "$sig" "$(cat "$T/save-$sig" 2>&1)"
	check_eq "...which ends by itself within the grace: exited 3" "exited 3" "$(head_of "$T/save-$sig.json")"
	check_eq "...and proctord exits 4" 4 "$PD_EXIT"
	native timing check_range "...as soon as the program has ended (< 5 s of a 20 s grace)" 0 5000000 \
		$((${EPOCHREALTIME/./} - t0))
done

# --- proctor run ------------------------------------------------------------------
# run_bg ARGS...: proctor run leading a process group of its own, as a
# shell's job does (RUN_PID, which is also the group's id).
run_bg() {
	setsid "$PROCTOR" run "$@" >"$T/run.out" 2>"$T/run.err" </dev/null &
	RUN_PID=$!
}
run_end() {
	pd_reap "$RUN_PID" "${1:-$T_OP}"
	RUN_RC=$PD_EXIT
	RUN_LAST=$(tail -n 1 "$T/run.err")
}

# SIGINT to the job's process group (a shell's kill -INT %1): proctord is
# told once per signal, not once by the group and once by proctor run.
run_bg --grace 20s -- "$PROGS/ignsig" "$T/run-ign.ready"
wait_for "$T_OP" test -e "$T/run-ign.ready"
kill -s INT -- "-$RUN_PID"
sleep 0.3
check "one SIGINT to proctor run's group, ignored by the program: the run goes on" kill -0 "$RUN_PID"
t0=${EPOCHREALTIME/./}
kill -s INT -- "-$RUN_PID"
run_end
check_eq "a second SIGINT ends the grace: run exits 130" 130 "$RUN_RC"
native timing check_range "...at once, not at the grace's end (< 5 s)" 0 5000000 $((${EPOCHREALTIME/./} - t0))
check_re "...with the verdict" "^proctor: killed terminate: .*; interrupted by SIGINT$" "$RUN_LAST"

# SIGTERM to proctor run reaches the program, which saves and exits 3.
run_bg --grace 20s -- "$PROGS/ignsig" "$T/run-save.ready" "$T/run-save"
wait_for "$T_OP" test -e "$T/run-save.ready"
kill -s TERM "$RUN_PID"
run_end
check_eq "SIGTERM to proctor run reaches the program first" TERM "$(cat "$T/run-save" 2>&1)"
check_eq "...which exits 3 within the grace: run exits 3" 3 "$RUN_RC"
check_re "...with the verdict" "^proctor: exited 3; .*; interrupted by SIGTERM$" "$RUN_LAST"

# --- ^C at a terminal, where the program holds the foreground -----------------------
# A pseudo-terminal (python3's pty): proctor run is its session's
# foreground job, and hands the terminal to the program, which ignores
# SIGINT. The terminal's ^C must still reach proctord: the first starts
# the grace, the second ends it.
cat >"$T/caret-c.py" <<'PY'
import os, pty, sys, time
ready, argv = sys.argv[1], sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(argv[0], argv)
screen = b""
def drain(seconds):
    global screen
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            screen += os.read(fd, 4096)
        except OSError:
            time.sleep(0.01)
os.set_blocking(fd, False)
t = time.monotonic() + 20
while not os.path.exists(ready) and time.monotonic() < t:
    drain(0.01)
os.write(fd, b"\x03")
drain(0.3)
done, status = os.waitpid(pid, os.WNOHANG)
print("alive after one:", done == 0)
t0 = time.monotonic()
os.write(fd, b"\x03")
while not done and time.monotonic() < t0 + 30:
    drain(0.01)
    done, status = os.waitpid(pid, os.WNOHANG)
print("elapsed_us:", int((time.monotonic() - t0) * 1e6))
print("rc:", os.waitstatus_to_exitcode(status) if done else "running")
drain(0.1)
print(screen.decode(errors="replace").replace("\r", ""))
PY
if vg_on; then
	# The terminal's ^C goes to the whole foreground group, the init of
	# the program's PID namespace included, which is proctord's fork and
	# runs under valgrind: valgrind's handler takes what the kernel would
	# have dropped, and dies of it.
	for what in "one ^C" "a second ^C" "the verdict" "the exit code"; do
		skip "at a terminal: $what" "under valgrind (its init takes ^C)"
	done
else
	timeout 60 python3 "$T/caret-c.py" "$T/pty.ready" "$PROCTOR" run --grace 20s -- \
		"$PROGS/ignsig" "$T/pty.ready" >"$T/pty.out" 2>&1
	screen=$(<"$T/pty.out")
	check_re "at a terminal, one ^C, ignored by the program: the run goes on" \
		$'^alive after one: True\n' "$screen" || diag "$screen"
	elapsed=$(sed -n 's/^elapsed_us: //p' "$T/pty.out")
	check_range "...a second ^C ends the 20 s grace: the run ends" 0 15000000 "${elapsed:-x}"
	check_re "...the program killed terminate, interrupted by the terminal's SIGINT" \
		$'\nproctor: killed terminate: [^\n]*; interrupted by SIGINT' "$screen"
	check_re "...run exits 130 (128 + SIGINT), as a shell's job that ^C ended" $'\nrc: 130\n' "$screen"
fi

# --- kill -INT to proctor run at a terminal, where the program holds it -------
# The same as a ^C: to the program's group, which proctord shares (it
# passes no SIGINT on there, taking it for the terminal's).
if vg_on; then
	skip "at a terminal, kill -INT to proctor run reaches the program" "under valgrind (its init takes SIGINT)"
elif ! command -v script >/dev/null; then
	skip "at a terminal, kill -INT to proctor run reaches the program" "no script(1)"
else
	timeout -s KILL 60 script -qec "$PROCTOR run --grace 20s -- $PROGS/ignsig $T/int.ready $T/int.save" \
		/dev/null </dev/null >"$T/int.screen" 2>&1 &
	script_pid=$!
	wait_for "$T_OP" test -e "$T/int.ready"
	run_pid=$(pgrep -f "^$PROCTOR run --grace 20s -- $PROGS/ignsig $T/int.ready")
	kill -s INT $run_pid
	wait "$script_pid"
	int_rc=$?
	check_eq "at a terminal, kill -INT to proctor run reaches the program" INT "$(cat "$T/int.save" 2>&1)"
	check_re "...which exits 3: the verdict, interrupted by SIGINT" \
		$'(^|\n)proctor: exited 3; [^\n]*; interrupted by SIGINT' "$(tr -d '\r' <"$T/int.screen")"
	check_eq "...run exits 3" 3 "$int_rc"
fi

# --- at a terminal, standard input redirected --------------------------------
# proctor run ... < file at a shell: the output is still the terminal, and
# with stty tostop a write from a background group stops the writer
# (SIGTTOU). The program gets the foreground through descriptor 1.
if ! command -v script >/dev/null; then
	skip "at a terminal, stdin redirected, stty tostop: the program writes" "no script(1)"
else
	screen=$(timeout -s KILL 20 script -qec "stty tostop; $PROCTOR run --wall-time 10s -- echo written </dev/null" \
		/dev/null </dev/null 2>&1 | tr -d '\r')
	check_re "at a terminal, stdin redirected, stty tostop: the program writes, and exits 0" \
		$'^written\nproctor: exited 0; ' "$screen" || diag "$screen"
fi

# --- at a terminal, where neither a cgroup nor /proc can list the tree --------
# proctord shares the program's process group (the terminal's foreground).
# Without a cgroup and with a /proc that is not its own (a tmpfs over it),
# only that group names the tree, and the group's SIGKILL would be
# proctord's own: it used to sweep for ever, even after the program's end.
# script(1) gives the run its terminal (cheaper than python3 here).
cat >"$T/blind.sh" <<'SH'
#!/bin/sh
# proctor run ARGS with a tmpfs over /proc, in a mount namespace of its own.
exec unshare --mount sh -c 'mount -t tmpfs none /proc && exec "$@"' sh "$PROCTOR" run --cgroup none "$@"
SH
chmod 0755 "$T/blind.sh"
# tty_blind ARGS...: proctor run ARGS at a terminal, /proc masked; prints
# the screen, then "rc: N" (script -e: the run's exit code).
tty_blind() {
	timeout -s KILL 20 script -qec "$T/blind.sh $*" /dev/null </dev/null 2>&1 | tr -d '\r'
	echo "rc: ${PIPESTATUS[0]}"
}
blind="at a terminal, with neither a cgroup nor /proc"
if [ "$(id -u)" != 0 ] || ! unshare --mount true 2>/dev/null || ! command -v script >/dev/null; then
	skip "$blind: the run ends" "needs root (unshare --mount) and script(1)"
	skip "$blind: a limit kills the tree" "needs root (unshare --mount) and script(1)"
elif vg_on || san_on; then
	# Both read /proc/self (valgrind to start, the sanitizers' options).
	skip "$blind: the run ends" "valgrind and the sanitizers need /proc"
	skip "$blind: a limit kills the tree" "valgrind and the sanitizers need /proc"
else
	screen=$(tty_blind -- sleep 0.2)
	check_re "$blind: the run ends, with the program's verdict" \
		$'^proctor: exited 0; .*\nrc: 0$' "$screen" || diag "$screen"
	screen=$(tty_blind --wall-time 300ms -- sleep 30)
	check_re "$blind: a limit kills the tree, and the run ends" \
		$'^proctor: killed wall-time: .*\nrc: 124$' "$screen" || diag "$screen"
fi

vg_check
done_testing
