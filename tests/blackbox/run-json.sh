#!/bin/bash
# SPDX-License-Identifier: ISC
# proctor run --json FILE and --json-fd N: the verdict where nothing else writes, a document for every end (set-up errors too), proctord's report and more, in the schema of proto/report.schema.json.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

: "${PROCTOR:?set PROCTOR to the proctor command}"
PROCTOR=$(realpath "$PROCTOR")
export PROCTORD

# run ARGS...: proctor run in $T, stdin from /dev/null; RUN_RC, RUN_OUT (its
# stdout), RUN_ERR (its stderr).
run() {
	(cd "$T" && timeout 60 "$PROCTOR" run "$@" >"$T/run.out" 2>"$T/run.err" </dev/null)
	RUN_RC=$?
	RUN_OUT=$(<"$T/run.out")
	RUN_ERR=$(<"$T/run.err")
}

# --- the verdict in FILE, stderr the program's --------------------------------
run --cpu-time 300ms --json "$T/v.json" --wall-time 30s -- \
	sh -c 'echo out; echo err >&2; while :; do :; done'
check_eq "run --json FILE: the program's stdout is its own" out "$RUN_OUT"
check_eq "...and so is its stderr: no verdict there (but a stale cgroup's removal)" err \
	"$(without_stale "$RUN_ERR")"
check_eq "...the verdict is in FILE" verdict "$(jsonget "$T/v.json" type)"
check_eq "...of version 2" 2 "$(jsonget "$T/v.json" version)"
check_eq "...its status" "killed cpu-time" "$(jsonget "$T/v.json" status.head)"
check_eq "...the limit that was hit" cpu-time "$(jsonget "$T/v.json" status.limit)"
check_eq "...run's exit status" 152 "$(jsonget "$T/v.json" run.exit)"
check_eq "...which is run's" 152 "$RUN_RC"
check_eq "...no signal interrupted run" null "$(jsonget "$T/v.json" run.signal)"
for k in cpu_us user_us sys_us wall_us peak_memory_bytes limits.cpu_time_us; do
	check_re "...$k is a number" '^[0-9]+$' "$(jsonget "$T/v.json" "$k")"
done
check_range "...wall_us covers the CPU time" 300000 30000000 "$(jsonget "$T/v.json" wall_us)"
# What the verdict of old did not have: proctord's report is all in it.
has() { jsonget "$1" "$2" >/dev/null 2>&1; }
for k in not_enforced output_bytes pids_max_hits oom_kills sources.cpu isolation.seccomp; do
	check "...it has proctord's $k" has "$T/v.json" "$k"
done

# isolate's max-rss, csw-voluntary and csw-forced: from the rusage of the
# reaped processes, a grandchild's too (its parent waited for it).
run --json "$T/ru.json" -- sh -c '"$0" alloc 40 && for i in 1 2 3 4 5; do sleep 0.01; done' "$PROGS/isoprog"
check_eq "run --json: a grandchild that touched 40 MiB, then five sleeps: exit 0" 0 "$RUN_RC" || diag "$RUN_ERR"
# ru_maxrss keeps what a process had before its execve: under valgrind, the
# fork of proctord that became sh had valgrind's own.
most=64
vg_on && most=4096
check_range "...max_rss_bytes is its resident set, 40 MiB and not much more (MiB; ASan's own are in)" 40 "$most" \
	"$(($(jsonget "$T/ru.json" max_rss_bytes) >> 20))"
check_range "...csw_voluntary counts at least the five sleeps" 5 100000 "$(jsonget "$T/ru.json" csw_voluntary)"
check_re "...csw_forced is a count" '^[0-9]+$' "$(jsonget "$T/ru.json" csw_forced)"

run --json="$T/v2.json" -- sh -c 'exit 4'
check_eq "run --json=FILE: exit_code of a program that exited" 4 "$(jsonget "$T/v2.json" status.exit_code)"
check_eq "...no limit" null "$(jsonget "$T/v2.json" status.limit)"
check_eq "...run exits with it" 4 "$RUN_RC"
check_eq "...nothing on stderr (but a stale cgroup's removal)" "" "$(without_stale "$RUN_ERR")"

run --json "$T/v3.json" --output-limit 1MiB -- sh -c 'echo 12345'
check_eq "run --json with --output-limit: output_bytes counts the program's output" 6 \
	"$(jsonget "$T/v3.json" output_bytes)"

# A figure above INT64_MAX (jansson cannot read it back) goes through exactly.
run --json "$T/big.json" --fsize 16777215T -- true
check_eq "run --json with --fsize 16777215T: exit 0" 0 "$RUN_RC" || diag "$RUN_ERR"
check_re "...the limit exactly" '"fsize_bytes": 18446742974197923840,' "$(cat "$T/big.json" 2>&1)"
json_keep "$T/big.json"

# --- --json-fd N ---------------------------------------------------------------
run --json-fd 3 -- sh -c 'if [ -e /proc/self/fd/3 ]; then echo leaked; fi; exit 5' 3>"$T/fd.json"
check_eq "run --json-fd 3: the verdict on descriptor 3" "exited 5" "$(jsonget "$T/fd.json" status.head)"
check_eq "...which the program does not inherit" "" "$RUN_OUT"
echo "before" >"$T/fd2.json"
run --json-fd=4 -- true 4>>"$T/fd2.json"
check_re "run --json-fd=4: written where the descriptor is (appended here)" \
	$'^before\n\\{\n  "run": \\{"exit": 0, "signal": null\\},' "$(<"$T/fd2.json")"
run --json-fd 2 -- sh -c 'echo err >&2'
check_eq "run --json-fd 2: the verdict on stderr, after the program's, when asked for" err \
	"$(head -n 1 "$T/run.err")"
tail -n +2 "$T/run.err" >"$T/fd3.json"
check_eq "...and it is JSON" verdict "$(jsonget "$T/fd3.json" type)"
run --json /dev/fd/5 -- true 5>"$T/fd5.json"
check_eq "run --json /dev/fd/5 is --json-fd 5" "exited 0" "$(jsonget "$T/fd5.json" status.head)"
run --json-fd 9 -- true
check_eq "run --json-fd 9 not open: 125" 125 "$RUN_RC"
check_re "...saying why" "^proctor: run: --json-fd 9: descriptor 9 is not open for writing" "$RUN_ERR"

# --- no --json without a FILE ----------------------------------------------
run --json -- true
check_eq "run --json with no FILE: a usage error (125)" 125 "$RUN_RC"
check_re "...that says where the verdict goes" '^proctor: run: --json needs a FILE: .*--json-fd 2' "$RUN_ERR"
run --json --cpu-time 1s -- true
check_eq "run --json --cpu-time 1s: no file named --cpu-time" 125 "$RUN_RC"
check "...none made" gone "$T/--cpu-time"
run --json "$T/a.json" --json-fd 1 -- true
check_eq "--json and --json-fd together: 125" 125 "$RUN_RC"

# --- a document for every end: set-up errors -----------------------------------
echo old >"$T/e1.json"
run --json "$T/e1.json" --dir "$T/x" -- true
check_eq "a usage error of run's with --json FILE: 125" 125 "$RUN_RC"
check_eq "...an error document in FILE, not the old content" error "$(jsonget "$T/e1.json" type)"
check_eq "...its stage" usage "$(jsonget "$T/e1.json" error.stage)"
check_eq "...its message" "--dir cannot be used with run" "$(jsonget "$T/e1.json" error.message)"
check_eq "...run's exit status" 125 "$(jsonget "$T/e1.json" run.exit)"
check_re "...and the message on stderr too" "^proctor: run: --dir cannot be used with run" "$RUN_ERR"

run --json "$T/e2.json" --cpu-time 5parsecs -- true
check_eq "a proctord that refuses its options: 125" 125 "$RUN_RC"
check_eq "...an error document" proctord "$(jsonget "$T/e2.json" error.stage)"
check_re "...that says proctord ended before the verdict" "proctord exited 2 before the verdict" \
	"$(jsonget "$T/e2.json" error.message)"
check_re "...whose own message is on stderr" "^proctord: --cpu-time 5parsecs" "$RUN_ERR"

PROCTORD="$T/no-such-proctord" run --json "$T/e3.json" -- true
check_eq "a proctord that cannot be run: an error document" error "$(jsonget "$T/e3.json" type)"

run --json "$T/e4.json" -- "$T/no-such-program"
check_eq "a program that cannot start: 127" 127 "$RUN_RC"
check_eq "...a verdict that says so" "failed exec" "$(jsonget "$T/e4.json" status.head)"
check_eq "...with the stage" exec "$(jsonget "$T/e4.json" status.stage)"

# JSON is UTF-8; a program's path need not be.
run --json "$T/nu.json" -- "$T/"$'\xff'
check_eq "a program whose path is not UTF-8 and cannot start: 127, as any" 127 "$RUN_RC" || diag "$RUN_ERR"
check_eq "...the verdict's line has the byte escaped" "failed exec: $T/\\xff: No such file or directory" \
	"$(jsonget "$T/nu.json" status.line)"
mkdir "$T/sb.nu"
pd_start --dir "$T/sb.nu" -- "$T/"$'\xff'
# Until the child's execve has failed, the answer is "running" (seen under
# load): the polls wait for the end.
pd_poll "$T/sb.nu"
timeout "$T_OP" "$PROCTOR" wait --json "$T/sb.nu" >"$T/nu.wait.json"
check_eq "...and proctor wait --json's answer too" "failed exec: $T/\\xff: No such file or directory" \
	"$(jsonget "$T/nu.wait.json" status.line)"
timeout "$T_OP" "$PROCTOR" stop "$T/sb.nu" >/dev/null

# --- FILE is checked, and must still be FILE at the end -----------------------
echo theirs >"$T/target"
ln -s "$T/target" "$T/link.json"
run --json "$T/link.json" -- true
check_eq "--json FILE that is a symbolic link: refused (125)" 125 "$RUN_RC"
check_re "...saying so" "^proctor: run: --json $T/link.json: .*symbolic link" "$RUN_ERR"
check_eq "...and what it points to is untouched" theirs "$(<"$T/target")"
mkfifo "$T/fifo.json"
run --json "$T/fifo.json" -- true
check_eq "--json FILE that is a FIFO: refused (125)" 125 "$RUN_RC"
run --json "$T/spoiled.json" -- sh -c 'rm "$0"; echo "{}" >"$0"' "$T/spoiled.json"
check_eq "--json FILE that the program replaced: 125, not its exit code" 125 "$RUN_RC"
check_eq "...saying so, once" 1 "$(grep -c "replaced while the program ran" "$T/run.err")"

check_eq "none of these runs left anything in \$TMPDIR" "" "$(ls -A "$TMPDIR" | grep -v '^vgdb-')"
done_testing
