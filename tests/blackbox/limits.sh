#!/bin/bash
# SPDX-License-Identifier: ISC
# Limits: wall time, CPU time (one and several threads), file size and open files.
# The helpers need bash; "sh file.sh" must work too.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# --wall-time: the kill lands at the limit. The program starts between t0
# (before proctord) and t1 (proctord --daemonize has returned): the kill is
# seen no sooner than 0.3 s after t0 and no later than 0.4 s after t1, 100 ms
# for the kill and the 5 ms polling. Beside two CPU hogs, start-up alone
# took more than the 100 ms that a bound from t0 allowed.
sb="$T/wall"
t0=${EPOCHREALTIME/./}
pd_start --dir "$sb" --wall-time 300ms -- sleep 10
t1=${EPOCHREALTIME/./}
pd_poll "$sb" 5
diag "wall-time kill seen $((${POLL_AT:-0} - t0)) µs after the start, $((${POLL_AT:-0} - t1)) µs after proctord returned"
check_eq "--wall-time 300ms on sleep 10 is killed wall-time" "killed wall-time" "$ANS_HEAD" || ans_diag
native timing check_range "...at about 0.3 s (at least 0.30 s after the start)" 300000 99999999 "$((${POLL_AT:-0} - t0))"
native timing check_range "...(at most 0.40 s after proctord returned)" 0 400000 "$((${POLL_AT:-0} - t1))"
check_eq "...and memory is 0 afterwards" 0 "$ANS_MEM"
wait0 "$sb"

# --cpu-time: a deadline timer, so the overshoot is a few ms at most.
sb="$T/cpu"
witness_start
pd_start --dir "$sb" --cpu-time 500ms -- "$PROGS/spin"
pd_poll "$sb" 10
witness_stop
check_eq "--cpu-time 500ms on a spinner is killed cpu-time" "killed cpu-time" "$ANS_HEAD" || ans_diag
# One sample is held to the benchmark's max (15 ms), not to its p50 target
# (5 ms), which half the samples of a loaded machine exceed by definition:
# 505.1 and 505.5 ms were seen here, with the code of before this line too.
# A poll (isolate's 100 ms) or the RLIMIT_CPU backstop (1 s later) fails it.
# Skipped where the machine itself stalled over half the margin (punctual).
over=15
punctual $((over * 500)) "...with reported CPU between the limit and limit + $over ms" \
	500000 $((500000 + over * 1000)) "${ANS_CPU:-x}"
wait0 "$sb"

# Four spinning threads use min(4, CPUs) CPUs, so 2 s of CPU is spent in about
# 2 s / p of wall time: the deadline must follow the tree's CPU, not the wall
# clock. The issue's 0.4..0.9 s is for p = 4 on an idle machine. On a shared
# one p is what the sandbox really gets (its cgroup competes with everything
# else), so measure it from a wait 0.3 s into the run, and allow 25% + 0.2 s
# for the load to change.
pmax=$(nproc)
[ "$pmax" -gt 4 ] && pmax=4
sb="$T/cpu4"
witness_start
t0=${EPOCHREALTIME/./}
pd_start --dir "$sb" --cpu-time 2s -- "$PROGS/spin" 4
sleep 0.3
wait1 "$sb"
t1=${EPOCHREALTIME/./}
p=$(awk -v c="${ANS_CPU:-0}" -v w="$((t1 - t0))" -v pmax="$pmax" \
	'BEGIN { p = c / w; if (p > pmax) p = pmax; if (p < 0.25) p = 0.25; printf "%.2f", p }')
pd_poll "$sb" 10
wall=$((${POLL_AT:-0} - t0))
witness_stop
lo=$(awk -v p="$pmax" 'BEGIN { printf "%d", 2000000 / p * 0.9 }')
hi=$(awk -v p="$p" 'BEGIN { printf "%d", 2000000 / p * 1.25 + 200000 }')
diag "4 threads got $p CPUs; killed after $wall µs of wall time with ${ANS_CPU:-?} µs of CPU"
check_eq "--cpu-time 2s on 4 spinning threads is killed cpu-time" "killed cpu-time" "$ANS_HEAD" || ans_diag
native timing check_range "...after about 2 s / $p of wall time" "$lo" "$hi" "$wall"
# Each ms of kill latency costs p ms of CPU here; a stall of proctord's CPU
# alone, one ms per CPU left to the threads.
left=$(($(nproc) - 1))
((left <= pmax)) || left=$pmax
((left >= 1)) || left=1
punctual $((pmax * 2500 / left)) "...with reported CPU between the limit and limit + $pmax x 5 ms" \
	2000000 $((2000000 + pmax * 5000)) "${ANS_CPU:-x}"
wait0 "$sb"

# --fsize: the kernel's SIGXFSZ is reported as the limit, not as a signal.
sb="$T/fsize"
pd_start --dir "$sb" --fsize 1MiB -- "$PROGS/fsize" "$T/big" 4
pd_poll "$sb"
check_eq "--fsize 1MiB on a 4 MiB writer is killed file-size" "killed file-size" "$ANS_HEAD" || ans_diag
check_eq "...and the file stopped at 1 MiB" 1048576 "$(stat -c %s "$T/big" 2>/dev/null)"
wait0 "$sb"

# --nofile: soft = hard, so the program cannot raise it. Root could anyway
# (CAP_SYS_RESOURCE) and proctord does not change users, so as root run
# proctord without that capability, as a judge running as a user would.
wrap=()
can_drop=1
if [ "$(id -u)" -eq 0 ]; then
	wrap=(setpriv --bounding-set -sys_resource --inh-caps -sys_resource)
	if ! "${wrap[@]}" true 2>/dev/null; then
		wrap=()
		can_drop=0
	fi
fi
sb="$T/nofile"
pd_seq=$((pd_seq + 1))
timeout "$T_OP" "${wrap[@]}" "$PROCTORD" --daemonize --dir "$sb" --nofile 16 -- "$PROGS/nofile" "$T/nofile.out" \
	>"$T/pd.$pd_seq.out" 2>"$T/pd.$pd_seq.err" </dev/null || diag "proctord failed: $(<"$T/pd.$pd_seq.err")"
pd_poll "$sb"
native rlimits check_eq "--nofile 16: the program runs to its end" "exited 0" "$ANS_STATUS" || ans_diag
out=$(cat "$T/nofile.out" 2>/dev/null)
native rlimits check_re "--nofile 16: the program sees soft = hard = 16" '^soft 16 hard 16 ' "$out"
native rlimits check_re "--nofile 16: it opens 13 files beyond 0, 1, 2 and then gets EMFILE" ' opened 13 error EMFILE ' "$out"
if [ "$can_drop" = 1 ]; then
	native rlimits check_re "--nofile 16: it cannot raise the limit" ' raise (EPERM|EINVAL)$' "$out"
else
	skip "--nofile 16: it cannot raise the limit" "root, and setpriv cannot drop CAP_SYS_RESOURCE"
fi
wait0 "$sb"

# A hard limit the program could not be given is proctord's refusal, before
# anything starts: above fs.nr_open (root too), above proctord's own hard
# limit without CAP_SYS_RESOURCE.
nr_open=$(cat /proc/sys/fs/nr_open)
timeout "$T_OP" "$PROCTORD" --dir "$T/nofile-big" --nofile $((nr_open + 1)) -- true \
	>/dev/null 2>"$T/big.err"
check_eq "--nofile above fs.nr_open: proctord refuses, exit 3" 3 "$?"
check_re "...saying why" \
	"^proctord: nofile: RLIMIT_NOFILE $((nr_open + 1)) is above the kernel's fs.nr_open \($nr_open\)$" \
	"$(<"$T/big.err")"
hard=$(ulimit -Hn)
if [ "$can_drop" = 1 ] && [ "$hard" != unlimited ] && [ "$hard" -lt "$nr_open" ]; then
	timeout "$T_OP" "${wrap[@]}" "$PROCTORD" --dir "$T/nofile-hard" --nofile $((hard + 1)) -- true \
		>/dev/null 2>"$T/hard.err"
	check_eq "--nofile above proctord's hard limit, no CAP_SYS_RESOURCE: proctord refuses, exit 3" 3 "$?"
	check_re "...saying why" \
		"^proctord: nofile: RLIMIT_NOFILE $((hard + 1)) is above proctord's hard limit \([0-9]+\), and proctord has no CAP_SYS_RESOURCE to raise it$" \
		"$(<"$T/hard.err")"
else
	skip "--nofile above proctord's hard limit, no CAP_SYS_RESOURCE: proctord refuses" \
		"setpriv cannot drop CAP_SYS_RESOURCE, or the hard limit is fs.nr_open"
	skip "...saying why" "as above"
fi

done_testing
