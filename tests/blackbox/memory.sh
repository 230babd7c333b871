#!/bin/bash
# SPDX-License-Identifier: ISC
# Line 2 is the resident memory of the live tree, and 0 once the program has ended.
# The helpers need bash; "sh file.sh" must work too.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

mkfifo "$T/go"
sb="$T/sb"
pd_start --dir "$sb" -- "$PROGS/hold" 64 "$T/ready" "$T/go"
wait_for "$T_OP" test -e "$T/ready"

wait1 "$sb"
check_eq "the program holding memory is running" running "$ANS_STATUS"
check_range "a program holding 64 MiB resident reports 64..72 MiB" $((64 << 20)) $((72 << 20)) "${ANS_MEM:-0}"

# Let hold exit by itself.
timeout "$T_OP" bash -c ': > "$1"' _ "$T/go"
pd_poll "$sb"
check_eq "the program has exited 0" "exited 0" "$ANS_STATUS"
check_eq "memory is 0 once the program has ended" 0 "$ANS_MEM"
cpu=$ANS_CPU
wait1 "$sb"
check_eq "memory stays 0 on later waits" 0 "$ANS_MEM"
check_eq "CPU is frozen once the program has ended" "$cpu" "$ANS_CPU"

wait0 "$sb"
check_eq "the terminating wait after the end keeps exited 0" "exited 0" "$ANS_STATUS"
check_eq "the terminating wait reports memory 0" 0 "$ANS_MEM"

done_testing
