#!/bin/bash
# SPDX-License-Identifier: ISC
# --check tries what it names the way a start uses it, and its verdict is a
# start's: the cgroups (a probe cgroup made where the start would make its
# own, the limit files written, removed again), --unshare-net as nobody, the
# filter, the box (made in a child of its own), a masked /proc; and nothing
# is left behind (no cgroup, mount, file or process).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	skip "--check's trials" "needs root (cgroups, namespaces, and to become nobody)"
	done_testing
	exit 0
fi
if ! command -v setpriv >/dev/null || ! id nobody >/dev/null 2>&1; then
	skip "--check's trials" "no setpriv or no user nobody here"
	done_testing
	exit 0
fi
ng=$(id -g nobody)
# nobody must reach the helpers and the sandbox directories.
chmod 0755 "$T"
as_nobody() { setpriv --reuid=nobody --regid="$ng" --clear-groups "$@"; }
# nobody's proctord is the plain one; root's, in tests/vm (pure v2), starts
# alone in a cgroup of its own, as a service with Delegate=yes does: there
# --check moves into its leaf and enables controllers, and undoes both.
PD_PLAIN=$PROCTORD
pd_in_scope

# The script's own files, and the starts' directories, go to $T/own.
mkdir -m 1777 "$T/own"
BOX="$T/box"
mkdir "$BOX"
chown nobody:"$ng" "$BOX"
chmod 0777 "$BOX"

# What a --check could leave: mounts on /tmp, /proc or below $T, files
# below $T (but $T/own, and valgrind's logs), processes of this script's.
traces() {
	awk -v t="$T" '$5 == "/tmp" || $5 ~ /^\/proc/ || index($5, t) == 1 { print $5, $9 }' /proc/self/mountinfo
	find "$T" \( -path "$T/own" -o -path "$T/vg" \) -prune -o -print | sort
	tagged_pids
}

# check_clean NAME OUT BEFORE: each probe cgroup of OUT (a --check's output)
# is gone, and nothing else changed since BEFORE (traces).
check_clean() {
	local name=$1 out=$2 before=$3 left="" n=0 line pid="" d
	local re='^would create (proctor-([0-9]+)[0-9.]*) in (.+) \(tried: made, and removed by --check\)$'
	while IFS= read -r line; do
		[[ $line =~ $re ]] || continue
		n=$((n + 1))
		pid=${BASH_REMATCH[2]}
		[ -e "${BASH_REMATCH[3]}/${BASH_REMATCH[1]}" ] && left="$left ${BASH_REMATCH[3]}/${BASH_REMATCH[1]}"
	done <<<"$out"
	check_eq "$name: no probe cgroup is left (of $n made)" "" "$left"
	check_eq "...nor a mount, a file or a process" "$before" "$(traces)"
	[[ $out == *$'\nwould move proctord into '*'/proctord (tried: moved back by --check)'* ]] || return 0
	# The cgroup it started in (tests/vm's pd.*) has neither a leaf nor a
	# controller enabled any more, and holds no process.
	left=$(for d in "$PROCTOR_TEST_SCOPE"/pd.*."$pid".*; do
		find "$d" -mindepth 1 -type d; cat "$d/cgroup.subtree_control" "$d/cgroup.procs"; done)
	check_eq "...its leaf and the controllers it enabled are undone" "" "$left"
}

# --- the cgroups ---------------------------------------------------------------

before=$(traces)
out=$("$PROCTORD" --check --pids 10 --memory-max 64MiB -- /bin/true 2>&1)
rc=$?
check_eq "--check --pids 10 --memory-max 64MiB as root: everything can be honoured (exit 0)" 0 "$rc" ||
	diag "$out"
re=$'\n''pids +10 +command line +cgroup[12] pids\.max'
if [[ $out =~ $re ]]; then
	check_re "...it wrote pids.max in a probe cgroup where the start would make its own" \
		$'\nwould write 10 to [^\n]*/proctor-[0-9]+/pids.max \\(tried\\)' "$out"
	check_re "...and says that it made and removed the probe cgroup" \
		$'\nwould create proctor-[0-9]+ in [^\n]* \\(tried: made, and removed by --check\\)' "$out"
	check_clean "--check" "$out" "$before"

	# Past the kernel's largest pids.max (PID_MAX_LIMIT): a start fails
	# to write it, and --check, which writes it too, says so.
	out=$("$PROCTORD" --check --pids 5000000 -- /bin/true 2>&1)
	check_eq "--check --pids 5000000: the limit file refuses it, as at a start (exit 3)" 3 "$?" ||
		diag "$out"
	check_re "...naming the file and the kernel's reason" \
		$'\ncannot be honoured: cannot write 5000000 to [^\n]*/pids.max: Invalid argument' "$out"
	check_clean "--check of a limit the kernel refuses" "$out" "$before"
	"$PROCTORD" --dir "$T/own/sb-pids" --pids 5000000 --end-fd 3 -- /bin/true 3>/dev/null 2>"$T/own/pids.err"
	check_eq "...and a start fails there alike (exit 3)" 3 "$?"
	check_re "...with the same reason" "cannot write 5000000 to .*/pids.max: Invalid argument" \
		"$(<"$T/own/pids.err")"
else
	skip "--check's probe cgroup, and a limit the kernel refuses" "no pids cgroup serves --pids here"
fi

# oom_kills and pids_peak name the files of the hierarchy that serves them.
re=$'\n''memory_max +64MiB +command line +cgroup([12]) '
if [[ $out =~ $re ]]; then
	v=${BASH_REMATCH[1]}
	want="cgroup2 memory.events oom_kill"
	[ "$v" = 1 ] && want="cgroup1 memory.oom_control oom_kill"
	out=$("$PROCTORD" --check --memory-max 64MiB -- /bin/true 2>&1)
	check_re "oom_kills: the cgroup v$v file that serves it, not both versions'" \
		$'\noom_kills +'"$want"$'\n' "$out"
fi
out=$("$PROCTORD" --check --cgroup v1 --memory-max 64MiB -- /bin/true 2>&1)
re=$'\n''memory_max +64MiB +command line +cgroup1'
if [[ $out =~ $re ]]; then
	check_re "--cgroup v1: oom_kills from cgroup1 memory.oom_control" \
		$'\noom_kills +cgroup1 memory.oom_control oom_kill\n' "$out"
	check_re "...every file it names a v1 one" $'\n(would write [^\n]*/memory\\.(limit_in_bytes|memsw\\.limit_in_bytes) \\(tried\\)\n)+' "$out"
	check_clean "--check --cgroup v1" "$out" "$before"
else
	skip "--cgroup v1: oom_kills from cgroup1 memory.oom_control" "no v1 memory hierarchy here"
fi

out=$("$PROCTORD" --check --cgroup none --memory-max 64MiB -- /bin/true 2>&1)
check_eq "--cgroup none: memory_max cannot be honoured (exit 3)" 3 "$?"
check_eq "...and no cgroup is made or named for a start" "" "$(grep -o 'proctor-[0-9][0-9.]*' <<<"$out")"
check_eq "...nothing is left" "$before" "$(traces)"

# --- --unshare-net ------------------------------------------------------------

out=$(as_nobody "$PD_PLAIN" --check --unshare-net -- /bin/true 2>&1)
check_eq "--check --unshare-net as nobody: cannot be honoured (exit 3)" 3 "$?" || diag "$out"
check_re "...saying why, as a start does" \
	$'\ncannot be honoured: --unshare-net: only root can give the program a network namespace of its own' \
	"$out"
as_nobody "$PD_PLAIN" --dir "$T/own/sb-net" --unshare-net --end-fd 3 -- /bin/true 3>/dev/null 2>"$T/own/net.err"
check_eq "...and a start as nobody refuses it (exit 3)" 3 "$?"
check_re "...for that reason" "only root can give the program a network namespace" "$(<"$T/own/net.err")"
out=$(as_nobody "$PD_PLAIN" --check -- /bin/true 2>&1)
check_eq "--check as nobody without it: exit 0" 0 "$?" || diag "$out"
out=$("$PROCTORD" --check --unshare-net --unshare-ipc -- /bin/true 2>&1)
check_eq "--check --unshare-net --unshare-ipc as root: unshared in a child, exit 0" 0 "$?" || diag "$out"
check_eq "...nothing is left" "$before" "$(traces)"

# --- the filter ---------------------------------------------------------------

if vg_on; then
	skip "--check loads the filter in a child" "under valgrind (no seccomp there)"
else
	out=$("$PROCTORD" --check --seccomp -- /bin/true 2>&1)
	check_eq "--check --seccomp where filters may be loaded: exit 0" 0 "$?" || diag "$out"
	out=$("$PROGS/noseccomp" "$PROCTORD" --check --seccomp -- /bin/true 2>&1)
	check_eq "--check --seccomp where seccomp(2) is refused: cannot be honoured (exit 3)" 3 "$?" ||
		diag "$out"
	check_re "...the filter's load failed, with the kernel's reason" \
		$'\ncannot be honoured: the filter cannot be loaded here: seccomp: Operation not permitted' "$out"
	"$PROGS/noseccomp" "$PROCTORD" --dir "$T/own/sb-sc" --seccomp --report "$T/own/sc.json" \
		--end-fd 3 -- /bin/true 3>/dev/null 2>/dev/null
	check_re "...and a start there fails to load it too" "^failed setup: seccomp" \
		"$("$PROGS/jsonget" "$T/own/sc.json" status.line 2>&1)"
	check_eq "...nothing is left" "$before" "$(traces)"
fi

# --- the box ------------------------------------------------------------------

# has TEXT PART: whether TEXT holds PART.
has() { [[ $1 == *"$2"* ]]; }
# masked CMD...: CMD where /proc/sys is covered (as container runtimes mask
# it): a new proc may not be mounted in a user namespace then.
masked() { timeout -s KILL 30 unshare --mount sh -c 'mount -t tmpfs none /proc/sys && exec "$@"' sh "$@"; }
for who in root nobody; do
	if vg_on; then
		# memcheck follows the trial's child and the start's init into
		# the box, where neither runs as it does natively.
		skip "[$who] --check makes the box as a start does" "under valgrind"
		continue
	fi
	pd=("$PROCTORD")
	if [ "$who" = nobody ]; then
		if ! as_nobody unshare -Urm true 2>/dev/null; then
			skip "[nobody] --check makes the box as a start does" "no user namespaces here"
			continue
		fi
		pd=(setpriv --reuid=nobody --regid="$ng" --clear-groups "$PD_PLAIN")
	fi
	# Its verdict is a start's: a box that starts here (or one that
	# cannot: tests/vm's root is the initramfs, which pivot_root refuses).
	"${pd[@]}" --dir "$T/own/sb-ok-$who" --box "$BOX" --report "$T/own/ok-$who.json" \
		--end-fd 3 -- /bin/true 3>/dev/null 2>/dev/null
	start=$("$PROGS/jsonget" "$T/own/ok-$who.json" status.line 2>&1)
	out=$("${pd[@]}" --check --box "$BOX" -- /bin/true 2>&1)
	rc=$?
	if [ "$start" = "exited 0" ]; then
		check_eq "[$who] --check --box where a box starts: made in a child, exit 0" 0 "$rc" ||
			diag "$out"
		check_re "...it says it made and entered it" $'\nbox tried +made and entered by --check' "$out"
	else
		check_eq "[$who] --check --box where a box cannot start ($start): exit 3" 3 "$rc" ||
			diag "$out"
		check "...for the start's reason" has "$out" \
			"cannot be honoured: the box cannot be made here: ${start#failed setup: }"
	fi
	out=$(masked "${pd[@]}" --check --box "$BOX" -- /bin/true 2>&1)
	check_eq "[$who] --check --box where /proc/sys is masked: cannot be honoured (exit 3)" 3 "$?" ||
		diag "$out"
	check_re "...the box's /proc cannot be mounted" \
		$'\ncannot be honoured: the box cannot be made here: /proc: Operation not permitted' "$out"
	masked "${pd[@]}" --dir "$T/own/sb-box-$who" --box "$BOX" --report "$T/own/box-$who.json" \
		--end-fd 3 -- /bin/true 3>/dev/null 2>/dev/null
	check_eq "...and a start there fails alike" "failed setup: /proc: Operation not permitted" \
		"$("$PROGS/jsonget" "$T/own/box-$who.json" status.line 2>&1)"
	rm -f "$T/own/box-$who.json"
	check_eq "...nothing is left" "$before" "$(traces)"
done

# --- a masked /proc -----------------------------------------------------------

if ldd "$PROCTORD" 2>/dev/null | grep -q libasan || vg_on; then
	# Both read /proc/self to start (stale-proc.sh says more).
	skip "--check under a masked /proc warns of the figures" "under ASan or valgrind"
else
	out=$(timeout -s KILL 20 unshare --pid --fork --kill-child --mount sh -c \
		'mount -t tmpfs none /proc && exec "$@"' sh "$PROCTORD" --check --cgroup none -- /bin/true 2>&1)
	check_eq "--check under a masked /proc, without cgroups or --cpu-time: exit 0" 0 "$?"
	check_re "...but warns that waits answer 0 CPU time and 0 memory" \
		$'\nwarning: waits answer 0 CPU time and 0 memory while the program runs: /proc is not proctord\'s' \
		"$out"
	mkdir "$T/own/empty"
	# shellcheck disable=SC2016 # $0 and $@ are the child sh's
	out=$(timeout -s KILL 20 unshare --pid --fork --kill-child --mount sh -c \
		'mount --bind "$0" /proc && exec "$@"' "$T/own/empty" "$PROCTORD" --check --cgroup none \
		--cpu-time 1s -- /bin/true 2>&1)
	check_eq "...an empty directory on /proc, with --cpu-time: cannot be honoured (exit 3)" 3 "$?"
	check_re "...with the same warning" $'\nwarning: waits answer 0 CPU time and 0 memory' "$out"
	rmdir "$T/own/empty"
fi
check_eq "at the end nothing of the checks is left" "$before" "$(traces)"
done_testing
