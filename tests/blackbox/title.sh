#!/bin/bash
# SPDX-License-Identifier: ISC
# proctord's process title, as ps shows it: "proctord: DIR: running PROGRAM",
# then the status head once the verdict is known.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# title PID: what ps shows as its command line.
title() { ps -o args= -p "$1" 2>/dev/null; }
title_is() { [ "$(title "$1")" = "$2" ]; }

if vg_on; then
	# The process is valgrind's tool: its command line is valgrind's.
	skip "the process title" "under valgrind (the process is valgrind's)"
	done_testing
	exit 0
fi

sb="$T/sleeping"
pd_start --dir "$sb" -- sleep 100
pid=$(pd_pid "$sb")
check "a running program: ps shows proctord: DIR: running PROGRAM" \
	wait_for "$T_OP" title_is "$pid" "proctord: $sb: running sleep" || diag "title: $(title "$pid")"
check "the environment is left as it was (/proc/PID/environ)" \
	grep -qzxF "PROCTOR_BB_TAG=$T" "/proc/$pid/environ"
wait0 "$sb"
check_eq "...and it ends as before" "killed terminate" "$ANS_HEAD" || ans_diag

# A limit: the head of the verdict, once it is decided.
sb="$T/spin"
pd_start --dir "$sb" --cpu-time 200ms -- "$PROGS/spin"
pid=$(pd_pid "$sb")
check "killed for CPU time: ps shows proctord: DIR: killed cpu-time" \
	wait_for "$T_OP" title_is "$pid" "proctord: $sb: killed cpu-time" || diag "title: $(title "$pid")"
wait0 "$sb"
check_eq "...and the answer says the same" "killed cpu-time" "$ANS_HEAD" || ans_diag

# A program that ends by itself.
sb="$T/true"
pd_start --dir "$sb" -- true
pid=$(pd_pid "$sb")
check "a program that exited: ps shows proctord: DIR: exited 0" \
	wait_for "$T_OP" title_is "$pid" "proctord: $sb: exited 0" || diag "title: $(title "$pid")"
wait0 "$sb"

# The caller's side of --daemonize is not the daemon: only the daemon's title
# changes (pd_start returned, so the caller has exited), and a proctord in
# the foreground has its title too.
sb="$T/fg"
pd_start_fg --dir "$sb" -- sleep 100
check "proctord in the foreground: ps shows its title" \
	wait_for "$T_OP" title_is "$PD_PID" "proctord: $sb: running sleep" || diag "title: $(title "$PD_PID")"
wait0 "$sb"
pd_reap "$PD_PID"
check_eq "...and it exits 0 after the terminating wait" 0 "$PD_EXIT"

done_testing
