#!/bin/bash
# SPDX-License-Identifier: ISC
# Many threads: the CPU-time deadline holds however many threads spin, proctord runs ahead of them; overflowing limits are refused.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# Whether this user may run SCHED_FIFO (CAP_SYS_NICE or RLIMIT_RTPRIO), as
# proctord then does.
rt=0
chrt -f 1 true 2>/dev/null && rt=1
"$PROCTORD" --check -- /bin/true >"$T/check" 2>&1
check_re "--check says how the CPU deadline wakes proctord" \
	$'\ncpu deadline +proctord (SCHED_FIFO|at nice)' "$(<"$T/check")"

# 500 spinning threads on a few CPUs: at nice -10 alone, proctord's deadline
# timer fired up to 1.5 s late among them (1.6 s of CPU for a 1 s limit).
# Real-time, it preempts them at once: 5 to 12 ms here. The bound is
# generous for a shared machine (the benchmark's target is 15 ms); five runs,
# because the old code also had some short overshoots (one in a sanitizer
# build, where it is no timing: 5 s of CPU spent spinning, not in proctord).
many_threads() {
	local i worst=0 runs=5
	! san_on || runs=1
	for ((i = 1; i <= runs; i++)); do
		run_to_end --cpu-time 1s -- "$PROGS/spin" 500 || return 1
		[ "$ANS_HEAD" = "killed cpu-time" ] || { ans_diag; return 1; }
		diag "500 threads, --cpu-time 1s, run $i: $ANS_CPU µs"
		[ "$ANS_CPU" -gt "$worst" ] && worst=$ANS_CPU
	done
	check_range "$many_desc (worst of $runs)" 1000000 1200000 "$worst"
}
many_desc="--cpu-time 1s with 500 spinning threads: final CPU under 1.2 s"
if vg_on; then
	skip "$many_desc" "under valgrind (timing)"
elif [ "$rt" = 1 ]; then
	many_threads
else
	skip "$many_desc" "proctord cannot be real-time here (no CAP_SYS_NICE, RLIMIT_RTPRIO 0)"
fi

# A client flooding the FIFOs must not make a real-time proctord hog a CPU:
# each wait walks /proc over 500 threads (about 2 ms), so back-to-back waits
# kept it at 94% of one CPU; its budget is 50 ms in any 100 ms, and past it
# it competes at nice -10 only. Measured 17-44% here, up to 64% in the
# sanitizer build on a busy machine: the bound is 80%.
flood() {
	local sb="$T/flood" pid a b t0 t1 share
	pd_start --dir "$sb" --wall-time 30s -- "$PROGS/spin" 500 || return 1
	pid=$(pd_pid "$sb")
	a=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	t0=${EPOCHREALTIME/./}
	timeout 2 "$PROGS/waitloop" "$sb" 1000000 >/dev/null 2>&1
	b=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	t1=${EPOCHREALTIME/./}
	# Clock ticks (1/100 s) over µs of wall time, in per cent of one CPU.
	share=$(( (b - a) * 10000 * 100 / (t1 - t0) ))
	diag "proctord under a flood of waits: ${share}% of one CPU"
	check_range "a flood of waits keeps real-time proctord under 80% of one CPU" 0 80 "$share"
	# The flood was cut mid-wait: its last request may be unanswered.
	resync "$sb"
	wait0 "$sb"
	wait_for "$T_OP" pid_gone "$pid" || diag "proctord $pid still there after its terminating wait"
}
if vg_on; then
	skip "a flood of waits keeps real-time proctord under 80% of one CPU" "under valgrind (timing)"
elif [ "$rt" = 1 ]; then
	flood
else
	skip "a flood of waits keeps real-time proctord under 80% of one CPU" "not real-time here"
fi

# proctord is real-time, but never hands that to the program.
sb="$T/policy"
pd_start --dir "$sb" --stdout "$T/policy.out" -- \
	sh -c 'chrt -p $$; exec sleep 10'
wait_for 5 test -s "$T/policy.out"
pid=$(pd_pid "$sb")
if [ "$rt" = 1 ] && ! vg_on; then
	# Its start-up may have used a window's CPU budget on a loaded machine:
	# it is back to real-time at the next window.
	for _ in $(seq 30); do
		policy=$(chrt -p "$pid" 2>&1)
		[[ $policy != *SCHED_FIFO* ]] || break
		pause 0.1
	done
	check_re "proctord itself is SCHED_FIFO, reset on fork" "SCHED_FIFO\|SCHED_RESET_ON_FORK" "$policy"
else
	skip "proctord itself is SCHED_FIFO, reset on fork" "not real-time here or under valgrind"
fi
check_re "...and the program runs SCHED_OTHER" "policy: SCHED_OTHER" "$(<"$T/policy.out")"
wait0 "$sb"

# Real-time group scheduling (v1 cpu, CONFIG_RT_GROUP_SCHED): a new cpu
# cgroup's cpu.rt_runtime_us is 0, and the kernel refuses SCHED_FIFO to any
# task in it, root included. proctord ran at nice -10 there while --check
# said it "wakes ahead of any number of threads". Now --check says what is
# in force, and the tree runs in a cpu cgroup of its own below proctord's,
# one weight against proctord's however many threads it has.
nort=""
if [ "$(id -u)" = 0 ]; then
	for d in $(cg_dirs $$ cpu); do
		[ -f "$d/cpu.rt_runtime_us" ] && nort="$d/nort.$$"
	done
fi
if [ -n "$nort" ] && mkdir "$nort"; then
	private_dirs="$private_dirs $nort"
	in_nort() { ( enter_cgroups "$nort" && "$@" ); }
	check_eq "a new v1 cpu cgroup has no real-time runtime" 0 "$(<"$nort/cpu.rt_runtime_us")"
	out=$(in_nort "$PROCTORD" --check -- /bin/true 2>&1)
	# Without CAP_SYS_NICE (CI's background lane drops it) that comes first.
	why=$'SCHED_FIFO refused: real-time group scheduling[^\n]*cpu\\.rt_runtime_us 0'
	[ "$rt" = 1 ] || why='no CAP_SYS_NICE'
	check_re "--check in it does not claim SCHED_FIFO, and says why" \
		$'\ncpu deadline +proctord at nice -10 \\('"$why" "$out"
	check_re "...and that the tree runs in a cpu cgroup of its own there" \
		$'\ncpu deadline [^\n]*the tree in a cpu cgroup of its own[^\n]*\\(/[^)]*/nort\\.[0-9]+/proctor-' \
		"$out"
	sb="$T/nort.sleep"
	in_nort pd_start --dir "$sb" -- sleep 30
	pid=$(pd_pid "$sb")
	wait1 "$sb"
	check_re "...where proctord runs SCHED_OTHER, as --check says" "policy: SCHED_OTHER" \
		"$(chrt -p "$pid" 2>&1)"
	check_eq "...alone in that cgroup" "$pid" "$(<"$nort/cgroup.procs")"
	check_range "...the program (and the init) in the tree's own cpu cgroup below it" 1 2 \
		"$(cat "$nort"/proctor-*/tasks 2>/dev/null | wc -l)"
	wait0 "$sb"
	sb="$T/nort"
	in_nort pd_start --dir "$sb" --cpu-time 1s -- "$PROGS/spin" 500
	pd_poll "$sb"
	check_eq "...and the deadline holds: killed cpu-time" "killed cpu-time" "$ANS_HEAD" || ans_diag
	wait0 "$sb"
	diag "500 threads without real-time: $ANS_CPU µs for --cpu-time 1s"
	native timing check_range "...final CPU under 1.2 s" 1000000 1200000 "$ANS_CPU"
else
	skip "proctord refused SCHED_FIFO by real-time group scheduling" \
		"not root, or no v1 cpu hierarchy with cpu.rt_runtime_us here"
fi

# --cpus became a quota of cpus_milli * 100 µs: 184467440737095.517 CPUs
# wrapped it to 1000 µs (0.01 CPU). Refused, one line, exit 2.
"$PROCTORD" --check --cpus 184467440737095.517 -- /bin/true >"$T/cpus.out" 2>"$T/cpus.err"
check_eq "--cpus 184467440737095.517 exits 2" 2 "$?"
check_re "...with one line saying why" '^proctord: --cpus 184467440737095\.517: too many CPUs[^'$'\n'']*$' \
	"$(<"$T/cpus.err")"
printf 'cpus = 65536.001\n' >"$T/cpus.conf"
"$PROCTORD" --check --config "$T/cpus.conf" -- /bin/true >/dev/null 2>"$T/cpus.err"
check_eq "cpus = 65536.001 in a config file exits 2" 2 "$?"
"$PROCTORD" --check --cgroup none --cpus 65536 -- /bin/true >/dev/null 2>&1
rc=$?
check_re "--cpus 65536 is accepted (exit 0, or 3 without a cpu cgroup)" '^(0|3)$' "$rc"
"$PROCTORD" --check --cpu-time 1000000001s -- /bin/true >/dev/null 2>"$T/dur.err"
check_eq "--cpu-time beyond 31 years exits 2" 2 "$?"

done_testing
