# SPDX-License-Identifier: ISC
# The boxes' suites' harness (box.sh, box-trust.sh): root or rootless (BOX_ROOTLESS=1), a fresh DIR, a run to its end. Sourced after lib.sh.
src=$(cd "$(dirname "$0")/../.." && pwd)
rootless=${BOX_ROOTLESS:-0}
if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root (to run the box as root, or to become nobody)"
	exit 0
fi
if ! id nobody >/dev/null 2>&1; then
	echo "1..0 # SKIP no user nobody"
	exit 0
fi
ng=$(id -g nobody)
# nobody must reach the helpers, the boxes and the sandbox directories.
chmod 0755 "$T"
PROCTORD_BIN=$PROCTORD
if [ "$rootless" = 1 ]; then
	cat >"$T/pd-nobody" <<-EOF
	#!/bin/sh
	exec setpriv --reuid=nobody --regid=$ng --clear-groups "$PROCTORD_BIN" "\$@"
	EOF
	chmod 0755 "$T/pd-nobody"
	PROCTORD="$T/pd-nobody"
	if vg_on; then
		# The user namespace comes from clone3, which valgrind 3.19 lacks.
		echo "1..0 # SKIP a rootless box under valgrind (no clone3 there)"
		exit 0
	fi
	if ! setpriv --reuid=nobody --regid="$ng" --clear-groups unshare -Urm true 2>/dev/null; then
		echo "1..0 # SKIP no unprivileged user namespaces here"
		exit 0
	fi
fi
who=root
[ "$rootless" = 1 ] && who=nobody
P=/progs/probe

# bx DIR: a fresh box directory, writable by the program (nobody or root).
bx_seq=0
bx_new() {
	BOX="$T/tmp/box.$((++bx_seq))"
	mkdir "$BOX"
	chown nobody:"$ng" "$BOX"
	# Writable by uid 0 too, which has no capability in a box.
	chmod 0777 "$BOX"
}

# bx_run OUT ARGS... -- PROGRAM...: proctord --box $BOX with ARGS, the
# helpers at /progs, stdout to OUT; polls to the end. ANS_* hold the answer.
# A box's program starts from an environment of its own: --env passes the
# tag on, by which lib.sh's clean-up finds what a test leaves behind.
run_n=0
# Under valgrind, memcheck in the init's fork (the program, before its
# execve) opens a log file of its own: its directory is bound into the box,
# which then shows under /tmp (the checks on what is visible are skipped).
VG_BIND=()
vg_on && VG_BIND=(--bind "$T/vg")
bx_run() {
	local out=$1
	shift
	ANS_STATUS="" ANS_HEAD="" ANS_RAW=""
	RUN_DIR="$T/tmp/run.$((++run_n))"
	pd_start --dir "$RUN_DIR" --box "$BOX" --ro-bind "$PROGS:/progs" "${VG_BIND[@]}" \
		--env PROCTOR_BB_TAG --stdout "$out" --stderr "$out.err" "$@" || return 1
	pd_poll "$RUN_DIR" 5
	wait0 "$RUN_DIR"
}

# bx_pid DIR: the proctord serving DIR, by its process title once the
# program has started ("proctord: DIR: ..."; its init keeps the command line).
bx_pid() {
	local p title
	for p in /proc/[0-9]*; do
		IFS= read -r -d '' title 2>/dev/null <"$p/cmdline" || continue
		if [ "${title#"proctord: $1: "}" != "$title" ]; then
			echo "${p#/proc/}"
			return 0
		fi
	done
	pd_pid "$1"
}

# The box's and the test's mounts seen from the host.
host_mounts() { grep -e "$T" -e proctor-box /proc/self/mountinfo; }
mounts_before=$(host_mounts)
