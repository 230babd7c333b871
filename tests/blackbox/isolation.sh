#!/bin/bash
# SPDX-License-Identifier: ISC
# The program's identity and isolation: --user/--group, --no-root, --new-session, --unshare-net, --unshare-ipc and --seccomp.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
: "${PROCTOR:?set PROCTOR to the proctor command}"
export PROCTORD

P="$PROGS/probe"
get() { jsonget "$1" "$2" 2>&1; }

root=0
[ "$(id -u)" = 0 ] && root=1
nobody_ok=0
if [ "$root" = 1 ] && id nobody >/dev/null 2>&1 && getent group "$(id -g nobody)" >/dev/null; then
	nobody_ok=1
fi
# skip_unless COND REASON COUNT: report COUNT skipped checks and fail COND.
skip_unless() {
	local i
	[ "$1" = 1 ] && return 0
	for i in $(seq "$3"); do skip "$4 ($i of $3)" "$2"; done
	return 1
}

# --- --user and --group ---------------------------------------------------------

# The helpers and the sandbox directories must be reachable by nobody: the
# test's temporary directory is 0700.
chmod 0755 "$T"

if skip_unless "$nobody_ok" "not root, or no user nobody with a group" 7 "--user nobody"; then
	ng=$(id -g nobody)
	run_to_end --user nobody --stdout "$T/ids" -- "$P" ids
	check_eq "--user nobody: the program runs as nobody, its group, no supplementary groups" \
		"uid=$(id -u nobody) gid=$ng groups=0" "$(<"$T/ids")"
	run_to_end --user nobody --group "$(id -g root)" --stdout "$T/ids2" -- "$P" ids
	check_eq "--user nobody --group 0: --group wins over the user's own group" \
		"uid=$(id -u nobody) gid=0 groups=0" "$(<"$T/ids2")"
	run_to_end --group "$ng" --stdout "$T/ids3" -- "$P" ids
	check_eq "--group alone: proctord's uid, that group, no supplementary groups" \
		"uid=0 gid=$ng groups=0" "$(<"$T/ids3")"

	# The sandbox directory readable by all, so that only the FIFOs' own
	# mode (0600, root's) stands between nobody and them.
	sb="$T/user.box"
	pd_start --dir "$sb" --dir-mode 0755 --user nobody --stdout "$T/kill" \
		-- sh -c '"$0" kill $PPID; "$0" open "$1/wait"; "$0" open "$1/status"; sleep 30' "$P" "$sb"
	wait_for 5 grep -q status "$T/kill"
	check_eq "--user nobody: the program can neither signal proctord nor open its FIFOs" \
		"kill: EPERM;open: EACCES;open: EACCES;" "$(tr '\n' ';' <"$T/kill")"
	wait1 "$sb"
	check_eq "...and proctord goes on serving" running "$ANS_HEAD"
	wait0 "$sb"
	sb="$T/root.box"
	pd_start --dir "$sb" --stdout "$T/kill-root" -- sh -c '"$0" kill $PPID; "$0" open "$1/wait"' "$P" "$sb"
	pd_poll "$sb"
	wait0 "$sb"
	check_eq "...whereas as root it could (the control)" "kill: ok;open: ok;" \
		"$(tr '\n' ';' <"$T/kill-root")"

	# The identity change clears the parent-death signal: proctord sets it
	# again, so a killed proctord still takes the program with it.
	sb="$T/pdeath.box"
	pd_start --dir "$sb" --user nobody -- sleep 60
	pd=$(pd_pid "$sb")
	prog=$(pgrep -P "$pd" sleep)
	pd_kill "$pd"
	wait_for 5 pid_gone "$prog"
	check "--user nobody: a program whose proctord is killed dies with it" pid_gone "$prog"
	rm -rf "$sb"
fi

if skip_unless "$root" "not root" 3 "--no-root"; then
	timeout "$T_OP" "$PROCTORD" --no-root --dir "$T/noroot" -- true >/dev/null 2>"$T/noroot.err"
	check_eq "--no-root without --user: proctord refuses, exit 3" 3 "$?"
	check_eq "...saying why" "proctord: --no-root: the program would run as root; give --user with another user" \
		"$(<"$T/noroot.err")"
	if [ "$nobody_ok" = 1 ]; then
		run_to_end --no-root --user nobody -- true
		check_eq "--no-root --user nobody runs" "exited 0" "$ANS_HEAD"
	else
		skip "--no-root --user nobody runs" "no user nobody"
	fi
fi

if skip_unless "$nobody_ok" "not root, or no user nobody" 5 "as another user, proctord"; then
	mkdir "$T/nb" && chown nobody "$T/nb"
	timeout "$T_OP" setpriv --reuid nobody --regid "$ng" --clear-groups \
		"$PROCTORD" --dir "$T/nb/box" --user root -- true >/dev/null 2>"$T/nb.err"
	check_eq "proctord not run as root refuses --user: exit 3" 3 "$?"
	check_re "...saying that only root can" "only root can run the program as another user" \
		"$(<"$T/nb.err")"
	timeout "$T_OP" setpriv --reuid nobody --regid "$ng" --clear-groups \
		"$PROCTOR" run --unshare-net -- true 2>"$T/nb2.err"
	# On any line: warnings may come first (a stale cgroup of root's that
	# nobody cannot remove, seen once under ASan).
	nl=$'\n'
	check_re "...and refuses --unshare-net before the program starts, saying why" \
		"(^|$nl)proctord: --unshare-net: only root can give the program a network namespace of its own \(proctord runs as uid $(id -u nobody)\)" \
		"$(<"$T/nb2.err")" || diag "$(<"$T/nb2.err")"
	# The shipped profiles' user = nobody, rootless and in a box: refused,
	# with the key's file and line and why a uid mapped in the box would
	# not serve. (The refusal comes before the box is made.)
	if id daemon >/dev/null 2>&1; then
		dm=$(id -u daemon)
		printf '[judge]\nuser = nobody\n' >"$T/nb/judge.conf"
		chmod 0644 "$T/nb/judge.conf"
		timeout "$T_OP" setpriv --reuid daemon --regid "$(id -g daemon)" --clear-groups \
			"$PROCTORD" --config "$T/nb/judge.conf" --profile judge --box "$T/nb" -- true \
			>/dev/null 2>"$T/nb3.err"
		check_eq "user = nobody in a profile, rootless in a box: refused (exit 3)" 3 "$?"
		check_re "...naming the file and line, and why a mapped uid would not serve" \
			"^proctord: user = nobody \\($T/nb/judge.conf:2 \\[judge\\]\\): only root can .* maps one uid, proctord's own, so its program is uid $dm on the host whatever it is called inside.*remove user and group" \
			"$(<"$T/nb3.err")"
	else
		skip "user = nobody in a profile, rootless in a box" "no user daemon to run proctord as"
		skip "...naming the file and line" "no user daemon to run proctord as"
	fi
fi

timeout "$T_OP" "$PROCTORD" --user no-such-user-here --dir "$T/nouser" -- true >/dev/null 2>"$T/nouser.err"
check_eq "--user with an unknown name: exit 2" 2 "$?"
check_re "...naming it" "no such user" "$(<"$T/nouser.err")"

# --- --new-session ----------------------------------------------------------------

run_to_end --stdout "$T/sess1" -- "$P" session
check_eq "by default the program stays in proctord's session" "in the caller's session" "$(<"$T/sess1")"
run_to_end --new-session --stdout "$T/sess2" -- "$P" session
check_eq "--new-session: the program leads a session of its own" "session leader" "$(<"$T/sess2")"

# TIOCSTI pushes input into a terminal: into the caller's one, a program
# could type commands after the judge exits. Under script(1) proctor run's
# stdin is a terminal, which the program inherits.
tiocsti() {
	timeout "$T_OP" script -qec "$(printf '%q ' "$PROCTOR" run --user nobody "$@" --stdout "$T/sti" -- "$P" tiocsti)" /dev/null \
		</dev/null >/dev/null 2>&1
	cat "$T/sti" 2>/dev/null
}
if [ "$nobody_ok" != 1 ]; then
	skip "TIOCSTI into the caller's terminal works without --new-session (control)" "not root"
	skip "--new-session: TIOCSTI into the caller's terminal fails" "not root"
elif [ "$(tiocsti)" != "TIOCSTI: ok" ]; then
	skip "TIOCSTI into the caller's terminal works without --new-session (control)" \
		"TIOCSTI is off on this kernel (dev.tty.legacy_tiocsti = 0)"
	skip "--new-session: TIOCSTI into the caller's terminal fails" "TIOCSTI is off on this kernel"
else
	ok "TIOCSTI into the caller's terminal works without --new-session (control)"
	check_eq "--new-session: TIOCSTI into the caller's terminal fails" "TIOCSTI: EPERM" \
		"$(tiocsti --new-session)"
fi

# --- --unshare-net and --unshare-ipc ----------------------------------------------------

if skip_unless "$root" "not root" 5 "--unshare-net"; then
	"$P" listen "$T/port" &
	listener=$!
	wait_for 5 test -s "$T/port"
	port=$(<"$T/port")
	run_to_end --stdout "$T/net1" -- "$P" connect "$port"
	check_eq "without --unshare-net the program reaches 127.0.0.1:$port (control)" "connect: ok" "$(<"$T/net1")"
	run_to_end --unshare-net --stdout "$T/net2" -- "$P" connect "$port"
	check_eq "--unshare-net: no connect() to 127.0.0.1 succeeds" "connect: ENETUNREACH" "$(<"$T/net2")"
	run_to_end --unshare-net --stdout "$T/net3" -- "$P" ifaces
	check_eq "--unshare-net: the only interface is a loopback that is down" "lo:down" "$(<"$T/net3")"
	run_to_end --unshare-net --user nobody --stdout "$T/net4" -- "$P" connect "$port"
	check_eq "--unshare-net with --user nobody: no connection either" "connect: ENETUNREACH" "$(<"$T/net4")"
	kill "$listener"
	run_to_end --unshare-net --report "$T/net.json" -- true
	check_eq "the report says so" "true" "$(get "$T/net.json" isolation.unshare_net)"
fi

if skip_unless "$root" "not root" 2 "--unshare-ipc"; then
	key=$((0x70c70000 + $$ % 65536))
	"$P" msgq-create "$key" >/dev/null
	run_to_end --stdout "$T/ipc1" -- "$P" msgq-find "$key"
	check_eq "without --unshare-ipc the program sees the caller's message queue (control)" "msgget: ok" "$(<"$T/ipc1")"
	run_to_end --unshare-ipc --stdout "$T/ipc2" -- "$P" msgq-find "$key"
	check_eq "--unshare-ipc: the caller's System V message queue is not there" "msgget: ENOENT" "$(<"$T/ipc2")"
	"$P" msgq-remove "$key" >/dev/null
fi

# --- --seccomp ---------------------------------------------------------------------

# valgrind 3.19 has no seccomp(2): under it libseccomp cannot even build
# the filter (it probes the kernel with that call), so the whole section is
# one skip there.
if vg_on; then
	skip "the --seccomp checks" "under valgrind (valgrind 3.19 does not know seccomp(2))"
else
	run_to_end --stdout "$T/sc0" -- "$P" syscall keyctl
	check_eq "without --seccomp keyctl returns (control)" "exited 0 keyctl: ok" "$ANS_HEAD $(<"$T/sc0")"
	for call in keyctl io_uring_setup ptrace mount unshare; do
		run_to_end --seccomp -- "$P" syscall "$call"
		check_eq "--seccomp: a program calling $call is ended with the call named" "killed syscall: $call" "$ANS_STATUS" || ans_diag
	done
	run_to_end --seccomp -- "$P" syscall vsock
	check_eq "--seccomp: an AF_VSOCK socket is killed syscall: socket" "killed syscall: socket" "$ANS_STATUS"
	run_to_end --seccomp -- "$P" syscall personality
	check_eq "--seccomp: personality(ADDR_NO_RANDOMIZE) is killed syscall: personality" "killed syscall: personality" "$ANS_STATUS"
	run_to_end --seccomp --stdout "$T/sc1" -- sh -c '"$0" syscall personality-query; "$0" syscall fork; "$0" syscall clone3; echo a b | wc -w' "$P"
	check_eq "--seccomp: ordinary programs run: a personality query, fork, a shell pipeline; clone3 says ENOSYS" \
		"exited 0;personality-query: ok;fork: ok;clone3: ENOSYS;2;" "$ANS_HEAD;$(tr '\n' ';' <"$T/sc1")"

	t0=${EPOCHREALTIME/./}
	run_to_end --seccomp --report "$T/sc.json" -- sh -c '"$0" syscall keyctl; sleep 30' "$P"
	t1=${EPOCHREALTIME/./}
	check_eq "--seccomp: a grandchild's denied call ends the whole tree" "killed syscall: keyctl" "$ANS_STATUS"
	check_range "...at once, not after its sleep" 0 5000000 $((t1 - t0))
	check_eq "the report names the call" "keyctl" "$(get "$T/sc.json" status.syscall)"
	check_eq "...and the filter's action" "kill" "$(get "$T/sc.json" isolation.seccomp)"

	run_to_end --seccomp-errno --stdout "$T/sc2" -- "$P" syscall keyctl
	check_eq "--seccomp-errno: the denied call fails with EPERM and the program goes on" \
		"exited 0 keyctl: EPERM" "$ANS_HEAD $(<"$T/sc2")"
	# The filter's listener is a new descriptor: it is made before RLIMIT_NOFILE
	# is lowered (the helper is linked statically so that it starts with 3).
	run_to_end --seccomp --nofile 3 -- "$P" syscall io_uring_setup
	check_eq "--seccomp with --nofile 3: the filter still loads" "killed syscall: io_uring_setup" "$ANS_STATUS"

	if [ "$nobody_ok" = 1 ]; then
		run_to_end --seccomp --user nobody --new-session --unshare-net -- "$P" syscall keyctl
		check_eq "--seccomp with --user, --new-session and --unshare-net together" "killed syscall: keyctl" "$ANS_STATUS"
	else
		skip "--seccomp with --user, --new-session and --unshare-net together" "not root"
	fi

	out=$(timeout "$T_OP" "$PROCTOR" run --seccomp -- "$P" syscall keyctl 2>&1)
	check_eq "proctor run exits 159 for killed syscall" 159 "$?"
	check_eq "...with the verdict" "proctor: killed syscall: keyctl; cpu" "${out%% [0-9]*}"
	sb="$T/json.box"
	pd_start --dir "$sb" --seccomp -- "$P" syscall keyctl
	pd_poll "$sb"
	timeout "$T_OP" "$PROCTOR" wait --json "$sb" >"$T/sc.wait.json"
	check_eq "proctor wait --json names the call" keyctl "$(jsonget "$T/sc.wait.json" status.syscall)"
	wait0 "$sb"

	out=$("$PROCTORD" --check --seccomp 2>&1)
	check_re "--check lists the denied calls" "seccomp denies +keyctl, add_key, .*io_uring_setup.*socket\(AF_VSOCK\)" "$out"
fi

done_testing
