# SPDX-License-Identifier: ISC
# shellcheck shell=bash
# shellcheck disable=SC2034 # CTR_* are for the scripts that source this
# The image of the container tests (tests/blackbox/container.sh and docker.sh, tests/bench/container.sh): meson install's tree FROM scratch, with what it loads, a shell and busybox's tools, and contrib/container's entry point; the cases the black-box scripts run in it, and their TAP lines. Sourced by bash.

# skip_all WHY...: the whole script skipped, saying why.
skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

# ctr_start_checks: the checks every container script starts with. Not in
# a sanitizer build nor under valgrind: proctord's paths here are nocap.sh's
# and box-rootless.sh's, which those run (an ASan build would also need its
# runtime in the image). Sets build, the meson build directory.
ctr_start_checks() {
	san_on && skip_all "in a sanitizer build (nocap.sh covers these paths there)"
	vg_on && skip_all "under valgrind (nocap.sh covers these paths there)"
	build=$(dirname "$(dirname "$PROCTORD")")
	[ -f "$build/meson-info/intro-installed.json" ] || skip_all "$build is not a meson build directory"
}

# ctr_need_image: CTR_WHY is empty when this host has what the image needs
# (root, meson, python3, dash, busybox, ldd), else it says what is missing.
ctr_need_image() {
	local tool
	CTR_WHY=''
	if [ "$(id -u)" != 0 ]; then
		CTR_WHY="needs root (to run the container runtime rootful)"
		return
	fi
	for tool in meson python3 dash busybox ldd; do
		command -v "$tool" >/dev/null || { CTR_WHY="no $tool"; return; }
	done
}

# ctr_need: CTR_WHY is empty when this host has what the image and Podman
# need (ctr_need_image's, podman, runc on a hybrid host, Podman's default
# seccomp profile), else it says what is missing. Sets CTR_RUNTIME
# (podman's --runtime, as an array).
ctr_need() {
	CTR_RUNTIME=()
	ctr_need_image
	[ -z "$CTR_WHY" ] || return
	command -v podman >/dev/null || { CTR_WHY="no podman"; return; }
	# Debian 12's crun refuses hybrid hosts; runc runs on both.
	if command -v runc >/dev/null; then
		CTR_RUNTIME=(--runtime "$(command -v runc)")
	elif [ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ]; then
		CTR_WHY="no runc, and crun refuses this host's hybrid cgroups"
		return
	fi
	CTR_SECCOMP_DEFAULT=/usr/share/containers/seccomp.json
	[ -f "$CTR_SECCOMP_DEFAULT" ] || CTR_WHY="no $CTR_SECCOMP_DEFAULT (Podman's default seccomp profile)"
}

# ctr_add ROOT FILE...: the shared libraries FILE loads, into ROOT/usr/lib
# (the loader's paths: /lib64 and /lib are links to it there).
ctr_add() {
	local root=$1 f lib
	shift
	for f in "$@"; do
		for lib in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*'); do
			[ -e "$root/usr$lib" ] || cp -L "$lib" "$root/usr/lib/${lib##*/}"
		done
	done
}

# ctr_rootfs ROOT BUILD SRC: the image's tree in ROOT (made): BUILD's
# meson install, proctor-entry and proctord-cgroup, dash as sh (busybox's
# would run its own unshare and mount applets, not util-linux's, which
# the entry's cgroup mount needs), busybox's tools, util-linux's unshare,
# mount and umount, /etc/passwd and /etc/group. Returns 1, with the
# install's log on stderr, if meson install fails.
ctr_rootfs() {
	local root=$1 build=$2 src=$3 a tools
	if ! meson install -C "$build" --destdir "$root" --no-rebuild --quiet >"$root.log" 2>&1; then
		tail -n 5 "$root.log" >&2
		return 1
	fi
	mkdir -p "$root"/{usr/bin,usr/lib,proc,sys,dev,tmp,etc}
	ln -s usr/bin "$root/bin"
	ln -s usr/lib "$root/lib"
	ln -s usr/lib "$root/lib64"
	chmod 1777 "$root/tmp"
	tools=("$(command -v unshare)" "$(command -v mount)" "$(command -v umount)")
	ctr_add "$root" "$(command -v dash)" "$(command -v busybox)" "${tools[@]}" \
		"$root"/usr/local/bin/proctord "$root"/usr/local/bin/proctor
	cp "${tools[@]}" "$root/usr/bin/"
	cp "$(command -v dash)" "$root/usr/bin/sh"
	cp "$(command -v busybox)" "$root/usr/bin/busybox"
	for a in cat ls echo awk grep mkdir rm yes sleep id test true wc tr; do
		[ -e "$root/usr/bin/$a" ] || ln -s busybox "$root/usr/bin/$a"
	done
	printf 'root:x:0:0::/:/bin/sh\nnobody:x:65534:65534::/:/bin/sh\n' >"$root/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
	install -m 0755 "$src/contrib/container/entry.sh" "$root/usr/local/bin/proctor-entry"
	install -m 0755 "$src/contrib/container/proctord-cgroup.sh" "$root/usr/local/bin/proctord-cgroup"
	ldconfig -r "$root" 2>/dev/null || :
}

# ctr_podman STATE ARGS...: CTR_CMD, the command line of a podman run with
# its state in STATE (its run root: under 50 characters), with what proctor
# needs and no capability added: the profile at STATE.seccomp.json, /proc
# unmasked, the cgroup namespace and mount. Podman's default ulimits fail
# where the host's hard limits are lower (root without CAP_SYS_RESOURCE):
# lower ones here.
ctr_podman() {
	local st=$1
	shift
	CTR_CMD=(podman --storage-driver vfs --root "$st/s" --runroot "$st/r" run --rm
		"${CTR_RUNTIME[@]}" --network=none --ulimit nofile=1024:4096 --ulimit nproc=4096:8192
		--security-opt unmask=/proc/* --security-opt seccomp="$st.seccomp.json"
		--cgroupns=private --security-opt unmask=/sys/fs/cgroup "$@")
}

# ctr_cases ROOT: ROOT/cases.sh, the cases a container's PID 1 (sh) runs,
# each result a file in /out: --check --strict, the box's core, the limits,
# what is left behind.
ctr_cases() {
	cat >"$1/cases.sh" <<'EOF'
cd /
o=/out
# On cgroup v2, proctor-entry made PROCTORD proctord-cgroup: each proctord
# (proctor run's, and this --check) in a cgroup of its own.
run() {
	n=$1
	shift
	proctor run --json "$o/$n.json" "$@"
	echo $? >"$o/$n.rc"
}
"${PROCTORD:-proctord}" --check --strict --box /srv/box --memory-max 64MiB --pids 16 >$o/check.txt 2>&1
echo $? >$o/check.rc
run core --box /srv/box --wall-time 10s -- sh -c '
	cat /srv/secret 2>/dev/null || echo secret: unreadable
	if (: >/usr/x) 2>/dev/null; then echo usr: written; else echo usr: refused; fi
	cd /proc && echo [0-9]*' >$o/core.out 2>$o/core.err
run mem --box /srv/box --ro-bind /progs --memory-max 64MiB --wall-time 10s -- /progs/hold 200 /tmp/r /tmp/f 2>$o/mem.err
# A fork bomb only where a limit holds it (a cgroup, or RLIMIT_NPROC in a
# user namespace): never against the host's own limits.
if ! grep -q '^pids .*NOT enforced' $o/check.txt; then
	run pids --box /srv/box --ro-bind /progs --pids 16 --wall-time 2s -- /progs/forkbomb /box/full 2>$o/pids.err
	if [ -e /srv/box/full ]; then echo refused; else echo none; fi >$o/pids.full
	rm -f /srv/box/full
fi
# The machine's stalls meanwhile (lib.sh: witness_stop, punctual).
/progs/rtwitness >$o/cpu.stall 2>&1 &
w=$!
run cpu --cpu-time 500ms --wall-time 10s -- /progs/spin 2>$o/cpu.err
kill $w
wait $w
run outl --output-limit 1MiB --wall-time 10s -- yes >$o/outl.out 2>$o/outl.err
ls -A /srv/box | tr '\n' ' ' >$o/left.box
cd /proc && echo [0-9]* >$o/left.procs
EOF
}

json_get() { jsonget "$1" "$2" 2>/dev/null | tr -d ' \n'; }

# ctr_judge TAG OUT: the TAP lines of the results cases.sh left in OUT.
ctr_judge() {
	local tag=$1 out=$2 crc late rt
	diag "$(grep -E '^(cgroups|identity|memory_max|pids|seccomp|/proc masks|cgroup ns|user ns) ' "$out/check.txt")"
	check_eq "[$tag] --box: a file of the container outside the box is unreadable, /usr is read-only, /proc lists only the box's init and program" \
		"secret: unreadable;usr: refused;1 2;" "$(tr '\n' ';' <"$out/core.out")" ||
		diag "$(<"$out/core.err")"

	# The limits: enforced where --check says they are; where it says
	# not, --check --strict exits 3 and the run lists them in not_enforced.
	crc=$(<"$out/check.rc")
	if grep -q '^memory_max .*NOT enforced' "$out/check.txt"; then
		check_eq "[$tag] memory_max not enforceable here: --check --strict says so (exit 3)" 3 "$crc"
		check_re "[$tag] ...and the run's not_enforced lists memory_max" '"memory_max"' \
			"$(json_get "$out/mem.json" not_enforced)"
	else
		check_eq "[$tag] --memory-max 64MiB on 200 MiB is killed memory" \
			"killed memory" "$(jsonget "$out/mem.json" status.head)" || diag "$(<"$out/mem.err")"
	fi
	if grep -q '^pids .*NOT enforced' "$out/check.txt"; then
		check_eq "[$tag] pids not enforceable here: --check --strict says so (exit 3; no fork bomb run)" \
			3 "$crc"
	else
		check_eq "[$tag] --pids 16 stops a fork bomb: forks refused, the wall time ends it" \
			"refused killed wall-time" \
			"$(<"$out/pids.full") $(jsonget "$out/pids.json" status.head)" || diag "$(<"$out/pids.err")"
	fi
	# Where it names nothing NOT enforced, the readiness check passes (it
	# once failed under Docker's profile: fork ENOMEM after its PID
	# namespace probe).
	if grep -q 'NOT enforced' "$out/check.txt"; then
		[ "$crc" = 3 ] || { not_ok "[$tag] --check --strict exits 3"; diag "$(<"$out/check.txt")"; }
	else
		check_eq "[$tag] --check --strict --box with the limits, the readiness check, exits 0" 0 "$crc" ||
			diag "$(grep -E '^cannot be honoured' "$out/check.txt")"
	fi
	check_eq "[$tag] --cpu-time 500ms on a spinner is killed cpu-time (exit 152)" \
		"killed cpu-time 152" "$(jsonget "$out/cpu.json" status.head) $(<"$out/cpu.rc")" ||
		diag "$(<"$out/cpu.err")"
	# The README's overshoot figure: 15 ms at most (limits.sh's bound), but
	# where the machine stalled (lib.sh: punctual; the witness ran in the
	# container, and is not real-time where the container may not be).
	read -r late rt <"$out/cpu.stall" || late=0 rt=0
	STALL_US=0
	[ "$rt" != 1 ] || STALL_US=$late
	diag "[$tag] the machine stalled a real-time wake-up by up to $STALL_US µs meanwhile"
	punctual 7500 "[$tag] ...the CPU reported within the limit + 15 ms" 500000 515000 \
		"$(json_get "$out/cpu.json" cpu_us)"
	check_eq "[$tag] --output-limit 1MiB on yes: killed output (exit 153), 1 MiB delivered" \
		"killed output 153 1048576" \
		"$(jsonget "$out/outl.json" status.head) $(<"$out/outl.rc") $(wc -c <"$out/outl.out")"
	check_eq "[$tag] nothing left behind: the box directory empty, no process but the container's PID 1" \
		"|1" "$(<"$out/left.box")|$(<"$out/left.procs")"
}

# ctr_judge_pid1 TAG LOG RC JSON: proctor run as the container's entry
# point, exec'd by sh, which printed "pid $$" to LOG: PID 1, its exit code
# RC the program's (it once took getppid() == 1 for a dead parent: 125).
ctr_judge_pid1() {
	local tag=$1
	check_eq "[$tag] proctor run as the container's PID 1: the program's exit code (7) and its verdict" \
		"pid 1 7 exited 7" "$(grep '^pid' "$2") $3 $(jsonget "$4" status.head)" ||
		diag "$(<"$2")"
}
