#!/bin/bash
# SPDX-License-Identifier: ISC
# proctor-isolate: CMS's and judge0's isolate command lines on real programs, with the meta files, stderr lines and exit statuses isolate gives for the same cases.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root (proctor-isolate runs its boxes as root, as isolate under sudo)"
	exit 0
fi
ISO=${PROCTOR_ISOLATE:-$(dirname "$PROCTORD")/proctor-isolate}
# The box users reach their redirects through $T.
chmod 0711 "$T"
cat >"$T/isolate.conf" <<-CONF
	# isolate's keys
	box_root = $T/boxes
	lock_root = $T/locks
	first_uid = 61000
	first_gid = 61000
	num_boxes = 100
CONF
export PROCTOR_ISOLATE_CONFIG="$T/isolate.conf"

# The meta file with its figures made words: time and time-wall must have
# three decimals, max-rss, the context switches and cg-mem be counts; lines
# joined with "|". RU: isolate's rusage keys, after time-wall.
meta_shape() {
	sed -E 's/^(time|time-wall):[0-9]+\.[0-9]{3}$/\1:T/
		s/^(max-rss|csw-voluntary|csw-forced|cg-mem):[0-9]+$/\1:N/' "$1" | tr '\n' '|'
}
RU="max-rss:N|csw-voluntary:N|csw-forced:N|"
meta_get() { sed -n "s/^$2://p" "$1"; }
# seconds "1.234" as ms
ms() { local s=${1/./}; [[ $s =~ ^[0-9]+$ ]] && echo $((10#$s)); }

# --- judge0 (isolate 1.8's spellings, a bash wrapper, the shell's redirects) ----

W=$("$ISO" --cg -b 7 --init)
check_eq "judge0: --init prints box_root/N and exits 0" "$T/boxes/7:0" "$W:$?"
check "...and box_root/N/box is a directory of ours, mode 0700" \
	test "$(stat -c %a:%u "$W/box" 2>/dev/null)" = "700:0"

j0() { # MODE LIMITS... : judge0's run line on run.sh = "./isoprog MODE"
	echo "./isoprog $1" >"$W/box/run.sh"
	shift
	"$ISO" --cg -s -b 7 -M "$W/metadata.txt" --stderr-to-stdout "$@" -k 64000 -p60 --cg-timing \
		--cg-mem=128000 -f 1024 -E HOME=/tmp -E PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
		-E LANG -E LANGUAGE -E LC_ALL -d /etc:noexec --run -- /bin/bash run.sh \
		<"$W/stdin.txt" >"$W/stdout.txt" 2>"$W/stderr.txt"
}
cp "$PROGS/isoprog" "$W/box/"
echo "3 4" >"$W/stdin.txt"
j0 sum -t 5.0 -x 1.0 -w 10.0
check_eq "judge0: a right answer: exit 0, the sum on stdout, nothing on stderr (-s)" \
	"0:7:" "$?:$(<"$W/stdout.txt"):$(<"$W/stderr.txt")"
check_eq "...meta: time, time-wall, cg-mem, exitcode:0 and no status" \
	"time:T|time-wall:T|${RU}cg-mem:N|exitcode:0|" "$(meta_shape "$W/metadata.txt")"

j0 "alloc 40" -t 5.0 -x 1.0 -w 10.0
# Under valgrind the fork of proctord that became bash had valgrind's own.
most=65536
vg_on && most=4194304
check_range "judge0: max-rss is ru_maxrss in KiB, as isolate's: a program that touched 40 MiB (KiB)" \
	40960 "$most" "$(meta_get "$W/metadata.txt" max-rss)"

j0 "exit 3" -t 5.0 -x 1.0 -w 10.0
check_eq "judge0: exit 3 is RE, exit status 1" \
	"1:time:T|time-wall:T|${RU}cg-mem:N|exitcode:3|status:RE|message:Exited with error status 3|" \
	"$?:$(meta_shape "$W/metadata.txt")"

j0 segv -t 5.0 -x 1.0 -w 10.0
check_eq "judge0: a crash under bash is bash's exit 139 (isolate reports the main process)" \
	"1:exitcode:139|status:RE" "$?:$(meta_get "$W/metadata.txt" exitcode | sed 's/^/exitcode:/')|status:$(meta_get "$W/metadata.txt" status)"

witness_start
j0 loop -t 0.3 -x 0 -w 5.0
check_eq "judge0: an endless loop under -t 0.3 -x 0 is TO, killed" \
	"1:status:TO|message:Time limit exceeded|killed:1|time:T|time-wall:T|${RU}cg-mem:N|" \
	"$?:$(meta_shape "$W/metadata.txt")"
witness_stop
punctual 25000 "...killed within 50 ms of 0.3 s CPU, not at isolate's 100 ms polling (ms)" \
	300 350 "$(ms "$(meta_get "$W/metadata.txt" time)")"

j0 "burn 300" -t 0.1 -x 1.0 -w 5.0
check_eq "judge0: ending by itself past -t, before -x (absolute), is TO without killed nor exitcode" \
	"1:time:T|time-wall:T|${RU}cg-mem:N|status:TO|message:Time limit exceeded|" \
	"$?:$(meta_shape "$W/metadata.txt")"

echo judge0 >"$W/compile_output.txt"
"$ISO" --cg -b 7 --cleanup
check_eq "judge0: --cleanup exits 0 and removes box_root/N, the caller's files beside box/ too" \
	"0:gone" "$?:$([ -e "$W" ] || echo gone)"
"$ISO" --cg -b 7 --cleanup
check_eq "...and again, with nothing left to remove, exits 0" "0" "$?"

# --- CMS (isolate 2.x's long options, its own directory bound at /tmp) ---------

# CMS's outer directory is mkdtemp's, 0700: the box user reaches its
# redirects through the bind at /tmp only, as in isolate.
O=$T/cms-outer
mkdir -p "$O/home" && chmod 0777 "$O/home" && chmod 0700 "$O"
"$ISO" --box-id=2 --cg --cleanup && "$ISO" --box-id=2 --cg --init >/dev/null
check_eq "CMS: --cleanup then --init exit 0" "0" "$?"
cp "$PROGS/isoprog" "$O/home/"
echo "20 22" >"$O/home/input.txt"
# CMS's compilation: the host's /etc over the box's, gcc -static.
printf '#include <stdio.h>\nint main(void) { puts("compiled"); return 0; }\n' >"$O/home/hello.c"
if [ -x /usr/bin/gcc ]; then
	"$ISO" --cg --box-id=2 --chdir=/tmp --dir=/tmp="$O/home":rw --dir=/dev/shm:tmp \
		--dir=/etc/alternatives=/etc/alternatives --dir=/etc=/etc --full-env --env=HOME=/tmp \
		--cg-mem=524288 --stdout=/tmp/compilation_stdout_0.txt --processes=1000 \
		--stderr=/tmp/compilation_stderr_0.txt --time=10 --wall-time=21 --meta="$O/run.meta.0" \
		--run -- /usr/bin/gcc -DEVAL -std=gnu11 -O2 -pipe -static -s -o hello hello.c -lm 2>"$T/iso.err"
	check_eq "CMS: its compilation line (--dir=/etc=/etc) compiles: exit 0, exitcode:0, the program runs" \
		"0:exitcode:0:compiled" "$?:$(grep exitcode "$O/run.meta.0"):$("$O/home/hello" 2>&1)" ||
		diag "$(cat "$T/iso.err" "$O/home/compilation_stderr_0.txt" "$O/run.meta.0")"
else
	skip "CMS: its compilation line" "no /usr/bin/gcc"
fi
cms() { # MEM TIME WALL PROGRAM...: CMS's evaluation line
	local mem=$1 t=$2 w=$3
	shift 3
	"$ISO" --cg --box-id=2 --chdir=/tmp --dir=/tmp="$O/home":rw --dir=/dev/shm:tmp \
		--dir=/etc/alternatives=/etc/alternatives --env=HOME=/tmp --fsize="${FSIZE:-1048576}" \
		--stdin=/tmp/input.txt --cg-mem="$mem" --stdout=/tmp/output.txt --processes=1 \
		--stderr=/tmp/stderr.txt --time="$t" --wall-time="$w" --meta="$O/run.meta.0" --run -- "$@" 2>"$T/iso.err"
}
cms 131072 0.5 2 ./isoprog sum
check_eq "CMS: a right answer: exit 0, the output in its /tmp, isolate's OK line on stderr" \
	"0:42:OK" "$?:$(<"$O/home/output.txt"):$(cut -c1-2 "$T/iso.err")"
check_re "...the OK line gives CPU and wall seconds as isolate does" \
	'^OK \([0-9]+\.[0-9]{3} sec real, [0-9]+\.[0-9]{3} sec wall\)$' "$(<"$T/iso.err")"
check_eq "...meta: no status, exitcode:0" "time:T|time-wall:T|${RU}cg-mem:N|exitcode:0|" "$(meta_shape "$O/run.meta.0")"
check_eq "...the output is the box user's (first_uid + 2)" "61002" "$(stat -c %u "$O/home/output.txt")"

cms 131072 0.5 2 ./isoprog segv
check_eq "CMS: SIGSEGV is SG with exitsig:11, exit status 1" \
	"1:time:T|time-wall:T|${RU}cg-mem:N|exitsig:11|status:SG|message:Caught fatal signal 11|:Caught fatal signal 11" \
	"$?:$(meta_shape "$O/run.meta.0"):$(<"$T/iso.err")"

cms 32768 2 4 ./isoprog alloc 200
check_eq "CMS: past --cg-mem is SG 9 with cg-oom-killed:1 (CMS: memory limit exceeded)" \
	"1:time:T|time-wall:T|${RU}cg-mem:N|cg-oom-killed:1|exitsig:9|status:SG|message:Caught fatal signal 9|" \
	"$?:$(meta_shape "$O/run.meta.0")"
check_range "...cg-mem is the peak in KiB, at the limit" 30000 32768 "$(meta_get "$O/run.meta.0" cg-mem)"

cms 131072 0.5 0.5 ./isoprog sleep
check_eq "CMS: a sleeper is TO with \"wall\" in the message, killed" \
	"1:status:TO|message:Time limit exceeded (wall clock)|killed:1|time:T|time-wall:T|${RU}cg-mem:N|" \
	"$?:$(meta_shape "$O/run.meta.0")"

cms 131072 0.5 2 ./missing
check_eq "CMS: a program that cannot be executed is RE 127 (isolate 2.x), execve's error on stderr" \
	"1:exitcode:127|status:RE:execve(\"./missing\"): No such file or directory" \
	"$?:$(sed -n '/^exitcode/p;/^status/p' "$O/run.meta.0" | tr '\n' '|' | sed 's/|$//'):$(head -n 1 "$T/iso.err")"
"$ISO" --cg --cg-timing -s -b 2 -M "$T/v1.meta" --run -- ./missing 2>/dev/null
check_eq "...and XX with isolate 1.8's message when the line is 1.x's (--cg-timing), as judge0 expects" \
	"2:status:XX|message:execve(\"./missing\"): No such file or directory|" "$?:$(tr '\n' '|' <"$T/v1.meta")"

# CMS's Communication task, as its Communication.py sets it up: for each
# user process i a directory of FIFOs (mkdtemp, then 0755; the FIFOs 0666,
# the judge's), bound read-write at /fifoI in the manager's box and in user
# i's; the manager opens them by name, each user's stdin and stdout are
# redirected to them; all N+1 run at once (a user's limits CMS's for -t 4:
# wall 2t+1, roomy for a loaded machine where the manager starts late).
cat >"$T/manager" <<-'MGR'
	#!/bin/bash
	# Builtins only (--processes=1): send "a b+i" to user i, check the sum.
	read -r a b
	i=0 right=0
	while [ $# -ge 2 ]; do
		exec 3>"$2"
		echo "$a $((b + i))" >&3
		exec 3>&- 4<"$1"
		read -r got <&4
		exec 4<&-
		[ "$got" = "$((a + b + i))" ] && right=$((right + 1))
		i=$((i + 1))
		shift 2
	done
	[ "$right" = "$i" ] && echo 1.0 || echo 0.0
	echo "$right of $i right" >&2
MGR
comm_box() { # BOX OUTER: --init, and the outer directory CMS makes (home 0755)
	"$ISO" --box-id="$1" --cg --cleanup && "$ISO" --box-id="$1" --cg --init >/dev/null &&
		mkdir -p "$2/home" && : >"$2/home/stdout.txt" && : >"$2/home/stderr.txt" &&
		chmod 0722 "$2/home/stdout.txt" "$2/home/stderr.txt" && chmod 0755 "$2/home" &&
		chmod 0700 "$2"
}
comm_run() { # BOX OUTER LIMITS... -- PROGRAM...: CMS's evaluation_step_before_run
	local box=$1 outer=$2
	shift 2
	"$ISO" --cg --box-id="$box" --chdir=/tmp --dir=/tmp="$outer/home":rw --dir=/dev/shm:tmp \
		--dir=/etc/alternatives=/etc/alternatives "$@" 2>/dev/null
}
ncomm=2
comm_box 10 "$T/comm-m" && install -m 0755 "$T/manager" "$T/comm-m/home/manager"
echo "20 22" >"$T/comm-m/home/input.txt"
mdirs=() margs=()
for i in $(seq 0 $((ncomm - 1))); do
	fifo[i]=$(mktemp -d "$T/fifo.XXXXXX") && chmod 0755 "${fifo[i]}"
	mkfifo -m 0666 "${fifo[i]}/u${i}_to_m" "${fifo[i]}/m_to_u$i"
	mdirs+=(--dir=/fifo$i="${fifo[i]}":rw)
	margs+=("/fifo$i/u${i}_to_m" "/fifo$i/m_to_u$i")
	comm_box $((11 + i)) "$T/comm-u$i" && cp "$PROGS/isoprog" "$T/comm-u$i/home/"
done
comm_run 10 "$T/comm-m" "${mdirs[@]}" --env=HOME=/tmp --fsize=1048576 --stdin=/tmp/input.txt \
	--cg-mem=4194304 --stdout=/tmp/stdout.txt --processes=1 --stderr=/tmp/stderr.txt --time=10 \
	--wall-time=21 --meta="$T/comm-m/run.meta.0" --run -- ./manager "${margs[@]}" &
pids=($!)
for i in $(seq 0 $((ncomm - 1))); do
	comm_run $((11 + i)) "$T/comm-u$i" --dir=/fifo$i="${fifo[i]}":rw --env=HOME=/tmp \
		--fsize=1048576 --stdin=/fifo$i/m_to_u$i --cg-mem=131072 --stdout=/fifo$i/u${i}_to_m \
		--processes=1 --stderr=/tmp/stderr.txt --time=4 --wall-time=9 \
		--meta="$T/comm-u$i/run.meta.0" --run -- ./isoprog sum "$i" &
	pids+=($!)
done
rcs=""
for p in "${pids[@]}"; do
	wait "$p"
	rcs="$rcs$?"
done
check_eq "CMS Communication: a manager and $ncomm users through the judge's FIFOs in read-write binds: all exit 0, the manager says 1.0" \
	"000:1.0:2 of 2 right" "$rcs:$(<"$T/comm-m/home/stdout.txt"):$(<"$T/comm-m/home/stderr.txt")" ||
	diag "$(cat "$T"/comm-*/run.meta.0)"
check_eq "...each user's meta: exitcode:0, no status" "exitcode:0|exitcode:0|" \
	"$(cat "$T/comm-u0/run.meta.0" "$T/comm-u1/run.meta.0" | grep -e exitcode -e status | tr '\n' '|')"
# A FIFO in the user's own /tmp (CMS's home, where it may write) is not
# the judge's: refused at once, as proctord refuses what a program plants.
mkfifo -m 0666 "$T/comm-u0/home/planted"
chmod 0777 "$T/comm-u0/home"
comm_run 11 "$T/comm-u0" --stdin=/tmp/planted --wall-time=20 --meta="$T/comm-u0/run.meta.1" \
	--run -- ./isoprog sum
check_eq "...but a FIFO where the user may write (its /tmp, 0777) is refused at once, XX" \
	"2:XX" "$?:$(meta_get "$T/comm-u0/run.meta.1" status)"
for b in 10 11 12; do "$ISO" --box-id=$b --cg --cleanup; done

# Busy: a first run holds the box while a second tries it.
cms 131072 5 1 ./isoprog sleep &
first=$!
wait_for "$T_OP" test -p "$T/locks/2.run/wait"
"$ISO" --cg --box-id=2 --meta="$T/busy.meta" --run -- ./isoprog sum 2>"$T/busy.err"
check_eq "two runs on one box: the second is refused, XX, exit status 2" \
	"2:status:XX|message:This box is currently in use by another process|" "$?:$(tr '\n' '|' <"$T/busy.meta")"
wait "$first"
check_eq "...and the first went on to its own end (TO wall clock)" "1:TO" "$?:$(meta_get "$O/run.meta.0" status)"
cms 131072 5 1 ./isoprog sleep &
first=$!
wait_for "$T_OP" test -p "$T/locks/2.run/wait"
"$ISO" --cg --box-id=2 --wait --chdir=/tmp --dir=/tmp="$O/home":rw -M - --run -- ./isoprog exit 0 >"$T/wait.meta" 2>/dev/null
check_eq "...with --wait, the second waits for the box (the first ended TO), then runs; -M - is stdout" \
	"0:TO:exitcode:0" "$?:$(meta_get "$O/run.meta.0" status):$(grep exitcode "$T/wait.meta")"
wait "$first"

cms 131072 5 10 ./isoprog sleep &
first=$!
wait_for "$T_OP" test -p "$T/locks/2.run/wait"
# $first is the shell that runs cms(); proctor-isolate is its child.
kill -TERM "$(pgrep -P "$first")"
wait "$first"
check_eq "SIGTERM to proctor-isolate ends the run at once: SG Interrupted, exitsig:15, killed, exit status 1" \
	"1:exitsig:15|status:SG|message:Interrupted|killed:1|time:T|time-wall:T|${RU}cg-mem:N|" \
	"$?:$(meta_shape "$O/run.meta.0")"
check_range "...in well under the 10 s wall limit (ms)" 0 3000 "$(ms "$(meta_get "$O/run.meta.0" time-wall)")"

FSIZE=64 cms 131072 2 4 /usr/bin/head -c 100000 /dev/zero
check_eq "CMS: a file past --fsize=64 (KiB) is SG 25 (SIGXFSZ), the file cut at 64 KiB" \
	"1:exitsig:25|status:SG:65536" "$?:$(sed -n '/^exitsig/p;/^status/p' "$O/run.meta.0" | tr '\n' '|' | sed 's/|$//'):$(stat -c %s "$O/home/output.txt")"

# Through a link named isolate, as a judge finds it on its PATH.
mkdir "$T/bin" && ln -s "$(realpath "$ISO")" "$T/bin/isolate"
PATH="$T/bin:$PATH" isolate --box-id=3 --cg --meta="$T/none.meta" --run -- ./isoprog sum 2>"$T/none.err"
check_eq "a run on a box never initialised: XX, exit 2, the message on stderr, in the name it was called by" \
	"2:status:XX|message:Box not found, did you run \`isolate --init'?|:Box not found" \
	"$?:$(tr '\n' '|' <"$T/none.meta"):$(cut -c1-13 "$T/none.err")"

# --- the environment, and usage errors ---------------------------------------

mkdir -p "$T/boxes" && "$ISO" -b4 --init >/dev/null
FROM_CALLER=yes "$ISO" -b4 -s -E FROM_CALLER -E A=1 -E B=2 -E B= -EC=x=y -o env.txt --run -- /usr/bin/env
check_eq "the environment starts empty but for LIBC_FATAL_STDERR_=1; -E inherits, sets, removes (B=)" \
	"0:LIBC_FATAL_STDERR_=1|FROM_CALLER=yes|A=1|C=x=y|" "$?:$(tr '\n' '|' <"$T/boxes/4/box/env.txt")"
mkdir -p "$T/shown" "$T/devs" && echo x >"$T/shown/f" && mknod -m 0666 "$T/devs/null" c 1 3
"$ISO" -b4 -s --dir=/shown="$T/shown":norec --dir=/gone="$T/shown" --dir=/gone= --dir=/proc= \
	--dir=/d="$T/devs":dev -o seen.txt --run -- /bin/sh -c \
	'for p in /shown/f /gone /proc /usr; do [ -e $p ] && echo $p; done; echo x >/d/null && echo dev'
check_eq "--dir IN= removes a rule, an earlier one (/gone) or the box's own (/proc); :norec binds; :dev keeps devices" \
	"0:/shown/f|/usr|dev|" "$?:$(tr '\n' '|' <"$T/boxes/4/box/seen.txt")"
# Judgels keeps its meta file in box/, where the last program could leave
# a link to a file of root's in its place, or a FIFO.
echo precious >"$T/precious" && ln -s "$T/precious" "$T/boxes/4/box/_isolate.meta"
"$ISO" -b4 -M "$T/boxes/4/box/_isolate.meta" --run -- /bin/true 2>"$T/link.err"
check_eq "a symbolic link at the meta file's path is refused (exit 2), the file it points to untouched" \
	"2:precious:Failed to open meta file '$T/boxes/4/box/_isolate.meta': a symbolic link" \
	"$?:$(<"$T/precious"):$(<"$T/link.err")"
rm "$T/boxes/4/box/_isolate.meta" && mkfifo "$T/boxes/4/box/_isolate.meta"
timeout "$T_OP" "$ISO" -b4 -M "$T/boxes/4/box/_isolate.meta" --run -- /bin/true 2>"$T/fifo.err"
check_eq "...and so is a FIFO there, at once" \
	"2:Failed to open meta file '$T/boxes/4/box/_isolate.meta': not a regular file" "$?:$(<"$T/fifo.err")"
"$ISO" --help >"$T/help.out"
check_eq "--help prints the usage on stdout, exit 0" "0:Usage: proctor-isolate [options] --init" "$?:$(head -c 39 "$T/help.out")"
"$ISO" -b4 -t abc --run -- /bin/true 2>"$T/usage.err"
check_eq "a bad time is a usage error, exit 2, that names the value" \
	"2:Invalid time in seconds: abc" "$?:$(sed -n '1s/^[^:]*: //p' "$T/usage.err")"
"$ISO" -b4 --cg-mem=1024 --run -- /bin/true 2>/dev/null
check_eq "--cg-mem without --cg is a usage error, as in isolate" "2" "$?"
"$ISO" -b 100 --init 2>"$T/range.err" >/dev/null
check_eq "a box id beyond num_boxes is refused, exit 2" "2:Sandbox ID out of range (allowed: 0-99)" \
	"$?:$(<"$T/range.err")"
"$ISO" -b4 --cleanup

if setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$ISO" 2>/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ISO" -b4 --init >/dev/null 2>"$T/user.err"
	check_eq "run by a user who is not root: refused (the set-user-ID mode is not there yet), exit 2" \
		"2:proctor-isolate must be run as root" "$?:$(cut -c1-35 "$T/user.err")"
else
	skip "run by a user who is not root: refused" "nobody cannot run $ISO (setpriv, or the build tree's modes)"
fi

# isolate's box has a network of its own with the loopback up.
if command -v python3 >/dev/null 2>&1; then
	"$ISO" -b 9 --init >/dev/null
	out=$("$ISO" -b 9 -p --run -- /usr/bin/python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
socket.create_connection(s.getsockname()); print("up")' 2>"$T/lo.err")
	check_eq "without --share-net the box's loopback is up, as isolate's" "up" "$out" ||
		diag "$(<"$T/lo.err")"
	"$ISO" -b 9 --cleanup
else
	skip "without --share-net the box's loopback is up, as isolate's" "no python3"
fi

# -D: nothing of proctord's box but /box; the usual rules bring back what
# they name (on merged-/usr hosts /bin and /lib are links of root's,
# followed as isolate's mount follows them), :fs and :tmp the box's own.
"$ISO" -b 9 --init >/dev/null
look='test -e /etc/passwd || echo no-etc; test -e /sbin || echo no-sbin
test -e /dev/null || echo no-dev; test -d /proc/self && echo proc || echo no-proc
test -w /tmp && echo tmp || echo no-tmp'
rules=(--dir=/usr --dir=/lib --dir=/lib64:maybe --dir=/bin)
out=$("$ISO" -b 9 -p -D "${rules[@]}" --run -- /bin/sh -c "$look" 2>"$T/D.err")
check_eq "-D leaves out the box's defaults; --dir=/bin, --dir=/lib bring those back" \
	"0:no-etc no-sbin no-dev no-proc no-tmp" "$?:$(echo $out)" || diag "$(<"$T/D.err")"
out=$("$ISO" -b 9 -p -D "${rules[@]}" --dir=/proc=proc:fs --dir=/tmp:tmp --dir=/dev/shm=tmpfs:fs \
	--run -- /bin/sh -c "$look" 2>"$T/D.err")
check_eq "...and /proc=proc:fs, /tmp:tmp, /dev/shm=tmpfs:fs the box's own /proc, /tmp and /dev" \
	"0:no-etc no-sbin proc tmp" "$?:$(echo $out)" || diag "$(<"$T/D.err")"
"$ISO" -b 9 -M "$T/fs.meta" --dir=/sys=sysfs:fs --run -- /bin/true 2>"$T/D.err"
check_eq "...a sysfs is refused (usage, exit 2)" 2 "$?"
# judge0 with its per-process time limit passes 1.x's --no-cg-timing:
# the whole tree is timed anyway (a loop in a child of the main process).
"$ISO" --cg -b 9 -M "$T/ncg.meta" --no-cg-timing -t 0.3 -x 0 -w 5 -p --run -- \
	/bin/sh -c '/bin/sh -c "while :; do :; done"; true' 2>/dev/null
check_eq "--no-cg-timing: a loop in a child is still TO, killed" "1:TO:1" \
	"$?:$(meta_get "$T/ncg.meta" status):$(meta_get "$T/ncg.meta" killed)"
"$ISO" -b 9 --cleanup

done_testing
