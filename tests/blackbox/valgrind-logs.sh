#!/bin/bash
# SPDX-License-Identifier: ISC
# The valgrind check (lib.sh: vg_judge) fails on a leak or an error of any proctord process, and excuses only valgrind's own crash in what a proctord killed on purpose left behind.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# Log texts in memcheck's --quiet format.
crash() {
	printf '%s\n' '' "valgrind: the 'impossible' happened:" "   $2" '' 'host stacktrace:' \
		"==$1==    at 0x580429AA: ??? (in /usr/libexec/valgrind/memcheck-amd64-linux)" \
		"==$1==    by 0x58042AC7: ??? (in /usr/libexec/valgrind/memcheck-amd64-linux)" \
		'' 'sched status:' "  running_tid=1" ''
}
fatal() { crash "$1" 'main(): signal was supposed to be fatal'; }
leak() {
	printf '==%s== 16 bytes in 1 blocks are definitely lost in loss record 1 of 1\n' "$1"
	printf '==%s==    at 0x483877F: malloc (vg_replace_malloc.c:307)\n' "$1"
}
warning() { printf -- '--%s-- WARNING: unhandled amd64-linux syscall: 434\n' "$1"; }

# judge NAME FILE=TEXT-COMMAND...: a directory of logs; prints vg_judge's line.
judge() {
	local d="$T/$1" f
	shift
	mkdir "$d"
	for f in "$@"; do
		eval "${f#*=}" >"$d/${f%%=*}"
	done
	vg_judge "$d" | head -n 1
}

got=$(judge clean '100.100.log=:' '100.1.log=:' '100.2.log=warning 100')
check_re "logs with warnings only pass" '^ok .* in 3 proctord processes$' "$got"

got=$(judge killed '200.200.log=warning 200' '200.1.log=fatal 1' 'killed=echo 200 200')
check_re "valgrind's crash in the init of a proctord killed on purpose passes" '^ok ' "$got"

got=$(judge daemon '300.300.log=:' '300.305.log=:' '300.1.log=fatal 1' 'killed=echo 300 305')
check_re "...and so for a --daemonize proctord (its family is its first pid)" '^ok ' "$got"

got=$(judge unkilled '400.400.log=:' '400.1.log=fatal 1')
check_re "that crash fails where no proctord was killed on purpose" '^not ok .* 1 of 2 ' "$got"

got=$(judge other-family '500.500.log=:' '500.1.log=fatal 1' '501.1.log=fatal 1' 'killed=echo 500 500')
check_re "...and in another proctord's init" '^not ok .* 1 of 3 ' "$got"

got=$(judge killed-leak '600.600.log=:' '600.1.log=fatal 1; leak 1' 'killed=echo 600 600')
check_re "a leak in the init of a killed proctord still fails" '^not ok .* 1 of 2 ' "$got"

got=$(judge killed-own '700.700.log=leak 700' 'killed=echo 700 700')
check_re "a report of the killed proctord itself still fails" '^not ok .* 1 of 1 ' "$got"

got=$(judge other-crash '800.800.log=:' '800.1.log=crash 1 "VG_(unknown_SP_update)"' 'killed=echo 800 800')
check_re "valgrind's other crashes still fail" '^not ok .* 1 of 2 ' "$got"

got=$(judge leak '900.900.log=leak 900' '900.1.log=:')
check_re "a leak of proctord fails" '^not ok .* 1 of 2 ' "$got"

# pd_kill writes the family down from the process's environment.
PROCTOR_VG_PD=4242 sleep 100 &
pid=$!
mkdir -p "$T/vg"
wait_for "$T_OP" eval "[ \"\$(vg_family $pid)\" = 4242 ]"
PROCTORD_VALGRIND=1 pd_kill "$pid"
wait "$pid" 2>/dev/null
check_eq "pd_kill: the process is killed" 137 "$?"
check "...and its family is written down" grep -qx "4242 $pid" "$T/vg/killed"

# A namespace's init is told apart from a process whose pid is 1 nowhere.
unshare --user --map-root-user --pid --fork --kill-child sleep 100 &
ns=$!
if wait_for "$T_OP" eval '[ -n "$(pgrep -P $ns)" ]'; then
	init=$(pgrep -P "$ns")
	check "vg_ns_init: a PID namespace's init is one" vg_ns_init "$init"
	check "...the script is none" eval '! vg_ns_init $$'
else
	skip "vg_ns_init: a PID namespace's init is one" "unshare --pid failed"
	skip "...the script is none" "unshare --pid failed"
fi
# SIGKILL: unshare holds SIGTERM while it waits, and the wait would last the
# whole sleep (--kill-child takes the sleep along).
kill -KILL "$ns" 2>/dev/null
wait "$ns" 2>/dev/null

done_testing
