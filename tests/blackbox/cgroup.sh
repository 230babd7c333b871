#!/bin/bash
# SPDX-License-Identifier: ISC
# cgroups: fork bombs contained, every descendant killed and counted, memory limits and OOM
# kills, stale cgroups of a killed proctord removed, and the fallback for an unprivileged user.
# The helpers need bash; "sh file.sh" must work too.
#
# Runs on v2, v1 and hybrid machines. PROCTOR_TEST_SCOPE (optional) names a
# cgroup v2 directory whose children may get controllers (a parent with
# +memory +pids in cgroup.subtree_control, and no processes): each proctord
# is then started alone in a fresh cgroup below it, the way
# `systemd-run --scope -p Delegate=yes` would (tests/vm does this on pure v2).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	skip "cgroup tests" "need root (cgroups are created below proctord's own)"
	done_testing
	exit 0
fi

# With a scope parent, proctord starts alone in a cgroup of its own.
pd_in_scope

check_out=$("$PROCTORD" --check --memory-max 64MiB --pids 64 2>&1)
diag "$check_out"
has() { grep -Eq "$1" <<<"$check_out"; }
if ! has $'\ncpu +cgroup'; then
	skip "cgroup tests" "no writable cgroup serves CPU accounting here"
	done_testing
	exit 0
fi
have_memory=0
has '^memory_max +64MiB +command line +cgroup[12] memory' && have_memory=1
have_pids=0
has '^pids +64 +command line +cgroup[12] pids.max' && have_pids=1

check_re "--check names the cgroup that counts CPU" $'\ncpu +cgroup[12] (cpu.stat|cpuacct)' "$check_out"
check_re "--check names what kills the tree" $'\ntree kill +cgroup[12] (cgroup.kill|cgroup.freeze|freezer)' "$check_out"

get() { jsonget "$1" "$2" 2>/dev/null; }
# none_tagged: no process of this script's sandboxes (proctord itself
# included, which may still be exiting after its last answer) is left.
none_tagged() { [ -z "$(tagged_pids)" ]; }
# cg_path TEXT: the cgroup path a report source names, in parentheses.
cg_path() { sed -n 's/.*(\(\/[^)]*\)).*/\1/p' <<<"$1"; }
# main_of DIR: the sandboxed program's pid (proctord's child).
main_of() { cat "/proc/$(pd_pid "$1")/task/$(pd_pid "$1")/children" 2>/dev/null | awk '{print $1}'; }
# cgroups_of PID: the directories of its cgroups, one per line.
cgroups_of() {
	local line rel m
	while IFS= read -r line; do
		rel=${line#*:*:}
		for m in $(awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) ~ /^cgroup2?$/) print $5; break } }' /proc/self/mountinfo); do
			[ -d "$m$rel" ] && [ "$rel" != / ] && echo "$m$rel"
		done
	done <"/proc/$1/cgroup" | sort -u
}

# --- a fork bomb under --pids 64 ----------------------------------------------
if [ "$have_pids" = 1 ]; then
	sb="$T/bomb"
	# In the VM (emulated, and beside CI's other suites) getting the bomb
	# going took over 3 s once: the wait then came after the end. Not more
	# than 6 s: pd_poll gives the end 10 s.
	bomb_wall=3s
	[ -z "${PROCTOR_TEST_SCOPE:-}" ] || bomb_wall=6s
	pd_start --dir "$sb" --pids 64 --wall-time "$bomb_wall" --report "$T/bomb.json" -- \
		"$PROGS/forkbomb" "$T/bomb.ready"
	check "the fork bomb runs into the pids limit" wait_for "$T_OP" test -e "$T/bomb.ready"
	wait1 "$sb"
	check_eq "proctord answers during the bomb" running "$ANS_STATUS"
	pd_poll "$sb"
	check_eq "the bomb ends at the wall-time limit" "killed wall-time" "$ANS_HEAD" || ans_diag
	wait0 "$sb"
	check "...and proctord ends normally" wait_for "$T_OP" gone "$sb"
	check "no process of the bomb is left" wait_for "$T_OP" none_tagged
	peak=$(get "$T/bomb.json" pids_peak)
	if [ "$peak" = null ] || [ -z "$peak" ]; then
		skip "pids_peak is at most 64" "this kernel has no pids.peak"
	else
		check_range "pids_peak is at most 64" 2 64 "$peak"
	fi
	check_range "pids_max_hits counts the refused forks" 1 $((1 << 62)) "$(get "$T/bomb.json" pids_max_hits)"
	p=$(cg_path "$(get "$T/bomb.json" sources.tree_kill)")
	check "the sandbox's cgroup is removed at the end ($p)" test -n "$p" -a ! -e "$p"
else
	skip "fork bomb under --pids 64" "no pids controller here"
fi

# --- CPU of processes nobody waited for ------------------------------------
# orphans ignores SIGCHLD: the kernel reaps its 4 children and their rusage
# reaches nobody. Only the cgroup still has their CPU.
for mode in auto v1; do
	sb="$T/orphans.$mode"
	pd_start --dir "$sb" --cgroup "$mode" -- "$PROGS/orphans" 4 250 "$sb.ready"
	wait_for 30 test -e "$sb.ready"
	wait1 "$sb"
	if [ "$mode" = v1 ] && ! "$PROCTORD" --check --cgroup v1 | grep -Eq $'^cpu +cgroup1'; then
		skip "[v1] auto-reaped children's CPU" "no v1 cpuacct hierarchy here"
	else
		# At least their 1 s; over it by their forks, exits and the
		# parent's start (much more under emulation, as in tests/vm).
		check_range "[$mode] the CPU of 4 auto-reaped children of 250 ms is counted (0.95..2 s)" \
			950000 2000000 "${ANS_CPU:-0}"
	fi
	wait0 "$sb"
done

# --- spinners left by a parent that exited --------------------------------
# The main process stays; a subshell starts 4 spinners and exits without
# waiting. The CPU limit fires on their sum, and on an idle machine the
# tree's CPU runs at min(4, CPUs) times the wall clock.
ncpu=$(nproc)
par=$((ncpu < 4 ? ncpu : 4))
sb="$T/spinners"
pd_start --dir "$sb" --cpu-time 1s --report "$T/spin.json" -- \
	sh -c '( for i in 1 2 3 4; do "$0" & done ); exec sleep 100' "$PROGS/spin"
pd_poll "$sb" 20
check_eq "4 orphaned spinners end at the CPU limit of the tree" "killed cpu-time" "$ANS_HEAD" || ans_diag
wait0 "$sb"
cpu=$(get "$T/spin.json" cpu_us)
wall=$(get "$T/spin.json" wall_us)
diag "spinners: cpu $cpu µs over wall $wall µs on $ncpu CPUs"
check_range "the reported CPU reaches the limit (1000..1100 ms; the overshoot is the benchmark's)" \
	1000000 1100000 "${cpu:-0}"
# The ratio is shown, not asserted: on a shared machine other work takes CPUs
# (a timing target belongs in the benchmark). The sum itself is proved by
# the limit firing at 1 s, and by the orphans above.
diag "spinners: CPU / wall = $(( ${cpu:-0} * 100 / (${wall:-1} > 0 ? ${wall:-1} : 1) ))% (about $((par * 100))% on an idle machine)"
check "no spinner is left" wait_for "$T_OP" none_tagged

# --- memory ------------------------------------------------------------------
if [ "$have_memory" = 1 ]; then
	mkfifo "$T/go"
	sb="$T/oom"
	pd_start --dir "$sb" --memory-max 256MiB --report "$T/oom.json" -- \
		"$PROGS/hold" 300 "$T/oom.ready" "$T/go"
	pd_poll "$sb"
	check_eq "300 MiB under --memory-max 256MiB ends as killed memory" "killed memory" "$ANS_HEAD" || ans_diag
	wait0 "$sb"
	check_range "the report counts the OOM kill" 1 1000 "$(get "$T/oom.json" oom_kills)"
	check_eq "...and its status" "killed memory" "$(get "$T/oom.json" status.head)"

	# A child OOM-killed, the main process going on: on v1 the kill is
	# counted after the event that wakes proctord, so a single look at
	# the count then misses it.
	sb="$T/oomchild"
	pd_start --dir "$sb" --memory-max 64MiB --report "$T/oomchild.json" -- \
		sh -c '"$0" 100 "$1" "$2"; sleep 0.5; exit 0' "$PROGS/hold" "$T/oomchild.ready" "$T/go"
	pd_poll "$sb" 20
	check_eq "a child OOM-killed, the main process exiting 0 later: killed memory" "killed memory" \
		"$ANS_HEAD" || ans_diag
	wait0 "$sb"
	check_eq "...in the report too" "killed memory" "$(get "$T/oomchild.json" status.head)"
	check_range "...which counts the OOM kill" 1 1000 "$(get "$T/oomchild.json" oom_kills)"
	sb="$T/oomlive"
	pd_start --dir "$sb" --memory-max 64MiB --wall-time 8s --report "$T/oomlive.json" -- \
		sh -c '"$0" 100 "$1" "$2"; exec sleep 60' "$PROGS/hold" "$T/oomlive.ready" "$T/go"
	pd_poll "$sb" 20
	check_eq "a child OOM-killed, the main process sleeping on: killed memory, not the wall time" \
		"killed memory" "$ANS_HEAD" || ans_diag
	wait0 "$sb"
	native timing check_range "...and the tree ends within 3 s of the start, not at the wall time" \
		0 3000000 "$(get "$T/oomlive.json" wall_us)"

	sb="$T/mem64"
	pd_start --dir "$sb" --memory-max 256MiB -- "$PROGS/hold" 64 "$T/mem64.ready" "$T/go"
	wait_for "$T_OP" test -e "$T/mem64.ready"
	wait1 "$sb"
	check_range "a 64 MiB program's memory is within 8 MiB of 64 MiB" $((56 << 20)) $((72 << 20)) "${ANS_MEM:-0}"
	wait0 "$sb"
else
	skip "memory limit and OOM kill" "no memory controller proctord can use here"
fi

# --- proctord killed with SIGKILL ----------------------------------------------
# In cgroups of the script's own, so that no other proctord on the machine
# (another test run, say) takes the dead proctord's cgroup for stale first.
home_cgroups=""
if [ -z "${PROCTOR_TEST_SCOPE:-}" ]; then
	home_cgroups=$(cg_dirs $$)
	private_cgroups "stale.$$"
	# shellcheck disable=SC2086 # lists of directories
	enter_cgroups $PRIVATE
fi
sb="$T/killed"
pd_start --dir "$sb" -- "$PROGS/tree" "$T/killed.lock" "$T/killed.ready"
wait_for "$T_OP" test -e "$T/killed.ready"
main=$(main_of "$sb")
# Only the sandbox's own (the program also sits in the script's private parents where proctord makes none).
stale=$(cgroups_of "$main" | grep '/proctor-[0-9.]*$')
diag "the program $main is in: $stale"
check "the program is in cgroups of its own" test -n "$stale"
pd_kill "$(pd_pid "$sb")"
check "the program dies with proctord (its PID namespace's init dies with proctord)" wait_for "$T_OP" pid_gone "$main"
check "...and so do the setsid descendants" lock_free "$T/killed.lock"
check "...its cgroups stay behind" test -d "$(head -n 1 <<<"$stale")"
if [ -n "${PROCTOR_TEST_SCOPE:-}" ]; then
	# Each proctord has a scope of its own here, as under systemd, whose
	# clean-up of a dead unit's cgroup does this job; the next proctord
	# only looks below its own cgroup. Do what systemd would.
	for d in $stale; do
		[ -e "$d/cgroup.kill" ] && echo 1 >"$d/cgroup.kill"
	done
	skip "the next proctord removes the stale cgroup" "each proctord has a scope of its own here (checked on the host)"
	lock_free "$T/killed.lock" >/dev/null
	for d in $stale; do wait_for "$T_OP" rmdir "$d"; done
else
	# Beside them, cgroups named like proctord's but not of a sandbox
	# (proctor run's leaf, someone's proctor-x), each holding a process.
	sleep 100 &
	other=$!
	others=""
	for d in $stale; do
		for n in proctor-run proctor-1x; do
			mkdir "${d%/*}/$n" && echo "$other" >"${d%/*}/$n/cgroup.procs" && others="$others ${d%/*}/$n"
		done
	done
	sb2="$T/after"
	pd_start --dir "$sb2" -- sleep 100
	check_re "the next proctord says it removed the stale cgroup" "removed .*proctor-[0-9.]*, left by a proctord that died" "$(<"$PD_ERR")"
	left=0
	for d in $stale; do [ -e "$d" ] && left=1 && diag "left: $d"; done
	check_eq "...the stale cgroups are gone" 0 "$left"
	check "...and so are the processes that were in them" lock_free "$T/killed.lock"
	kept=0
	for d in $others; do [ -d "$d" ] && kept=$((kept + 1)); done
	check_eq "...but not a cgroup named proctor-run or proctor-1x beside them, nor its process" \
		"$(wc -w <<<"$others") alive" "$kept $(kill -0 "$other" 2>/dev/null && echo alive)" ||
		diag "$(<"$PD_ERR")"
	kill "$other"
	wait "$other" 2>/dev/null
	for d in $others; do wait_for "$T_OP" rmdir "$d"; done
	wait0 "$sb2"
fi
rm -rf "$sb"
# shellcheck disable=SC2086
[ -z "$home_cgroups" ] || enter_cgroups $home_cgroups

# --- an unprivileged user: no cgroup, the fallback ----------------------------
if ! command -v setpriv >/dev/null || ! id nobody >/dev/null 2>&1; then
	skip "the unprivileged fallback" "no setpriv or no user nobody here"
elif [ -n "${PROCTOR_TEST_SCOPE:-}" ]; then
	skip "the unprivileged fallback" "run on the host, not in the scope set-up"
else
	u="$T/nobody"
	# Its sandbox directory goes in a directory of its own: a parent anyone
	# could write would be refused.
	install -d -m 0755 -o nobody "$u"
	chmod 0711 "$T"
	as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups --inh-caps=-all "$@"; }
	out=$(as_nobody "$PROCTORD" --check --memory-max 64MiB --pids 64 2>&1)
	check_eq "as nobody, --check says the cgroup limits cannot be honoured (exit 3)" 3 "$?"
	check_re "...and why" "memory_max cannot be honoured: .*(Permission denied|Read-only|not available)" "$out"
	check_re "...and falls back to /proc for the figures" $'\ncpu +CPU clocks' "$out"
	# Long enough that the tree is still there when checked, under
	# valgrind on a loaded machine too.
	wall=1s
	vg_on && wall=4s
	timeout "$T_OP" setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		"$PROCTORD" --daemonize --dir "$u/sb" --pids 64 --wall-time "$wall" -- \
		"$PROGS/tree" "$u/tree.lock" "$u/tree.ready" >"$T/nobody.out" 2>"$T/nobody.err"
	check_eq "as nobody, proctord starts with --pids 64" 0 "$?"
	# Without a pids cgroup, RLIMIT_NPROC in the program's user namespace
	# holds it (pids-rlimit.sh): nothing to warn of.
	if vg_on; then
		# No clone3 under valgrind: no user namespace, no RLIMIT_NPROC.
		skip "...and holds it without a warning (RLIMIT_NPROC in its user namespace)" \
			"under valgrind (no clone3: no user namespace)"
	else
		check_eq "...and holds it without a warning (RLIMIT_NPROC in its user namespace)" "" \
			"$(<"$T/nobody.err")"
	fi
	wait_for "$T_OP" test -e "$u/tree.ready"
	check "...the tree runs" lock_held "$u/tree.lock"
	pd_poll "$u/sb"
	check_eq "...the wall-time limit still holds" "killed wall-time" "$ANS_HEAD" || ans_diag
	check "...and the whole tree is killed" lock_free "$u/tree.lock"
	wait0 "$u/sb"
	out=$(as_nobody timeout -s KILL "$T_OP" "$PROCTORD" --strict --memory-max 64MiB \
		--end-fd 3 -- true 3>/dev/null 2>&1)
	check_eq "...with --strict, --memory-max without a cgroup is an error (exit 3)" 3 "$?"
fi

check "no process of this script's sandboxes is left" wait_for "$T_OP" none_tagged
if [ -n "${PROCTOR_TEST_SCOPE:-}" ]; then
	# The scopes made above (each proctord left its leaf in it), once empty.
	for d in "$PROCTOR_TEST_SCOPE"/pd.$$.*; do
		[ -d "$d" ] || continue
		wait_for "$T_OP" sh -c 'rmdir "$1/proctord" 2>/dev/null; rmdir "$1" 2>/dev/null' _ "$d"
	done
fi
done_testing
