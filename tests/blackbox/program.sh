#!/bin/bash
# SPDX-License-Identifier: ISC
# The program's world: environment, working directory, stdio redirection, stack and address-space limits.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# Environment: inherited by default, set and overridden in order, passed by
# name, or started empty.
export PROCTOR_BB_INHERITED=yes
run_to_end --env A=1 --env A=2 --env B= -- sh -c 'env > "$0"' "$T/env1"
check_eq "a program exits 0 after writing its environment" "exited 0" "$ANS_HEAD"
check "the environment is inherited by default" grep -qx PROCTOR_BB_INHERITED=yes "$T/env1"
check "--env A=1 --env A=2: the later one wins" grep -qx A=2 "$T/env1"
check_eq "...and A appears once" 1 "$(grep -c '^A=' "$T/env1")"
check "--env B= sets an empty value" grep -qx B= "$T/env1"
run_to_end --clear-env --env PROCTOR_BB_INHERITED --env X=y -- /usr/bin/env --null
check_eq "a program started from an empty environment runs (absolute path)" "exited 0" "$ANS_HEAD"
run_to_end --clear-env --env PROCTOR_BB_INHERITED --env X=y --env PATH=/usr/bin:/bin \
	-- sh -c 'env > "$0"' "$T/env2"
check_eq "--clear-env keeps exactly what --env gives" \
	"PATH=/usr/bin:/bin;PROCTOR_BB_INHERITED=yes;X=y;" \
	"$(grep -v '^PWD=' "$T/env2" | sort | tr '\n' ';')"
run_to_end --clear-env --env PATH="$PROGS" -- crash exit 5
check_eq "the program is searched for in its own PATH, not proctord's" "exited 5" "$ANS_HEAD" || ans_diag

# Working directory.
mkdir "$T/wd"
run_to_end --chdir "$T/wd" -- sh -c 'pwd > "$0"' "$T/pwd"
check_eq "--chdir sets the working directory" "$T/wd" "$(<"$T/pwd")"
run_to_end --chdir "$T/no-such-dir" -- true
check_re "a missing --chdir directory is failed chdir, naming it" \
	"^failed chdir: $T/no-such-dir: No such file or directory\$" "$ANS_STATUS"

# Standard streams from and to files (and the default /dev/null when daemonized).
printf 'line one\nline two\n' > "$T/in"
run_to_end --stdin "$T/in" --stdout "$T/out" --stderr "$T/err" \
	-- sh -c 'cat; echo oops >&2'
check_eq "--stdin feeds the program and --stdout receives its output" \
	"line one;line two;" "$(tr '\n' ';' < "$T/out")"
check_eq "--stderr receives its error output" "oops" "$(<"$T/err")"
echo stale > "$T/out2"
run_to_end --stdout "$T/out2" -- printf 'new'
check_eq "--stdout truncates an existing file" "new" "$(<"$T/out2")"
run_to_end -- sh -c 'cat; echo done' 
check_eq "daemonized, the program's stdin is /dev/null (cat ends at once)" "exited 0" "$ANS_HEAD"
run_to_end --stdout "$T/no/such/dir/out" -- true
check_re "an --stdout that cannot be created is failed stdout" "^failed stdout: " "$ANS_STATUS"
run_to_end --stdin "$T/missing" -- true
check_re "a missing --stdin is failed stdin" "^failed stdin: .*: No such file or directory\$" "$ANS_STATUS"

# A FIFO as stdin whose writer never comes blocks the program, never proctord.
mkfifo "$T/never"
sb="$T/fifo-in"
pd_start --dir "$sb" --stdin "$T/never" -- cat
wait1 "$sb"
check_eq "a --stdin FIFO without a writer leaves proctord answering" running "$ANS_HEAD"
wait0 "$sb"
check_eq "...and the terminating wait ends the program blocked in its open" "killed terminate" "$ANS_HEAD"
# Captured with $(... 2>&1): the program, still in its set-up, must not hold
# the caller's stdout or stderr.
dir=$(timeout "$T_OP" "$PROCTORD" --daemonize --stdin "$T/never" -- cat 2>&1 </dev/null)
check_eq "\$(proctord --daemonize ... 2>&1) returns while the program waits on its stdin FIFO" 0 "$?"
check "...and prints the sandbox directory" test -p "$dir/wait"
wait0 "$dir"

# Per-process limits: stack and address space, as the program sees them.
run_to_end --stack 8MiB -- sh -c 'ulimit -s > "$0"; ulimit -Hs >> "$0"' "$T/stack"
native rlimits check_eq "--stack 8MiB sets soft and hard RLIMIT_STACK (KiB)" "8192;8192;" "$(tr '\n' ';' < "$T/stack")"
run_to_end --address-space 64MiB -- "$PROGS/hold" 128 "$T/hold-ready" "$T/hold-fifo"
check_re "--address-space 64MiB stops a program that maps 128 MiB" "^(exited [1-9][0-9]*|signaled SIG)" "$ANS_STATUS"
run_to_end --address-space 1GiB -- sh -c 'ulimit -v > "$0"' "$T/as"
check_eq "--address-space 1GiB is RLIMIT_AS of 1 GiB (KiB)" "1048576" "$(<"$T/as")"
run_to_end -- sh -c 'ulimit -c > "$0"' "$T/core"
check_eq "core files are off" "0" "$(<"$T/core")"

done_testing
