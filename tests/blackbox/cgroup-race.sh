#!/bin/bash
# SPDX-License-Identifier: ISC
# cgroups under pressure: proctords starting together all enforce their memory limit, a child
# moved out of the sandbox's cgroup still dies with the sandbox, and --check changes nothing.
#
# Runs as root on v2, v1 and hybrid machines. The proctords of this script
# start in cgroups of the script's own (below the script's cgroup in every
# hierarchy), so that proctords of other users of the machine never share
# their parent cgroup. PROCTOR_TEST_SCOPE (tests/vm, pure v2): each
# proctord is started alone in a fresh cgroup below it, as in cgroup.sh.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	skip "cgroup race tests" "need root (cgroups are created below proctord's own)"
	done_testing
	exit 0
fi
PROCTOR=$(realpath "${PROCTOR:-$(dirname "$PROCTORD")/proctor}")

pd_in_scope

check_out=$("$PROCTORD" --check --memory-max 64MiB 2>&1)
if ! grep -Eq '^memory_max +64MiB +command line +cgroup[12] memory' <<<"$check_out"; then
	diag "$check_out"
	skip "cgroup race tests" "no writable memory cgroup here"
	done_testing
	exit 0
fi

# --- 13.4: 100 proctords started 20 at a time all enforce --memory-max --------
# Each holds 64 MiB under a 16 MiB limit: only the memory cgroup ends it
# ("killed memory"). A proctord that took another's brand-new cgroup for a
# stale one and removed it left that one without its limit: a warning, and
# the program ran past the limit and ended otherwise. Under valgrind, one
# round of 20; in a sanitizer build, two (each instrumented proctord and
# proctor costs some 90 ms of CPU to start and end, LeakSanitizer's exit
# check mostly: the plain suite runs five rounds, 100: the race this
# catches, 20 proctords meeting in one parent cgroup, is there in every
# round, and ten rounds took the plain suite's longest script 35 s more,
# alone, in CI); under PROCTOR_TEST_SCOPE
# (tests/vm, emulated and slow), two:
# there each proctord has a parent cgroup of its own, so no two of them
# meet, and the rounds only prove the limit holds.
n_total=100
par=20
! vg_on || n_total=20
! san_on || n_total=40
[ -z "${PROCTOR_TEST_SCOPE:-}" ] || n_total=40
out="$T/race"
mkdir "$out"
race_one() {
	"$PROCTOR" run --json "$out/$1.json" --memory-max 16MiB --wall-time 30s -- \
		"$PROGS/hold" 64 "$out/$1.ready" "$out/no-such-fifo" >/dev/null 2>"$out/$1.err"
}
private_cgroups "race.$$"
dirs=$PRIVATE
t0=${EPOCHREALTIME/./}
(
	if [ -z "${PROCTOR_TEST_SCOPE:-}" ]; then
		# shellcheck disable=SC2086
		enter_cgroups $dirs || exit 1
	fi
	i=0
	while [ "$i" -lt "$n_total" ]; do
		for j in $(seq "$par"); do race_one $((i + j)) & done
		wait
		i=$((i + par))
	done
)
t1=${EPOCHREALTIME/./}
diag "$n_total proctords, $par at a time, in $(((t1 - t0) / 1000)) ms"
bad=0
# The verdict, in JSON, is in $out/N.json; proctord's warnings in N.err.
for f in "$out"/*.json; do
	grep -q '"head": "killed memory"' "$f" || bad=$((bad + 1))
done
json_keep "$out/1.json"
n_json=$(find "$out" -name '*.json' | wc -l)
check_eq "all $n_total proctords ran" "$n_total" "$n_json"
if ! check_eq "every one of $n_total concurrent proctords enforces --memory-max (killed memory)" 0 "$bad"; then
	for f in "$out"/*.json; do
		grep -q '"head": "killed memory"' "$f" || diag "$(basename "$f"): $(cat "$f" "${f%.json}.err")"
	done | head -n 10
fi
warned=$(cat "$out"/*.err | grep -c 'cannot be honoured' || true)
check_eq "no proctord lost its memory cgroup to another's stale scan" 0 "$warned"
left=""
for d in $dirs; do
	left="$left$(find "$d" -mindepth 1 -maxdepth 1 -type d -name 'proctor-*')"
done
check_eq "no sandbox cgroup is left behind" "" "$left"

# --- a cgroup removed right after its mkdir: fail closed -------------------------
# strace holds proctord for a second after each mkdirat (the sandbox's
# cgroups are its only ones), and the script removes each new proctor-*
# cgroup meanwhile, as another process could. proctord must refuse to start
# (proctor run: 125), not run the program with its memory limit reduced to a
# warning.
if vg_on; then
	skip "a proctord whose new cgroup is removed refuses to start" "under valgrind (strace)"
elif ! command -v strace >/dev/null; then
	skip "a proctord whose new cgroup is removed refuses to start" "no strace here"
elif [ -n "${PROCTOR_TEST_SCOPE:-}" ]; then
	skip "a proctord whose new cgroup is removed refuses to start" "the scope wrapper starts proctord in cgroups of its own"
else
	private_cgroups "gone.$$"
	gdirs=$PRIVATE
	(
		# shellcheck disable=SC2086
		enter_cgroups $gdirs || exit 1
		# LeakSanitizer cannot work under ptrace (ASan builds).
		export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
		exec strace -f -qq -o /dev/null -e trace=mkdirat -e inject=mkdirat:delay_exit=1000000 \
			"$PROCTOR" run --memory-max 16MiB --wall-time 10s -- \
			"$PROGS/hold" 64 "$T/gone.ready" "$T/no-such-fifo" >"$T/gone.out" 2>"$T/gone.err"
	) &
	gone_pid=$!
	removed=0
	deadline=$((${EPOCHREALTIME/./} + 4 * T_OP * 1000000))
	while kill -0 "$gone_pid" 2>/dev/null && [ "${EPOCHREALTIME/./}" -lt "$deadline" ]; do
		for d in $gdirs; do
			for c in "$d"/proctor-* "$d"/*/proctor-*; do
				[ -d "$c" ] && rmdir "$c" 2>/dev/null && removed=$((removed + 1))
			done
		done
		pause 0.01
	done
	wait "$gone_pid"
	rc=$?
	diag "removed $removed new cgroups; proctor run: $(<"$T/gone.err")"
	check_eq "a proctord whose new cgroup is removed refuses to start (proctor run: 125)" 125 "$rc"
	check_re "...and says why" "cannot claim the cgroup .*proctor-[0-9.]+ that proctord just created" "$(<"$T/gone.err")"
	check "...and never runs the program with a limit reduced to a warning" \
		eval '! grep -q "cannot be honoured" "$T/gone.err" && [ ! -e "$T/gone.ready" ]'
fi

# --- a stranger's lock on the parent cgroup stops no start ----------------------
# Anyone may open a cgroup directory and flock it. A start must neither wait
# for such a lock nor go on without its claim (the parent is never locked).
if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	strangers=""
	for d in $(cg_dirs $$); do
		setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
			flock -x "$d" sleep 60 &
		strangers="$strangers $!"
	done
	locked() { ! flock -n "$1" true; }
	for d in $(cg_dirs $$); do wait_for "$T_OP" locked "$d"; done
	t0=${EPOCHREALTIME/./}
	"$PROCTOR" run --memory-max 64MiB -- /bin/true 2>"$T/stranger.err"
	rc=$?
	t1=${EPOCHREALTIME/./}
	check_eq "with nobody holding flock -x on every parent cgroup, a start succeeds" 0 "$rc"
	check_range "...at once (ms)" 0 1000 $(((t1 - t0) / 1000))
	check "...with no warning (its cgroups made and claimed)" \
		eval '! grep -Eq "cannot lock|cannot be honoured|cannot claim" "$T/stranger.err"'
	# flock waits for its sleep: the sleep first, then flock.
	for p in $strangers; do pkill -P "$p" 2>/dev/null; done
	# shellcheck disable=SC2086 # a list of pids
	kill $strangers 2>/dev/null
	wait $strangers 2>/dev/null
else
	skip "a stranger's lock on the parent cgroup" "no setpriv or no user nobody"
fi

# --- 13.5: a child moved out of the sandbox's cgroup dies with the sandbox ------
# A program running as root may write a child's pid into another cgroup's
# cgroup.procs (here the root of every hierarchy, which always takes it). It
# stays below proctord, its subreaper, which kills it too.
# The child writes its own pid as the host sees it (the program runs in a PID
# namespace: $! is the pid inside it): /proc is the host's, so the pid in
# /proc/self/stat of the shell that opens it is the host's.
escape_prog='sh -c '"'"'read -r p _ </proc/self/stat; echo "$p" >"$1.tmp"; mv "$1.tmp" "$1"; exec sleep 300'"'"' _ "$1" &
for d in $(awk '"'"'{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) ~ /^cgroup2?$/) print $5; break } }'"'"' /proc/self/mountinfo); do
	echo $! >"$d/cgroup.procs" 2>/dev/null
done
shift; exec "$@"'
# in_sandbox PID: whether PID is in a cgroup of a sandbox (proctor-*).
in_sandbox() { grep -q '/proctor-[0-9.]*$' "/proc/$1/cgroup" 2>/dev/null; }
for how in "ends by itself" "is killed at its wall-time limit"; do
	sb="$T/escape.$RANDOM"
	if [ "$how" = "ends by itself" ]; then
		pd_start --dir "$sb" -- sh -c "$escape_prog" _ "$sb.pid" sleep 1
		want="exited 0"
	else
		pd_start --dir "$sb" --wall-time 2s -- sh -c "$escape_prog" _ "$sb.pid" sleep 100
		want="killed wall-time"
	fi
	wait_for "$T_OP" test -s "$sb.pid"
	esc=$(cat "$sb.pid" 2>/dev/null)
	check "[escape, main $how] the child has left the sandbox's cgroups" \
		wait_for "$T_OP" eval "[ -n \"$esc\" ] && ! in_sandbox $esc"
	pd_poll "$sb" 5
	check_eq "[escape, main $how] the program ends" "$want" "$ANS_HEAD" || ans_diag
	wait0 "$sb"
	check "[escape, main $how] the child that left the sandbox's cgroup is killed" \
		wait_for "$T_OP" pid_gone "${esc:-0}"
	[ -z "$esc" ] || kill -KILL "$esc" 2>/dev/null
	check "[escape, main $how] proctord ends" wait_for "$T_OP" gone "$sb"
done

# --- 13.14: --check changes nothing on the machine -----------------------------
# proctord --check runs alone in cgroups of its own, below which lies a
# stale proctor-* cgroup (no proctord holds its lock). Set-up would remove
# that one, create the sandbox's, and (alone in a v2 cgroup that could hand
# out controllers, as under PROCTOR_TEST_SCOPE) move itself into a leaf and
# enable controllers: --check must do none of it.
if [ -n "${PROCTOR_TEST_SCOPE:-}" ]; then
	cdirs="$PROCTOR_TEST_SCOPE/check.$$"
	mkdir "$cdirs"
	private_dirs="$private_dirs $cdirs"
	check_pd=$real_proctord
else
	private_cgroups "check.$$"
	cdirs=$PRIVATE
	check_pd=$PROCTORD
fi
for d in $cdirs; do mkdir "$d/proctor-999999"; done
# snapshot: the directories below, and what each hands to its children.
snapshot() {
	local d f
	for d in $cdirs; do
		find "$d" -type d | sort
		for f in $(find "$d" -name cgroup.subtree_control | sort); do
			echo "$f: $(<"$f")"
		done
	done
}
before=$(snapshot)
# shellcheck disable=SC2086
check_out=$( (enter_cgroups $cdirs && exec "$check_pd" --check --memory-max 64MiB --pids 64 --cpus 1) 2>&1)
after=$(snapshot)
diag "$check_out"
check_eq "--check changes no cgroup below its own (a stale one, controllers, leaves)" "$before" "$after"
check_re "--check says what set-up would create, and where" "would create proctor-[0-9]+ in ${cdirs%% *}" "$check_out"
check_re "--check still names the cgroup that would enforce memory_max" \
	'memory_max +64MiB +command line +cgroup[12] memory' "$check_out"

none_tagged() { [ -z "$(tagged_pids)" ]; }
check "no process of this script's sandboxes is left" wait_for "$T_OP" none_tagged
# The ones this part made (lib.sh's, where the script itself runs, go at
# its exit).
mine=""
for d in $private_dirs; do [[ $d == */bb.$$ ]] || mine="$mine $d"; done
for d in $mine; do rm_cgroup "$d"; done
left=""
for d in $mine; do [ ! -e "$d" ] || left="$left $d"; done
check_eq "the script's own cgroups are removed" "" "$left"

done_testing
