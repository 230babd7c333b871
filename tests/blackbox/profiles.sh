#!/bin/bash
# SPDX-License-Identifier: ISC
# Each profile of contrib/proctor.conf runs a multithreaded program of its language and holds a fork bomb; --check lines up with a long path.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

: "${PROCTOR:?set PROCTOR (e.g. PROCTOR=build/src/proctor)}"
PROCTOR=$(realpath "$PROCTOR")
src=$(realpath "$(dirname "$0")/../..")
shipped="$src/contrib/proctor.conf"

# The profiles run the program as nobody: it must reach what it runs.
chmod 0711 "$T"
conf="$T/proctor.conf"
if [ "$(id -u)" -eq 0 ]; then
	cp "$shipped" "$conf"
else
	# user, unshare_net and unshare_ipc need root; the rest is as shipped.
	grep -vE '^(user|unshare_net|unshare_ipc) *=' "$shipped" >"$conf"
	diag "not root: the profiles run without their user, unshare_net and unshare_ipc keys"
fi

# under PROFILE PROGRAM [ARGS...]: proctor run under the profile, stdout in
# $T/PROFILE.out, stderr (proctord's and the verdict) in $T/PROFILE.err. The
# wall time is raised: the machine may be loaded, and threads are the point.
under() {
	local p=$1
	shift
	timeout $((T_OP * 6)) "$PROCTOR" run --config "$conf" --profile "$p" --wall-time 60s -- "$@" \
		>"$T/$p.out" 2>"$T/$p.err" </dev/null
	RUN_RC=$?
}

# ran PROFILE EXPECTED_STDOUT DESCRIPTION: exit 0 with that output.
ran() {
	check_eq "$3" "0:$2" "$RUN_RC:$(<"$T/$1.out")" || diag "stderr: $(<"$T/$1.err")"
}

profiles=$(sed -n 's/^\[\([^]]*\)\]$/\1/p' "$shipped")
check_eq "contrib/proctor.conf has the profiles this script knows" "c cpp java python" "$(echo $profiles)"

for p in $profiles; do
	if vg_on; then
		# The rlimits (nofile) are set in the child before execve, where
		# valgrind emulates RLIMIT_NOFILE; and it has no seccomp(2).
		skip "[$p]: a multithreaded program under the profile" "under valgrind (rlimits, seccomp)"
		continue
	fi
	case $p in
	c)
		# 8 pthreads that spin until the profile's CPU limit: a thread
		# that cannot start ends it at once ("pthread_create failed").
		under c "$PROGS/spin" 8
		check_re "[c]: 8 POSIX threads start and spin to the CPU limit" \
			'proctor: killed cpu-time' "$(tail -n 1 "$T/c.err")" || diag "$(<"$T/c.err")"
		;;
	cpp)
		if [ ! -x "$PROGS/cxxthreads" ]; then
			skip "[cpp]: 8 std::threads" "no C++ compiler when meson set up the build"
			continue
		fi
		under cpp "$PROGS/cxxthreads" 8
		ran cpp "8 threads: 2800000" "[cpp]: 8 std::threads start, run and join"
		;;
	python)
		# The profile's PATH: the program runs with it, as nobody.
		py=$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3)
		if [ -z "$py" ]; then
			skip "[python]: multiprocessing.Pool(4)" "no python3 in /usr/local/bin:/usr/bin:/bin"
			continue
		fi
		under python "$py" "$src/tests/progs/mpool.py" 4
		ran python "4 workers: 332833500" "[python]: a multiprocessing.Pool of 4 workers"
		;;
	java)
		if ! command -v javac >/dev/null || ! command -v java >/dev/null; then
			skip "[java]: 8 threads" "no JDK (javac and java) on the PATH"
			continue
		fi
		mkdir -m 0755 "$T/java"
		if ! javac -d "$T/java" "$src/tests/progs/JThreads.java" 2>"$T/javac.err"; then
			not_ok "[java]: javac JThreads.java"
			diag "$(<"$T/javac.err")"
			continue
		fi
		chmod -R a+rX "$T/java"
		under java "$(command -v java)" -cp "$T/java" JThreads 8
		ran java "8 threads: 2800000" "[java]: 8 threads start, run and join"
		;;
	*)
		not_ok "[$p]: no multithreaded program for this profile: add one here"
		;;
	esac
done

# Each profile's pids holds a fork bomb: the tree stays within it, forks
# past it fail, and the CPU limit ends the bomb, or the memory limit: the
# kernel memory of each failed fork stays charged to the memory cgroup until
# an RCU grace period frees it, and on a loaded machine (Linux 6.18) the
# bomb's 10,000s of failed forks reached 256 MiB before 1 s of CPU (see
# contrib/proctor.conf). A profile without pids is not bombed (nothing would
# hold it): it fails here instead.
for p in $profiles; do
	pids=$(timeout "$T_OP" "$PROCTORD" --check --config "$conf" --profile "$p" 2>/dev/null |
		sed -n 's/^pids  *\([0-9][0-9]*\) .*/\1/p')
	if ! check_re "[$p]: the profile sets pids" '^[0-9]+$' "$pids"; then
		skip "[$p]: a fork bomb under the profile's pids" "the profile sets no pids"
		continue
	fi
	if vg_on; then
		skip "[$p]: a fork bomb under the profile's pids" "under valgrind (rlimits, seccomp)"
		continue
	fi
	# The bomb runs as the profile's user: it must be able to say it hit the limit.
	mkdir -m 0777 "$T/bomb-$p"
	timeout $((T_OP * 6)) "$PROCTOR" run --config "$conf" --profile "$p" --wall-time 60s \
		--report "$T/bomb-$p.json" -- "$PROGS/forkbomb" "$T/bomb-$p/ready" \
		>"$T/bomb-$p.out" 2>"$T/bomb-$p.err" </dev/null
	check_re "[$p]: a fork bomb ends at the profile's CPU or memory limit" \
		'^proctor: killed (cpu-time|memory): ' \
		"$(tail -n 1 "$T/bomb-$p.err")" || diag "$(<"$T/bomb-$p.err")"
	check "...after a fork failed (the pids limit of $pids held it)" test -e "$T/bomb-$p/ready"
	peak=$("$PROGS/jsonget" "$T/bomb-$p.json" pids_peak 2>/dev/null)
	if [ -z "$peak" ] || [ "$peak" = null ]; then
		skip "...the tree never had more than $pids processes" "no pids peak in the report here"
	else
		check_range "...the tree never had more than $pids processes" 2 "$pids" "$peak"
	fi
done

# The JVM sizes its GC and compiler threads by the CPUs it sees: the java
# profile's pids holds the threads of a 128-CPU machine (as the JVM would
# start them there) and 8 of the program's, up to the memory limit.
if vg_on; then
	skip "[java] as on 128 CPUs: 8 threads" "under valgrind (rlimits, seccomp)"
elif [ ! -e "$T/java/JThreads.class" ]; then
	skip "[java] as on 128 CPUs: 8 threads" "no JDK (javac and java) on the PATH"
else
	under java "$(command -v java)" -XX:ActiveProcessorCount=128 -cp "$T/java" JThreads 8
	ran java "8 threads: 2800000" "[java] as on 128 CPUs (-XX:ActiveProcessorCount=128): 8 threads run"
fi

# --check with a config path longer than its column: every column still
# starts where its heading does (a cell too long ends its line).
long="$T/a-directory-with-a-rather-long-name/and-another-one-below-it/for-the-check"
mkdir -p "$long"
cp "$conf" "$long/proctor.conf"
# col LINE TEXT: the column where TEXT starts in LINE.
col() { local pre=${1%%"$2"*}; echo "${#pre}"; }
for p in c java; do
	out=$(timeout "$T_OP" "$PROCTORD" --check --config "$long/proctor.conf" --profile "$p" 2>/dev/null)
	header=$(grep -m 1 '^key ' <<<"$out")
	from=$(col "$header" from)
	by=$(col "$header" "enforced by")
	row=$(grep -m 1 -A 1 '^cpu_time ' <<<"$out")
	check_eq "--check [$p], long path: cpu_time's source starts under \"from\"" "$from" \
		"$(col "$(head -n 1 <<<"$row")" "$long")" || diag "$out"
	line=$(grep 'deadline timer' <<<"$row")
	check_eq "...and what enforces it under \"enforced by\"" "$by" "$(col "$line" 'deadline timer')" ||
		diag "$out"
	line=$(grep -m 1 '^memory_high ' <<<"$out")
	check_eq "...a default's source under \"from\"" "$from" "$(col "$line" default)"
	check_eq "...and its \"-\" under \"enforced by\"" "$by" "$(($(col "$line" ' -') + 1))" || diag "$out"
done
# A short path keeps the table as it was.
out=$(timeout "$T_OP" "$PROCTORD" --check --cpu-time 1s 2>/dev/null)
check_re "--check with short values keeps its fixed columns" \
	$'\ncpu_time       1.000s       command line                     deadline timer' "$out"

done_testing
