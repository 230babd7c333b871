#!/bin/bash
# SPDX-License-Identifier: ISC
# Rootless cgroups: proctord as nobody gets its limits from cgroups delegated
# to it (chowned to its uid, as systemd's Delegate=yes and container runtimes
# do), says so in --check, and without one keeps the warnings.
#
# Needs root to make the delegated cgroups (below this script's own, in each
# hierarchy: the v2 one, with or without controllers, and the v1 memory and
# pids hierarchies of a v1 or hybrid machine); proctord itself runs as nobody
# (setpriv). On v1, delegating is the same chown of the cgroup directory and
# its cgroup.procs and tasks: the kernel lets a uid move its own processes
# into cgroups it may write, and the cgroups it makes are its own.
# shellcheck disable=SC2016 # single-quoted $ is for a child shell
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	skip "rootless cgroups" "need root to delegate cgroups to nobody"
	done_testing
	exit 0
fi
if ! command -v setpriv >/dev/null || ! id nobody >/dev/null 2>&1; then
	skip "rootless cgroups" "no setpriv or no user nobody here"
	done_testing
	exit 0
fi
if [ -n "${PROCTOR_TEST_SCOPE:-}" ]; then
	# In tests/vm, tests/vm/container.sh does this (and more) on pure v2.
	skip "rootless cgroups" "run on the host; the VM's container suite covers pure v2"
	done_testing
	exit 0
fi
nogroup=$(id -gn nobody)
# nobody runs proctord (or valgrind's wrapper of it) from $T.
chmod 0711 "$T"
as_nobody() { setpriv --reuid=nobody --regid="$nogroup" --clear-groups --inh-caps=-all "$@"; }

# mount_of VERSION CONTROLLER: the mount point of the cgroup hierarchy of
# that version (v1: holding CONTROLLER) whose root is "/", if any.
mount_of() {
	awk -v v="$1" -v c="$2" '{
		for (i = 7; i <= NF; i++) if ($i == "-") break
		fs = $(i + 1); opts = "," $(i + 3) ","
		if ($4 != "/") next
		if (v == 2 && fs == "cgroup2") { print $5; exit }
		if (v == 1 && fs == "cgroup" && index(opts, "," c ",")) { print $5; exit }
	}' /proc/self/mountinfo
}
# own_dir MOUNT VERSION CONTROLLER: this shell's cgroup directory there.
own_dir() {
	local rel
	if [ "$2" = 2 ]; then
		rel=$(sed -n 's/^0:://p' /proc/self/cgroup)
	else
		rel=$(awk -F: -v c="$3" '{ n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == c) { print $3; exit } }' /proc/self/cgroup)
	fi
	[ -n "$rel" ] && echo "$1${rel%/}"
}

# The delegated cgroups, one per hierarchy: DELEG (directories).
DELEG=()
delegate() {
	local m d
	m=$(mount_of "$@") && [ -n "$m" ] || return 1
	d=$(own_dir "$m" "$@") && [ -d "$d" ] || return 1
	d=$d/rootless.$$
	mkdir "$d" || return 1
	chown nobody:"$nogroup" "$d" "$d/cgroup.procs"
	for f in cgroup.subtree_control cgroup.threads tasks; do
		[ ! -e "$d/$f" ] || chown nobody:"$nogroup" "$d/$f"
	done
	DELEG+=("$d")
}
delegate 2 '' || diag "no cgroup2 hierarchy to delegate"
v1_memory=0
v1_pids=0
if [ -z "$(mount_of 2 '')" ] || ! grep -qw memory "$(own_dir "$(mount_of 2 '')" 2)/cgroup.controllers" 2>/dev/null; then
	delegate 1 memory && v1_memory=1
	delegate 1 pids && v1_pids=1
fi
diag "delegated to nobody: ${DELEG[*]:-nothing}"
if [ ${#DELEG[@]} -eq 0 ]; then
	skip "rootless cgroups" "no cgroup hierarchy here to delegate"
	done_testing
	exit 0
fi
cleanup_deleg() {
	local d
	for d in "${DELEG[@]}"; do
		wait_for "$T_OP" rmdir "$d" 2>/dev/null || diag "cannot remove $d"
	done
}

# in_deleg COMMAND...: COMMAND as nobody, in the delegated cgroups.
in_deleg() {
	bash -c 'for d in $DELEG_DIRS; do echo $$ >"$d/cgroup.procs" || exit 125; done; exec "$@"' \
		_ setpriv --reuid=nobody --regid="$nogroup" --clear-groups --inh-caps=-all "$@"
}
export DELEG_DIRS="${DELEG[*]}"
# An ERE matching any of them.
deleg_re=$(IFS='|' && echo "${DELEG[*]}")

# --- --check names the delegated cgroups ------------------------------------------
# In a box, where the program cannot reach the cgroup files; without one
# (below) it runs as proctord's uid, which owns them, and could raise them.
u=$T/nobody
install -d -m 0755 -o nobody "$u" "$u/box"
out=$(in_deleg "$PROCTORD" --check --box "$u/box" --memory-max 64MiB --pids 16 2>&1)
rc=$?
diag "$(grep -E '^(cgroups|memory_max|pids) ' <<<"$out")"
for d in "${DELEG[@]}"; do
	check_re "--check as nobody: $d is delegated to proctord" \
		$'\ncgroups +v[12] ([a-z,]+ )?'"$d"': delegated to proctord \(its uid [0-9]+ owns it\)' "$out"
done
have_mem=0
grep -Eq '^memory_max +64MiB +command line +cgroup[12] memory' <<<"$out" && have_mem=1
have_pids=0
grep -Eq '^pids +16 +command line +cgroup[12] pids\.max' <<<"$out" && have_pids=1
if [ "$v1_memory" = 1 ] || [ "$have_mem" = 1 ]; then
	check_eq "...memory_max is enforced by a cgroup" 1 "$have_mem"
	check_re "...through a delegated one" $'\nmemory_max [^\n]*\\(('"$deleg_re"')/proctor-[0-9]+\)' "$out"
fi
if [ "$v1_pids" = 1 ] || [ "$have_pids" = 1 ]; then
	check_eq "...pids is enforced by a cgroup" 1 "$have_pids"
fi
if [ "$have_mem" = 1 ] && [ "$have_pids" = 1 ]; then
	check_eq "...and every limit can be honoured (exit 0)" 0 "$rc"
fi
check_re "...the tree is killed through the delegated cgroup" $'\ntree kill +cgroup[12] [^\n]*('"$deleg_re"')/proctor-' "$out"

# Without a box the program, of proctord's uid, could raise the limits of
# the cgroups that uid owns: each is NOT enforced, and --check exits 3.
out=$(in_deleg "$PROCTORD" --check --memory-max 64MiB --pids 16 2>&1)
check_eq "--check as nobody in the delegated cgroups without --box: not honoured (exit 3)" 3 "$?"
if [ "$have_mem" = 1 ]; then
	check_re "...memory_max, which the program could raise itself" \
		$'\nmemory_max cannot be honoured: the program runs as proctord\'s uid [0-9]+, which owns [^\n]*: it can raise this limit itself' \
		"$out"
fi
if [ "$have_pids" = 1 ]; then
	check_re "...and pids" $'\npids cannot be honoured: the program runs as proctord\'s uid' "$out"
fi

# Without delegation: the same as nobody in root's cgroups.
out=$(as_nobody "$PROCTORD" --check --memory-max 64MiB --pids 16 2>&1)
check_eq "--check as nobody outside the delegated cgroups: the limits cannot be honoured (exit 3)" 3 "$?"
check_re "...and it says that its cgroups are not writable" $'\ncgroups +v[12] [^\n]*: NOT writable by proctord \\(uid [0-9]+\\)' "$out"

# A cgroup namespace without a fresh cgroup2 mount (unshare --cgroup alone):
# the mount shows cgroups outside the namespace, none of them proctord's.
if unshare --user --map-root-user --cgroup --mount true 2>/dev/null; then
	out=$(in_deleg unshare --user --map-root-user --cgroup --mount \
		"$PROCTORD" --check --memory-max 64MiB 2>&1)
	check_re "in a cgroup namespace, an old cgroup2 mount is named as the reason" \
		"memory_max cannot be honoured: the cgroup2 mount at [^ ]+ shows cgroups outside proctord's cgroup namespace \(its root is /\.\.[/.]*\)" "$out"
else
	skip "in a cgroup namespace, an old cgroup2 mount is named as the reason" "no unprivileged user namespaces here"
fi

# --- limits enforced -------------------------------------------------------------
get() { jsonget "$1" "$2" 2>/dev/null; }
# run_deleg NAME ARGS...: proctord --daemonize as nobody in the delegated
# cgroups; poll to the end, terminating wait.
run_deleg() {
	local name=$1
	shift
	in_deleg "$PROCTORD" --daemonize --dir "$u/$name" --report "$u/$name.json" \
		--env PROCTOR_BB_TAG "$@" \
		>"$T/$name.out" 2>"$T/$name.err" </dev/null || diag "proctord: $(<"$T/$name.err")"
	pd_poll "$u/$name" 20 1000
	wait0 "$u/$name"
	wait_for "$T_OP" gone "$u/$name/wait"
}

if [ "$have_mem" = 1 ]; then
	run_deleg oom --memory-max 64MiB -- "$PROGS/hold" 100 "$u/oom.ready" "$u/nogo"
	check_eq "as nobody, 100 MiB under --memory-max 64MiB ends as killed memory" "killed memory" \
		"$(get "$u/oom.json" status.head)"
	check_range "...one OOM kill, counted by the delegated cgroup" 1 100 "$(get "$u/oom.json" oom_kills)"
	check_eq "...the report names memory_max as not enforced: the program could raise it" \
		'["memory_max"]' "$(get "$u/oom.json" not_enforced | tr -d ' \n')"
	# Which it can: the same program, having raised its own limit, lives.
	run_deleg raise --memory-max 64MiB -- sh -c '
		v1=$(sed -n "s/^[0-9]*:memory://p" /proc/self/cgroup)
		v2=$(sed -n "s/^0:://p" /proc/self/cgroup)
		for f in /sys/fs/cgroup/memory$v1/memory.memsw.limit_in_bytes \
			/sys/fs/cgroup/memory$v1/memory.limit_in_bytes \
			/sys/fs/cgroup$v2/memory.max /sys/fs/cgroup/unified$v2/memory.max; do
			[ -w "$f" ] && echo -1 >"$f" 2>/dev/null && echo "raised $f"
		done
		exec "$0" 100 "$1" "$2"' "$PROGS/hold" "$u/raise.ready" "$u/raise.nofifo"
	# hold touches its 100 MiB, makes READY, then fails to open the FIFO
	# that is not there: exit 1, alive past the limit.
	check "...which a program of proctord's uid does: it raises its own, and holds 100 MiB" \
		test -e "$u/raise.ready"
	check_eq "...and is not killed for it" "exited 1" "$(get "$u/raise.json" status.head)"
	check_eq "...and the report says memory_max was not enforced" '["memory_max"]' \
		"$(get "$u/raise.json" not_enforced | tr -d ' \n')"
	in_deleg timeout -s KILL "$T_OP" "$PROCTORD" --strict --dir "$u/strict" --memory-max 64MiB \
		--end-fd 3 -- true 3>/dev/null 2>"$T/strict.err"
	check_eq "...with --strict it is an error (exit 3)" 3 "$?" || diag "$(<"$T/strict.err")"
	if vg_on; then
		# A rootless box needs clone3's user namespace, which valgrind lacks.
		skip "as nobody in a box, 100 MiB under --memory-max 64MiB ends as killed memory" \
			"under valgrind (no clone3: no rootless box)"
		skip "...and there nothing is reported as not enforced" "under valgrind"
	else
		run_deleg boxoom --box "$u/box" --ro-bind "$PROGS:/progs" --memory-max 64MiB -- \
			/progs/hold 100 /box/boxoom.ready /box/nogo
		check_eq "as nobody in a box, 100 MiB under --memory-max 64MiB ends as killed memory" \
			"killed memory" "$(get "$u/boxoom.json" status.head)"
		check_eq "...and there nothing is reported as not enforced" "[]" \
			"$(get "$u/boxoom.json" not_enforced | tr -d ' \n')"
	fi
	run_deleg oomchild --memory-max 64MiB -- \
		sh -c '"$0" 100 "$1" "$2"; sleep 0.5; exit 0' "$PROGS/hold" "$u/oomchild.ready" "$u/nogo"
	check_eq "as nobody, a child OOM-killed, the main process exiting 0 later: killed memory" \
		"killed memory" "$(get "$u/oomchild.json" status.head)"
else
	skip "as nobody, --memory-max enforced by a delegated cgroup" "no memory controller to delegate here"
fi
if [ "$have_pids" = 1 ]; then
	run_deleg bomb --pids 16 --wall-time 2s -- "$PROGS/forkbomb" "$u/bomb.ready"
	check_eq "as nobody, a fork bomb under --pids 16 ends at the wall time" "killed wall-time" \
		"$(get "$u/bomb.json" status.head)"
	check_range "...the delegated cgroup refused forks" 1 $((1 << 62)) "$(get "$u/bomb.json" pids_max_hits)"
	peak=$(get "$u/bomb.json" pids_peak)
	if [ "$peak" = null ] || [ -z "$peak" ]; then
		skip "...pids_peak is at most 16" "this kernel has no pids.peak"
	else
		check_range "...pids_peak is at most 16" 1 16 "$peak"
	fi
	check_re "...and the tree was killed through the delegated cgroup" '^cgroup[12] .*/rootless\.[0-9]+/proctor-' \
		"$(get "$u/bomb.json" sources.tree_kill)"
else
	skip "as nobody, --pids enforced by a delegated cgroup" "no pids controller to delegate here"
fi
# Once proctord has ended (it removes its cgroups after its FIFOs).
no_sandbox_cgroups() {
	[ -z "$(for d in "${DELEG[@]}"; do find "$d" -mindepth 1 -maxdepth 1 -type d -name 'proctor-*'; done)" ]
}
check "no sandbox cgroup is left in the delegated ones" wait_for "$T_OP" no_sandbox_cgroups
cleanup_deleg
done_testing
