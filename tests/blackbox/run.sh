#!/bin/bash
# SPDX-License-Identifier: ISC
# proctor run as a judge or a person uses it: $TMPDIR, finding proctord, signals, a terminal, the verdict; exact option names, per-command help, watch's last frame.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

: "${PROCTOR:?set PROCTOR to the proctor command}"
PROCTOR=$(realpath "$PROCTOR")
export PROCTORD

# Every run's private directory goes here, and must be gone afterwards.
export TMPDIR="$T/tmp"
mkdir "$TMPDIR"
# (valgrind's gdb server puts its FIFOs in $TMPDIR too: not ours.)
left() { ls -A "$TMPDIR" | grep -v '^vgdb-'; }

# run ARGS...: proctor run with stdin from /dev/null; RUN_RC, RUN_OUT (its
# stdout), RUN_ERR (its stderr), RUN_LAST (the last line of its stderr).
run() {
	timeout 60 "$PROCTOR" run "$@" >"$T/run.out" 2>"$T/run.err" </dev/null
	RUN_RC=$?
	RUN_OUT=$(<"$T/run.out")
	RUN_ERR=$(<"$T/run.err")
	RUN_LAST=$(tail -n 1 "$T/run.err")
}

# --- 12.2: the private directory is under $TMPDIR ---------------------------
run -- sh -c 'ls "$TMPDIR" | grep -v "^vgdb-"'
check_re "run makes its private directory under \$TMPDIR" '^proctor-run\.[A-Za-z0-9]{6}$' "$RUN_OUT"
check_eq "...and removes it" "" "$(left)"

# --- a program that ends before the supervisor exists ----------------------
# It dies between its start and the supervisor's (here: a pause of 300 ms
# there, PROCTORD_PAUSE_AT; a program killed by its memory limit at once
# did it under load). proctord once took that end in before proctor run's
# --end-fd was handed over, and never said so: proctor run waited forever.
PROCTORD_PAUSE_AT=program:300 run -- sh -c 'exit 7'
check_eq "a program that ends before the supervisor exists: run ends, with its exit code" 7 \
	"$RUN_RC" || diag "$RUN_ERR"
check_re "...and its verdict" '^proctor: exited 7;' "$RUN_LAST"
sb="$T/early"
PROCTORD_PAUSE_AT=program:300 pd_start --dir "$sb" --report "$T/early.json" -- sh -c 'exit 7'
wait0 "$sb"
check_eq "...and a terminating wait on a proctord of its own says so" "exited 7" "$ANS_STATUS"
wait_for "$T_OP" test -s "$T/early.json"
check_eq "...and its report is written" "exited 7" "$(jsonget "$T/early.json" status.head 2>&1)"

# --- 12.3: proctord beside proctor, then PATH; PROCTORD wins ------------------
out=$(env -u PROCTORD PATH=/usr/bin:/bin timeout 60 "$PROCTOR" run -- sh -c 'exit 5' 2>&1 </dev/null)
check_eq "without PROCTORD and with no proctord on the PATH, run finds the proctord beside it" 5 "$?" ||
	diag "$out"
mkdir "$T/bin" "$T/alone" "$T/path"
cp "$PROCTOR" "$T/bin/proctor"
cp "$PROCTOR" "$T/alone/proctor"
for d in bin path; do
	printf '#!/bin/sh\necho %s >"%s/used"\nexec "%s" "$@"\n' "$d" "$T" "${PROCTORD_REAL:-$PROCTORD}" >"$T/$d/proctord"
	chmod 0755 "$T/$d/proctord"
done
env -u PROCTORD PATH="$T/path:/usr/bin:/bin" timeout 60 "$T/bin/proctor" run -- true </dev/null 2>/dev/null
check_eq "an installed proctor runs the proctord in its own directory before the PATH's" bin \
	"$(cat "$T/used" 2>/dev/null)"
rm -f "$T/used"
env -u PROCTORD PATH="$T/path:/usr/bin:/bin" timeout 60 "$T/alone/proctor" run -- true </dev/null 2>/dev/null
check_eq "...and the PATH's when there is none beside it" path "$(cat "$T/used" 2>/dev/null)"
rm -f "$T/used"
PROCTORD="$T/bin/proctord" PATH="$T/path:/usr/bin:/bin" timeout 60 "$T/alone/proctor" run -- true </dev/null 2>/dev/null
check_eq "...and PROCTORD before both" bin "$(cat "$T/used" 2>/dev/null)"
PROCTORD="$T/no-such-proctord" run -- true
check_eq "a PROCTORD that cannot run: 125" 125 "$RUN_RC"
check_re "...saying so" "cannot run $T/no-such-proctord" "$RUN_ERR"
check_eq "...and nothing left behind" "" "$(left)"

# --- 12.6: the verdict on stderr, with wall time and peak memory -------------
run -- sh -c 'echo out; echo err >&2; exit 3'
check_eq "run: the program's stdout is its own" out "$RUN_OUT"
check_re "the verdict line has the CPU, wall time and peak memory" \
	'^proctor: exited 3; cpu [0-9]+\.[0-9]{3} s, wall [0-9]+\.[0-9]{3} s, peak [0-9]+\.[0-9] MiB$' "$RUN_LAST"
# --json FILE, --json-fd N: run-json.sh.
run --report "$T/mine.json" -- sh -c 'exit 6'
check_eq "run --report FILE: the report is written where asked" "exited 6" \
	"$(jsonget "$T/mine.json" status.head 2>&1)"
check_re "...and the verdict still has wall and peak" ', wall [0-9.]+ s, peak ' "$RUN_LAST"
check_eq "none of these runs left anything in \$TMPDIR" "" "$(left)"

# --- 12.7: exact option names; realtime signals ----------------------------
run --daemon -- true
check_eq "run --daemon (an abbreviation of --daemonize): refused, 125" 125 "$RUN_RC"
check_re "...proctord names the option and the one meant" "unknown option '--daemon' \\(did you mean --daemonize\\?\\)" "$RUN_ERR"
check_eq "...and nothing is left behind" "" "$(left)"
run --dir-mode 0750 -- true
check_eq "run --dir-mode (not --dir) is accepted" 0 "$RUN_RC"
run --dir="$T/d" -- true
check_eq "run --dir=X is refused: 125" 125 "$RUN_RC"
check_re "...saying why" "run: --dir cannot be used with run" "$RUN_ERR"
out=$(timeout "$T_OP" "$PROCTORD" --cpu 1s -- true 2>&1)
check_eq "proctord --cpu (an abbreviation): usage error, 2" 2 "$?"
check_re "...in one line naming it and pointing at --help" \
	"^proctord: unknown option '--cpu' \\(did you mean --cpu(s|-time)\\?\\); see 'proctord --help'$" "$out"
out=$(timeout "$T_OP" "$PROCTOR" wait --time 1 "$T" 2>&1)
check_eq "proctor wait --time (an abbreviation): usage error, 2" 2 "$?"
check_re "...naming it" "unknown option '--time' \\(did you mean --timeout\\?\\)" "$out"
for s in RTMIN+2 RTMAX-1 RTMAX; do
	n=$(kill -l "$s")
	run -- bash -c "kill -s $s \$\$"
	check_eq "run: a program ended by SIG$s exits 128 + $n" $((128 + n)) "$RUN_RC"
	check_re "...status signaled SIG$s" "^proctor: signaled SIG${s/+/\\+}: real-time signal;" "$RUN_LAST"
done
if command -v python3 >/dev/null; then
	out=$(PYTHONPATH="$(dirname "$0")/../../contrib/python" python3 -c '
import proctor
for s in ("SIGRTMIN", "SIGRTMIN+2", "SIGRTMAX-1", "SIG33"):
    print(proctor.parse(("1\n2\nsignaled %s: real-time signal\n" % s).encode()).signal)' 2>&1)
	check_eq "the Python client reads these names" $'SIGRTMIN\nSIGRTMIN+2\nSIGRTMAX-1\nSIG33' "$out"
else
	skip "the Python client reads these names" "no python3"
fi

# --- 12.9: per-command help and one-line usage errors ---------------------------
for c in wait stop watch run; do
	out=$(timeout "$T_OP" "$PROCTOR" "$c" --help 2>&1)
	check_eq "proctor $c --help exits 0" 0 "$?"
	check_re "...with the command's usage" "^Usage: proctor $c " "$out"
done
out=$(timeout "$T_OP" "$PROCTOR" watch --interval 0.001 "$T" 2>&1)
check_eq "watch --interval 0.001: usage error, 2" 2 "$?"
check_eq "...one line naming the value and pointing at the command's help" \
	"proctor: watch: --interval 0.001: not a number of seconds from 0.01 to 86400; see 'proctor watch --help'" "$out"
out=$(timeout "$T_OP" "$PROCTOR" wait --timeout abc "$T" 2>&1)
check_eq "wait --timeout abc: usage error, 2" 2 "$?"
check_eq "...one line" "proctor: wait: --timeout abc: not a number of seconds from 0 to 86400; see 'proctor wait --help'" "$out"
out=$(timeout "$T_OP" "$PROCTOR" stop 2>&1)
check_eq "stop without DIR: one line" "proctor: stop: no DIR given; see 'proctor stop --help'" "$out"

# --- 12.14: watch's last frame has no CPU % ------------------------------------
# Busy for 1 to 2 s of wall time, however loaded the machine (a count of
# loops ended before watch's first frame once).
pd_start --dir "$T/w" -- bash -c 'while [ $SECONDS -lt 2 ]; do :; done'
timeout 60 "$PROCTOR" watch --interval 0.05 "$T/w" >"$T/watch.out"
check_eq "watch exits 0 when the program ends" 0 "$?"
check_re "...its earlier frames show a CPU %" "% of one core" "$(<"$T/watch.out")"
check_re "...its last frame the final status" "status  exited 0$" "$(tail -n 1 "$T/watch.out")"
check_re "...and the CPU time without a % (no rate once ended)" '^  cpu +[0-9]+\.[0-9]{3} s$' \
	"$(tail -n 3 "$T/watch.out" | head -n 1)"
wait0 "$T/w"

# --- 12.4: signals to proctor run; proctord dying ---------------------------
# bg_run ARGS...: proctor run in the background (BG_PID), output in $T/bg.*.
bg_run() {
	"$PROCTOR" run "$@" >"$T/bg.out" 2>"$T/bg.err" </dev/null &
	BG_PID=$!
	# Started once the program is (its box has a status FIFO).
	wait_for "$T_OP" eval 'compgen -G "$TMPDIR/proctor-run.*/box/status" >/dev/null'
}
bg_end() {
	pd_reap "$BG_PID" "${1:-$T_OP}"
	BG_RC=$PD_EXIT
	BG_LAST=$(tail -n 1 "$T/bg.err")
}

for sig in TERM INT HUP; do
	# Once the program runs: a signal before it exists has nobody to reach.
	rm -f "$T/bg.started"
	bg_run -- sh -c 'touch "$1"; exec sleep 100' sh "$T/bg.started"
	wait_for "$T_OP" test -e "$T/bg.started"
	kill -s "$sig" "$BG_PID"
	bg_end
	n=$(kill -l "$sig")
	check_eq "SIG$sig to run: passed on to the program, which it ends; run exits 128 + $n" $((128 + n)) "$BG_RC"
	check_re "...with the verdict" "^proctor: signaled SIG$sig: .*; cpu .*, wall .*; interrupted by SIG$sig$" "$BG_LAST"
	check_eq "...and nothing left behind" "" "$(left)"
done

# Passed on, every one: the first reaches the program, which ignores it, the
# second ends the 20 s grace.
bg_run --grace 20s -- "$PROGS/ignsig" "$T/ign.ready"
wait_for "$T_OP" test -e "$T/ign.ready"
t0=${EPOCHREALTIME/./}
kill -s TERM "$BG_PID"
sleep 0.2
check "one SIGTERM to run, ignored by the program: it runs on, in the grace" kill -0 "$BG_PID"
kill -s TERM "$BG_PID"
bg_end 30
check_range "...a second ends the 20 s grace: run ends at once" 0 10000000 $((${EPOCHREALTIME/./} - t0))
check_eq "...the tree killed: 143" 143 "$BG_RC"
check_re "...with the verdict" "^proctor: killed terminate: .*; interrupted by SIGTERM$" "$BG_LAST"

# proctord killed while a wait call is under way: run notices its child's
# end at once, rather than at the call's timeout (5 s).
bg_run -- sleep 100
pd=$(pgrep -P "$BG_PID")
kill -s STOP "$pd"
sleep 0.3 # a wait call is now waiting for its answer
t0=${EPOCHREALTIME/./}
pd_kill "$pd"
bg_end 30
check_eq "proctord killed outright: run exits 125" 125 "$BG_RC"
native timing check_range "...at once, not at its wait call's timeout (< 2 s)" 0 2000000 $((${EPOCHREALTIME/./} - t0))
check_re "...saying so" "proctord was killed by SIGKILL before the verdict" "$BG_LAST"
check_eq "...and removes its directory, FIFOs and all" "" "$(left)"
# The next proctord removes the cgroups the killed one left, and says so on
# its stderr: let that be one of ours.
run -- true

# --- 12.5: at a terminal, the program reads what is typed --------------------
if ! command -v script >/dev/null; then
	skip "at a terminal, the program reads the typed line" "no script(1)"
	skip "...and the terminal is the shell's again afterwards" "no script(1)"
else
	cat >"$T/tty.sh" <<-EOF
	"$PROCTOR" run --wall-time 20s -- sh -c 'read l; echo "got:\$l"'
	echo "rc:\$?"
	read m; echo "after:\$m"
	EOF
	t0=${EPOCHREALTIME/./}
	printf 'one\ntwo\n' | timeout 60 script -qec "bash $T/tty.sh" /dev/null >"$T/tty.out" 2>&1
	screen=$(tr -d '\r' <"$T/tty.out")
	check_re "at a terminal, the program reads the typed line (it holds the foreground)" \
		$'\ngot:one\n' "$screen"
	check_re "...ends by itself (exited 0, not a wall-time kill)" $'proctor: exited 0; .*\nrc:0\n' "$screen"
	check_re "...and the terminal is the shell's again afterwards" $'\nafter:two' "$screen"
	native timing check_range "...all within 10 s" 0 10000000 $((${EPOCHREALTIME/./} - t0))
fi

# Without TMPDIR, the private directory goes to XDG_RUNTIME_DIR (where FIFOs
# belong; a tmpfs), if it is a directory of ours, and is removed after.
mkdir -m 700 "$T/xdg-run"
out=$(env -u TMPDIR XDG_RUNTIME_DIR="$T/xdg-run" "$PROCTOR" run -- sh -c 'ls "$XDG_RUNTIME_DIR"' \
	</dev/null 2>/dev/null)
check_re "no TMPDIR: the private directory is made under XDG_RUNTIME_DIR" '^proctor-run\.' "$out"
check_eq "...and removed" "" "$(ls -A "$T/xdg-run" | grep -v '^vgdb-')"

# A container's entry point: proctor run as PID 1 of its PID namespace (its
# child's parent is 1 by right, not because proctor run died).
if [ "$(id -u)" = 0 ] && unshare --pid --fork --mount-proc true 2>/dev/null; then
	timeout "$T_OP" unshare --pid --fork --mount-proc "$PROCTOR" run -- sh -c 'exit 3' \
		</dev/null >/dev/null 2>"$T/pid1.err"
	check_eq "proctor run as PID 1 (a container's entry point): the program's exit code" 3 "$?" ||
		diag "$(<"$T/pid1.err")"
else
	skip "proctor run as PID 1 (a container's entry point)" "not root, or no PID namespaces"
fi

done_testing
