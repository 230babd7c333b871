# SPDX-License-Identifier: ISC
# Tiny TAP helper and proctord plumbing shared by the black-box tests (source it from bash).
#
# Environment: PROCTORD (the daemon) and PROGS (directory of tests/progs helpers),
# set by meson or by hand:
#   PROCTORD=build/src/proctord PROGS=build/tests/progs bash tests/blackbox/shell.sh

set -u
export LC_ALL=C    # EPOCHREALTIME and numbers must use a '.' whatever the caller's locale

if [ -z "${PROCTORD:-}" ] || [ -z "${PROGS:-}" ]; then
	echo "Bail out! set PROCTORD and PROGS (e.g. PROCTORD=build/src/proctord PROGS=build/tests/progs)"
	exit 1
fi
if [ ! -x "$PROCTORD" ]; then
	echo "Bail out! $PROCTORD is not an executable (build proctord first)"
	exit 1
fi
PROCTORD=$(realpath "$PROCTORD")
PROGS=$(realpath "$PROGS")

# --- proctord under valgrind --------------------------------------------------
# PROCTORD_VALGRIND=1 (meson test --setup valgrind) runs every proctord these
# scripts start, daemons and their forks included, under memcheck. A leak or a
# memory error changes proctord's exit code to 99 and is one "not ok" line at
# the end of the script (vg_check), with valgrind's report as diagnostics.
# The sandboxed program itself runs natively (no --trace-children).
vg_on() { [ "${PROCTORD_VALGRIND:-0}" = 1 ]; }
# A sanitizer build (meson's b_sanitize; the environment from meson.build):
# its timing checks are skipped and its scripts run side by side.
san_on() { [ "${PROCTOR_SANITIZED:-0}" = 1 ]; }
# There, LeakSanitizer's check at each instrumented process's exit is a third
# of the suite's CPU, and the scripts of the valgrind suite check proctord for
# leaks already: off here unless PROCTOR_TEST_LEAKS=1 (the unit tests and the
# fuzzers keep it).
if san_on && [ "${PROCTOR_TEST_LEAKS:-0}" != 1 ]; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi

# Limit for anything that should be instant. A hang must fail a test, not block
# the suite, but a loaded 2-core machine can stall a few seconds.
T_OP=${T_OP:-10}

T=$(mktemp -d "${TMPDIR:-/tmp}/proctor-bb.XXXXXX")
# Everything the script starts makes its temporary files here, never in the
# global /tmp that other users of the machine share: a test looks only at
# what is its own. Sticky and open to all, like /tmp, for the suites that
# open $T to the user nobody.
mkdir -m 1777 "$T/tmp"
export TMPDIR="$T/tmp"
# Every process this script starts (proctord, the sandboxed programs, their
# descendants) inherits this tag, so clean-up finds exactly ours and nothing else.
export PROCTOR_BB_TAG="$T"
if vg_on; then
	if ! command -v valgrind >/dev/null; then
		echo "Bail out! PROCTORD_VALGRIND=1 but there is no valgrind"
		exit 1
	fi
	# Everything is slower under memcheck: start-up alone takes about a second.
	T_OP=$((T_OP * 3))
	PROCTORD_REAL=$PROCTORD
	# Some suites start proctord as nobody: its log goes here too.
	mkdir -m 1777 "$T/vg"
	# A log is named FAMILY.PID.log: FAMILY is the pid the wrapper had (the
	# first proctord, before a --daemonize fork), which every process it
	# forks inherits as PROCTOR_VG_PD; PID is the pid the process sees,
	# 1 for the init of the program's PID namespace, which %p alone would
	# give every sandbox's init the same log.
	# --read-inline-info=no: no inlined frames in its stacks, and 11% less
	# CPU for each start (10 of proctord --version: 6.6 s, 5.9 s without).
	cat >"$T/proctord" <<-EOF
	#!/bin/sh
	PROCTOR_VG_PD=\$\$ exec valgrind --quiet --read-inline-info=no --leak-check=full --show-leak-kinds=definite,indirect \\
		--errors-for-leak-kinds=definite,indirect --error-exitcode=99 \\
		--track-fds=no --vgdb=no --log-file="$T/vg/%q{PROCTOR_VG_PD}.%p.log" \\
		"$PROCTORD_REAL" "\$@"
	EOF
	chmod 0755 "$T/proctord"
	# proctor run starts the proctord named by PROCTORD: the wrapper too.
	export PROCTORD="$T/proctord"
fi
# Default sandbox directories (no --dir) land here, not in the user's runtime dir.
mkdir -m 0700 "$T/xdg"
export XDG_RUNTIME_DIR="$T/xdg"

# --- TAP -------------------------------------------------------------------

tap_n=0
tap_failed=0

plan() { echo "1..$1"; tap_planned=$1; }

# done_testing: the plan at the end (TAP allows it), so a script that dies half
# way through is reported as a failure by the missing plan.
done_testing() {
	! vg_on || vg_check
	json_check
	[ -n "${tap_planned:-}" ] || echo "1..$tap_n"
	# Run by hand, the exit status says it all. Under meson (which sets
	# BLACKBOX_TAP) the "not ok" lines do: a non-zero exit would turn a plain
	# FAIL into an ERROR there.
	[ "$tap_failed" -eq 0 ] || [ -n "${BLACKBOX_TAP:-}" ]
}

ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1"; }

not_ok() { tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1)); echo "not ok $tap_n - $1"; }

# skip DESCRIPTION REASON
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1 # SKIP $2"; }

# --- JSON documents ----------------------------------------------------------
# Every JSON document a script reads (proctord's reports, proctor run's
# verdicts and errors, the answers of proctor wait and stop --json) is kept
# as it was read, once per content, and done_testing checks them all against
# proto/report.schema.json in one python3 (a second each): one TAP line,
# skipped without python3-jsonschema.
# Builtins only (a fork and an exec cost milliseconds of CPU here; see
# pause): the document is read whole and written once per content and
# shell, as BASHPID.N.json, since a $(get ...) keeps it from a subshell.
mkdir "$T/json-docs"
declare -A json_seen=()
json_n=0
json_keep() {
	local doc
	[ -s "$1" ] || return 0
	IFS= read -r -d '' doc <"$1" || :
	[ -n "$doc" ] && [ -z "${json_seen[$doc]:-}" ] || return 0
	json_seen[$doc]=1
	json_n=$((json_n + 1))
	printf '%s' "$doc" >"$T/json-docs/$BASHPID.$json_n.json"
}

# jsonget FILE PATH: one value of a JSON document (tests/progs/jsonget); the
# document is kept for the check.
jsonget() { json_keep "$1"; "$PROGS/jsonget" "$@"; }

json_check() {
	local what out rc n py

	n=$(find "$T/json-docs" -name '*.json' | wc -l)
	[ "$n" -gt 0 ] || return 0
	what="the $n JSON documents read match proto/report.schema.json"
	# The interpreter meson found (meson.build), for which quickstart.sh
	# installs python3-jsonschema; the PATH's python3 may be a version
	# manager's shim, which costs 0.6 s of CPU to start (pyenv's, here).
	py=${PROCTOR_PYTHON:-python3}
	if ! command -v "$py" >/dev/null; then
		skip "$what" "no python3"
		return 0
	fi
	out=$("$py" "$(dirname "${BASH_SOURCE[0]}")/../validate-report.py" "$T/json-docs"/*.json 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		ok "$what"
	elif [ "$rc" -eq 77 ]; then
		skip "$what" "no python3-jsonschema"
	else
		not_ok "$what"
		diag "$out"
	fi
}

# diag LINE...: each line of each argument as a TAP comment ("# ").
diag() {
	local s
	for s in "$@"; do printf '# %s\n' "${s//$'\n'/$'\n'# }"; done
}

# The check_* helpers print one TAP line and return non-zero on failure, so a
# caller can add "|| ans_diag".

# native WHY CHECK DESCRIPTION ARGS...: run the check, except under valgrind,
# where it is reported skipped. Two kinds of check cannot hold there: timings
# ("timing": under memcheck proctord needs about a second just to start) and
# the rlimits proctord's child sets between fork and execve ("rlimits": the
# child still runs under valgrind then, which emulates RLIMIT_NOFILE and
# RLIMIT_STACK for itself), and proctord's resident memory ("memory": the
# tool's own, about 1.6 MiB more when a thread starts). The timings are
# skipped in a sanitizer build too: its scripts share the CPUs (meson.build).
native() {
	local why=$1
	shift
	if vg_on; then
		skip "$2" "under valgrind ($why)"
		return 0
	fi
	if [ "$why" = timing ] && san_on; then
		skip "$2" "in a sanitizer build (timing)"
		return 0
	fi
	"$@"
}

# check DESCRIPTION COMMAND...: ok when COMMAND succeeds.
check() {
	local desc=$1
	shift
	if "$@"; then ok "$desc"; return 0; fi
	not_ok "$desc"
	diag "failed: $*"
	return 1
}

# check_eq DESCRIPTION EXPECTED GOT
check_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; return 0; fi
	not_ok "$1"
	diag "expected: $2" "got:      $3"
	return 1
}

# check_re DESCRIPTION ERE GOT
check_re() {
	if [[ $3 =~ $2 ]]; then ok "$1"; return 0; fi
	not_ok "$1"
	diag "expected to match: $(printf '%q' "$2")" "got: $(printf '%q' "$3")"
	return 1
}

# check_range DESCRIPTION LOW HIGH GOT (integers, inclusive)
check_range() {
	if [[ $4 =~ ^-?[0-9]+$ ]] && [ "$4" -ge "$2" ] && [ "$4" -le "$3" ]; then
		ok "$1"
		return 0
	fi
	not_ok "$1"
	diag "expected: $2 <= x <= $3" "got: $4"
	return 1
}

# --- time --------------------------------------------------------------------

# Wall clock in µs (bash 5). Called as $(now_us) it costs a fork: a loop
# reads ${EPOCHREALTIME/./} itself.
now_us() { echo "${EPOCHREALTIME/./}"; }

# witness_start, witness_stop: tests/progs/rtwitness around a timed moment.
# witness_stop sets STALL_US, the worst lateness of its real-time wake-ups
# on any CPU meanwhile (0 where it could not be real-time: a normal thread's
# lateness is the scheduler's choice, not a stall). A CPU the machine stalls
# (the host takes it away, or kernel code runs long without rescheduling)
# delays proctord's deadline timer as much, while another CPU may go on
# running the program. On the 2-CPU build VM beside two CPU hogs, a
# real-time thread on a 2 ms timer was woken over 10 ms late 66 times in
# 38 minutes of CI, at worst 51 ms.
witness_start() {
	"$PROGS/rtwitness" >"$T/witness" 2>&1 &
	WITNESS_PID=$!
}
witness_stop() {
	local late rt
	STALL_US=0
	[ -n "${WITNESS_PID:-}" ] || return 0
	kill -TERM "$WITNESS_PID" 2>/dev/null
	wait "$WITNESS_PID" 2>/dev/null
	WITNESS_PID=
	read -r late rt <"$T/witness" || late=0 rt=0
	[ "$rt" != 1 ] || STALL_US=$late
	diag "the machine stalled a real-time wake-up by up to $STALL_US µs meanwhile"
}

# punctual STALL_MAX DESCRIPTION LO HI GOT: the timing check
# "check_range DESCRIPTION LO HI GOT", skipped (and saying why) where the
# machine stalled a real-time wake-up by more than STALL_MAX µs meanwhile
# (witness_stop). The bound never widens: ok means that it held. STALL_MAX
# is half the check's margin, so that a smaller stall cannot fail it alone.
punctual() {
	local max=$1
	shift
	if ((STALL_US > max)); then
		native timing skip "$1" "the machine stalled a real-time wake-up by $STALL_US µs meanwhile"
		return 0
	fi
	native timing check_range "$@"
}

# pause SECONDS: sleep without a fork or an exec. On a virtual machine each
# costs milliseconds of CPU (500 runs of /bin/true, the suite running: 4.4 s),
# so a loop of "sleep 0.01" burns most of a CPU while it waits: about 130 of
# the plain suite's 500 s of CPU went so. This is a read, with a timeout, of
# a FIFO that only this read holds open, read-write: the open does not block
# and no data ever comes.
mkfifo "$T/pause"
pause() { read -r -t "$1" _ <>"$T/pause" || :; }

# without_stale TEXT: TEXT without proctord's notes that it removed the
# cgroups a proctord that died left in a shared parent. Any start may clean
# some up where other proctords run (another suite, another user): CI's
# sanitizer suite beside the plain one once made run-json.sh's "nothing on
# stderr" read one.
without_stale() { printf '%s\n' "$1" | grep -v '^proctord: removed .*, left by a proctord that died$' || :; }

# wait_for TIMEOUT_S COMMAND...: poll COMMAND every 10 ms until it succeeds.
wait_for() {
	local deadline=$((${EPOCHREALTIME/./} + $1 * 1000000))
	shift
	until "$@"; do
		((${EPOCHREALTIME/./} < deadline)) || return 1
		pause 0.01
	done
}

# --- answers -----------------------------------------------------------------

# The closed set of status heads (spec), with an optional ": text".
HEAD_RE='^(running|exited [0-9]+|signaled SIG[A-Z0-9]+([+-][0-9]+)?|killed (cpu-time|wall-time|memory|output|file-size|terminate|syscall)|failed (exec|stdin|stdout|stderr|chdir|limits|setup)|invalid)(: .*)?$'
ANSWER_RE=$'^([0-9]+)\n([0-9]+)\n([^\n]*)\n$'

# ans_parse FILE: set ANS_RAW, ANS_OK (1 if exactly three well-formed lines
# ending in \n with a known head), ANS_CPU, ANS_MEM, ANS_STATUS, ANS_HEAD.
ans_parse() {
	# All of it, trailing newlines too, without a fork.
	ANS_RAW=
	IFS= read -r -d '' ANS_RAW <"$1" || :
	ans_parse_raw
}
# ans_parse_raw: the same, of $ANS_RAW.
ans_parse_raw() {
	ANS_OK=0 ANS_CPU='' ANS_MEM='' ANS_STATUS='' ANS_HEAD=''
	if [[ $ANS_RAW =~ $ANSWER_RE ]]; then
		ANS_CPU=${BASH_REMATCH[1]}
		ANS_MEM=${BASH_REMATCH[2]}
		ANS_STATUS=${BASH_REMATCH[3]}
		ANS_HEAD=${ANS_STATUS%%:*}
		[[ $ANS_STATUS =~ $HEAD_RE ]] && ANS_OK=1
	fi
	return 0
}

# ans_diag: show the last answer when an assertion on it failed.
ans_diag() { diag "answer: $(printf '%q' "$ANS_RAW")"; }

# pd_wait REQUEST DIR: exactly the shell flow of the protocol,
#   [ -p DIR/wait ] && echo REQUEST > DIR/wait && cat DIR/status
# under a timeout, in one process (tests/progs/fifocall: timeout, bash and
# cat were three forks and execs a wait); parses the answer (ans_parse).
# Returns 124 on the timeout, as timeout(1) does.
pd_wait() {
	"$PROGS/fifocall" "$T_OP" "$1" "$2" >"$T/answer" 2>"$T/answer.err"
	WAIT_RC=$?
	ans_parse "$T/answer"
	[ "$WAIT_RC" -eq 0 ] || diag "wait $1 on $2 failed (rc $WAIT_RC): $(<"$T/answer.err")"
	return "$WAIT_RC"
}
wait1() { pd_wait 1 "$1"; }
wait0() { pd_wait 0 "$1"; }

# wait_tally DIR: wait1, tallied: TALLY_BAD counts answers that are not a
# well-formed running, TALLY_SLOW waits over 1 s, TALLY_WORST is the longest
# (µs). Set the three to 0 before a series.
wait_tally() {
	local t0 dt
	t0=${EPOCHREALTIME/./}
	wait1 "$1"
	dt=$((${EPOCHREALTIME/./} - t0))
	((dt <= TALLY_WORST)) || TALLY_WORST=$dt
	((dt <= 1000000)) || TALLY_SLOW=$((TALLY_SLOW + 1))
	[ "$WAIT_RC.$ANS_OK.$ANS_HEAD" = 0.1.running ] || { TALLY_BAD=$((TALLY_BAD + 1)); ans_diag; }
}

# read_status DIR: only the reading half (for pipelined or orphaned requests).
read_status() {
	timeout "$T_OP" cat "$1/status" >"$T/answer" 2>"$T/answer.err"
	WAIT_RC=$?
	ans_parse "$T/answer"
	return "$WAIT_RC"
}

# pd_poll DIR [INTERVAL_MS] [MAX_WAITS]: wait (with the C client) until the head
# is not "running". Sets ANS_* from that answer, POLL_AT (µs, wall clock, when it
# arrived) and POLL_LAST_RUNNING (µs, the last "running" answer, 0 if none).
pd_poll() {
	local lines l
	timeout "$T_OP" "$PROGS/waitloop" -t -p "${2:-5}" "$1" "${3:-2000}" >"$T/poll" 2>"$T/poll.err"
	WAIT_RC=$?
	# Builtins only: the answer is the first three lines, as read.
	mapfile lines <"$T/poll"
	printf -v ANS_RAW '%s' "${lines[@]:0:3}"
	printf '%s' "$ANS_RAW" >"$T/answer"
	ans_parse_raw
	POLL_AT='' POLL_LAST_RUNNING=''
	for l in "${lines[@]}"; do
		l=${l%$'\n'}
		case $l in
			"realtime_us "*) POLL_AT=${l#realtime_us } ;;
			"last_running_us "*) POLL_LAST_RUNNING=${l#last_running_us } ;;
		esac
	done
	[ "$WAIT_RC" -eq 0 ] || diag "poll on $1 failed (rc $WAIT_RC): $(<"$T/poll.err")"
	return "$WAIT_RC"
}

# run_to_end ARGS...: start proctord with ARGS in a new directory (RUN_DIR),
# poll until the program has ended, then send the terminating wait; ANS_*
# hold the final answer.
run_seq=0
run_to_end() {
	RUN_DIR="$T/run.$((++run_seq))"
	pd_start --dir "$RUN_DIR" "$@" || return 1
	pd_poll "$RUN_DIR" 5
	wait0 "$RUN_DIR"
}

# resync DIR: get back in step after orphaned requests. An invalid request is
# answered with head "invalid", so reading until that answer (at most 12 reads)
# drains answers that were meant for clients that never read them; each of
# those must still be well-formed.
resync() {
	local i
	pd_wait x "$1" || return 1
	for i in $(seq 11); do
		[ "$ANS_HEAD" = invalid ] && return 0
		[ "$ANS_OK" = 1 ] || { ans_diag; return 1; }
		read_status "$1" || return 1
	done
	[ "$ANS_HEAD" = invalid ]
}

# --- proctord ----------------------------------------------------------------

pd_seq=0

# pd_start ARGS...: proctord --daemonize ARGS. Sets PD_RC, PD_DIR (its stdout's
# first line) and PD_ERR (file with its stderr). stdout goes to a file, not a
# pipe: a daemon that kept the pipe open would hang a command substitution.
pd_start() {
	pd_seq=$((pd_seq + 1))
	PD_ERR="$T/pd.$pd_seq.err"
	timeout "$T_OP" "$PROCTORD" --daemonize "$@" >"$T/pd.$pd_seq.out" 2>"$PD_ERR" </dev/null
	PD_RC=$?
	PD_DIR=
	IFS= read -r PD_DIR <"$T/pd.$pd_seq.out" || :
	if [ "$PD_RC" -ne 0 ]; then
		diag "proctord --daemonize $* exited $PD_RC: $(<"$PD_ERR")"
	fi
	return "$PD_RC"
}

# pd_start_fg ARGS...: proctord in the foreground, as a background job of this
# shell so its exit code can be waited for. Sets PD_PID and PD_ERR.
pd_start_fg() {
	pd_seq=$((pd_seq + 1))
	PD_ERR="$T/pd.$pd_seq.err"
	"$PROCTORD" "$@" >"$T/pd.$pd_seq.out" 2>"$PD_ERR" </dev/null &
	PD_PID=$!
}

# pd_reap PID [TIMEOUT_S]: wait for a background proctord, set PD_EXIT (or
# "timeout" when it did not exit in time).
pd_reap() {
	if wait_for "${2:-$T_OP}" pid_gone "$1"; then
		wait "$1"
		PD_EXIT=$?
	else
		PD_EXIT=timeout
	fi
}

pid_gone() { ! kill -0 "$1" 2>/dev/null; }
is_fifo() { [ -p "$1" ]; }
gone() { [ ! -e "$1" ] && [ ! -L "$1" ]; }

# pd_pid DIR: pid of the proctord that serves DIR (found by its --dir argument,
# or by its process title "proctord: DIR: ..." once the program has started).
# Under valgrind the process is valgrind's tool, with proctord in its cmdline.
pd_pid() {
	local p a args
	# Builtins only: this walks every process, often in a wait_for loop.
	for p in /proc/[0-9]*; do
		if ! vg_on; then
			[[ $p/exe -ef $PROCTORD ]] || continue
		fi
		# The process may be gone by now (the redirection fails).
		mapfile -d '' args 2>/dev/null <"$p/cmdline" || continue
		[ "${#args[@]}" -gt 0 ] || continue
		if vg_on; then
			for a in "${args[@]}"; do
				[ "$a" != "$PROCTORD_REAL" ] || break
			done
			[ "$a" = "$PROCTORD_REAL" ] || continue
		fi
		# Its process title once the program has started, else its --dir.
		if [ "${args[0]#"proctord: $1: "}" != "${args[0]}" ]; then
			echo "${p#/proc/}"
			return 0
		fi
		for a in "${args[@]}"; do
			if [ "$a" = "$1" ] || [ "$a" = "--dir=$1" ]; then
				echo "${p#/proc/}"
				return 0
			fi
		done
	done
	return 1
}

# pd_in_scope: with $PROCTOR_TEST_SCOPE (a cgroup delegated to the tests, as
# tests/vm makes), PROCTORD becomes a wrapper that starts each proctord alone
# in a fresh cgroup below it, the way `systemd-run --scope -p Delegate=yes`
# would; $real_proctord is the binary, which pd_pid still finds. Without
# the variable, nothing changes.
pd_in_scope() {
	[ -n "${PROCTOR_TEST_SCOPE:-}" ] || return 0
	real_proctord=$PROCTORD
	PROCTORD="$T/proctord-in-scope"
	cat >"$PROCTORD" <<EOF
#!/bin/bash
d="$PROCTOR_TEST_SCOPE/pd.$$.\$\$.\$RANDOM"
mkdir "\$d" && echo \$\$ > "\$d/cgroup.procs" || exit 3
exec "$real_proctord" "\$@"
EOF
	chmod 755 "$PROCTORD"
	export PROCTORD
	# pd_pid finds proctord by its executable: the real one.
	eval "lib_$(declare -f pd_pid)"
	pd_pid() { PROCTORD=$real_proctord lib_pd_pid "$@"; }
}

# --- proving a tree is dead ----------------------------------------------------

# The tree helper's processes each hold LOCK_SH on the file; only their deaths
# release it, so an exclusive lock proves that none of them is left.
lock_held() { ! flock -x -n "$1" true; }
lock_free() { timeout "$T_OP" flock -x -w 2 "$1" true; }

# --- clean-up ---------------------------------------------------------------

tagged_pids() {
	local p v
	# Builtins only: a forked helper would carry the tag and list itself.
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[ "$p" = "$$" ] || [ "$p" = "$BASHPID" ] && continue
		while IFS= read -r -d '' v; do
			if [ "$v" = "PROCTOR_BB_TAG=$T" ]; then
				echo "$p"
				break
			fi
		done 2>/dev/null <"/proc/$p/environ"
	done
}

# pd_kill PID: SIGKILL to a proctord, on purpose. Under valgrind, its
# family (PROCTOR_VG_PD) is written down: the processes it forked (the
# init of its PID namespace, a child before its execve) outlive it or not,
# and end in ways that are the test's doing, not proctord's (vg_check).
pd_kill() {
	local fam
	if vg_on; then
		fam=$(vg_family "$1")
		[ -z "$fam" ] || echo "$fam $1" >>"$T/vg/killed"
	fi
	kill -KILL "$1"
}

# vg_family PID: the PROCTOR_VG_PD of PID, empty for a process that is no
# proctord's.
vg_family() {
	local v
	while IFS= read -r -d '' v; do
		[ "${v#PROCTOR_VG_PD=}" = "$v" ] || { echo "${v#PROCTOR_VG_PD=}"; return; }
	done 2>/dev/null <"/proc/$1/environ"
}

# vg_killed_family FAMILY [DIR]: a proctord of FAMILY was killed by pd_kill.
vg_killed_family() {
	[ -e "${2:-$T/vg}/killed" ] && grep -q "^$1 " "${2:-$T/vg}/killed"
}

# vg_ns_init PID: PID is the init of a PID namespace (it is 1 there).
vg_ns_init() {
	local k v
	while read -r k v; do
		[ "$k" = NSpid: ] && [ "${v##*[[:space:]]}" = 1 ] && [ "$v" != 1 ] && return 0
	done 2>/dev/null <"/proc/$1/status"
	return 1
}

# vg_errors LOG EXCUSED: the lines of LOG that are memcheck's reports (with
# --quiet it writes "==PID==" lines for nothing else; its "--PID-- WARNING"
# lines are about valgrind itself: it does not know pidfd_open, so proctord
# takes its fallback). With EXCUSED (1), the process's proctord was killed
# on purpose, and valgrind's crash "signal was supposed to be fatal" is left
# out: valgrind has a handler for every signal, so in a namespace's init,
# where the kernel ignores the signal once valgrind re-raises it, a fatal
# signal that reached the orphaned init ends in that crash. Errors and
# leaks still count there.
vg_errors() {
	awk -v excused="$2" '
		/^valgrind: the .impossible. happened:$/ { crash = 1; next }
		crash == 1 && excused == 1 && /signal was supposed to be fatal$/ { crash = 2; next }
		crash == 1 { crash = 0 }
		crash == 2 && /^sched status:$/ { crash = 0 }
		crash == 2 { next }
		/^==[0-9]+==/ { print }
	' "$1"
}

# vg_judge DIR: one test line for the logs in DIR (FAMILY.PID.log, and the
# file "killed" of pd_kill).
vg_judge() {
	local p report="" bad=0 n=0 name fam pid excused errs
	for p in "$1"/*.log; do
		[ -e "$p" ] || continue
		n=$((n + 1))
		name=${p##*/}
		fam=${name%%.*}
		pid=${name#*.}
		pid=${pid%.log}
		excused=0
		# Not the killed proctord itself: what it reported before its
		# SIGKILL is its own doing.
		if vg_killed_family "$fam" "$1" && ! grep -qx "$fam $pid" "$1/killed"; then
			excused=1
		fi
		errs=$(vg_errors "$p" "$excused")
		if [ -n "$errs" ]; then
			bad=$((bad + 1))
			report="$report"$'\n'"--- $p"$'\n'"$errs"
		fi
	done
	if [ "$bad" -eq 0 ]; then
		ok "valgrind: no memory error and no leak in $n proctord processes"
	else
		not_ok "valgrind: errors or leaks in $bad of $n proctord processes"
		diag "${report#$'\n'}"
	fi
}

# vg_check: vg_judge on everything memcheck saw in this script. The daemons
# still running are asked to end first (SIGTERM: proctord cleans up and
# exits), since memcheck checks for leaks at exit. A namespace's init is
# not: SIGTERM would crash valgrind there (vg_errors), and its proctord
# ends it; one whose proctord was killed on purpose gets SIGKILL.
vg_check() {
	local p i
	for p in $(tagged_pids); do
		if ! vg_ns_init "$p"; then
			kill -s TERM "$p" 2>/dev/null
		elif vg_killed_family "$(vg_family "$p")"; then
			kill -s KILL "$p" 2>/dev/null
		fi
	done
	for i in $(seq 300); do
		[ -n "$(tagged_pids)" ] || break
		pause 0.1
	done
	vg_judge "$T/vg"
}

# --- cgroups of the script's own -------------------------------------------------
# cg_mounts_read: the cgroup mounts of this shell's mount namespace, read
# once (cg_dirs runs in loops, and a fork per line cost teardown.sh most of
# its CPU): CG_V2_MNT, the first cgroup2 mount point, and for each cgroup
# (v1) mount its super options as ",opt,...," and its mount point.
cg_mounts_read() {
	local line i f
	CG_V2_MNT='' CG_V1_OPTS=() CG_V1_MNT=() CG_MOUNTS_READ=1
	while IFS= read -r line; do
		read -ra f <<<"$line"
		for ((i = 6; i < ${#f[@]} - 1; i++)); do
			[ "${f[i]}" = - ] || continue
			case ${f[i + 1]} in
			cgroup2) [ -n "$CG_V2_MNT" ] || CG_V2_MNT=${f[4]} ;;
			cgroup) CG_V1_OPTS+=(",${f[i + 3]},") CG_V1_MNT+=("${f[4]}") ;;
			esac
			break
		done
	done </proc/self/mountinfo
}
cg_mounts_read

# cg_dirs PID: the directory of each cgroup of PID that proctord may use
# (v2, and the v1 hierarchies of memory, pids, cpu, cpuacct, freezer).
# A second argument, a regular expression, narrows the v1 controllers.
cg_dirs() {
	local id ctrls rel m j re=${2:-memory|pids|cpu|cpuacct|freezer}
	[ -n "${CG_MOUNTS_READ:-}" ] || cg_mounts_read
	while IFS=: read -r id ctrls rel; do
		m=
		if [ "$id" = 0 ]; then
			m=$CG_V2_MNT
		else
			[[ ,$ctrls, =~ ,($re), ]] || continue
			for j in "${!CG_V1_MNT[@]}"; do
				if [[ ${CG_V1_OPTS[j]} == *",$ctrls,"* ]]; then
					m=${CG_V1_MNT[j]}
					break
				fi
			done
		fi
		[ -n "$m" ] && [ -d "$m$rel" ] && echo "${m}${rel%/}"
	done <"/proc/$1/cgroup"
}

# Private parent cgroups: one per hierarchy below the script's own, created
# by private_cgroups NAME (sets PRIVATE to them; the clean-up removes them);
# enter_cgroups DIRS moves the calling shell ($BASHPID) into them.
private_dirs=""
private_cgroups() {
	local d
	PRIVATE=""
	for d in $(cg_dirs $$); do
		mkdir "$d/$1" 2>/dev/null || continue
		PRIVATE="$PRIVATE $d/$1"
	done
	private_dirs="$private_dirs $PRIVATE"
}
enter_cgroups() {
	local d
	for d in "$@"; do echo "$BASHPID" >"$d/cgroup.procs" || return 1; done
}
# rm_cgroup DIR: remove DIR and what is below it, deepest first.
rm_cgroup() {
	[ -d "$1" ] || return 0
	find "$1" -depth -mindepth 1 -type d -exec rmdir {} + 2>/dev/null
	rmdir "$1" 2>/dev/null
}

# Kill whatever this script left behind (a failed test must not leave daemons
# or sleepers around): SIGTERM first so proctord can remove its directories.
bb_cleanup() {
	local pids sig p
	[ -z "${WITNESS_PID:-}" ] || kill "$WITNESS_PID" 2>/dev/null
	for sig in TERM KILL; do
		pids=$(tagged_pids)
		[ -n "$pids" ] || break
		for p in $pids; do
			diag "clean-up: SIG$sig to stray process $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
		done
		kill -s "$sig" $pids 2>/dev/null
		pause 0.3
	done
	# shellcheck disable=SC2086 # a list of directories
	[ -z "$bb_home_cgroups" ] || enter_cgroups $bb_home_cgroups 2>/dev/null
	for p in $private_dirs; do rm_cgroup "$p"; done
	rm -rf "$T"
}
trap bb_cleanup EXIT
trap 'exit 130' INT TERM

# As root where cgroup v1 is mounted (v1 or hybrid), the script and every
# proctord it starts live in cgroups of the script's own, so that no stale
# cgroup of a proctord killed by another run (another CI, a neighbour's test)
# is ours to remove, with a line on proctord's stderr that a test reading
# that stderr would not expect, and no cgroup of ours is another run's. Not
# in the cpu hierarchy: with RT group scheduling, a real-time proctord needs
# the root cgroup's rt_runtime_us there. Pure v2 keeps the caller's cgroup:
# a shell beside proctord would cost it its controllers (the no-internal-
# process rule), and tests/vm starts each proctord in a scope of its own.
bb_home_cgroups=""
if [ "$(id -u)" = 0 ] && [ -z "${PROCTOR_TEST_SCOPE:-}" ] &&
	awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup") f = 1; break } } END { exit !f }' /proc/self/mountinfo; then
	bb_home_cgroups=$(cg_dirs $$ 'memory|pids|freezer')
	PRIVATE=""
	for bb_d in $bb_home_cgroups; do
		mkdir "$bb_d/bb.$$" 2>/dev/null && PRIVATE="$PRIVATE $bb_d/bb.$$"
	done
	private_dirs="$private_dirs $PRIVATE"
	# shellcheck disable=SC2086
	enter_cgroups $PRIVATE 2>/dev/null || true
fi
