#!/bin/bash
# SPDX-License-Identifier: ISC
# The box (--box, --tmp-size, --ro-bind, --bind, --share-net): what a boxed program cannot see or do, and what it can; as root, or as nobody (BOX_ROOTLESS=1, box-rootless.sh).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/box-lib.sh"

# --- what it cannot do ---------------------------------------------------------

echo "the expected output: 42" >"$T/expected"
chmod 0644 "$T/expected"
bx_new
bx_run "$T/tmp/o.read" -- "$P" open "$T/expected"
check_eq "[$who] a host file outside the binds (the expected output) cannot be read" \
	"open: ENOENT" "$(<"$T/tmp/o.read")"
check_eq "...and the program ended normally" "exited 0" "$ANS_STATUS" || ans_diag

bx_run "$T/tmp/o.write" -- sh -c 'for f in /x /usr/x /etc/x /progs/x; do
	if true 2>/dev/null >"$f"; then echo "$f: written"; else echo "$f: refused"; fi; done'
check_eq "[$who] it cannot write to /, /usr, /etc nor a --ro-bind" \
	"/x: refused;/usr/x: refused;/etc/x: refused;/progs/x: refused;" "$(tr '\n' ';' <"$T/tmp/o.write")" || { ans_diag; diag "$(<"$T/tmp/o.write.err")"; }

: >"$T/tmp/host-tmp-marker"
want=""
for d in bin box dev etc lib lib32 lib64 libx32 proc progs sbin tmp usr; do
	case $d in bin | lib*) [ -e "/$d" ] || [ -L "/$d" ] || continue ;; esac
	want="$want$d "
done
bx_run "$T/tmp/o.see" -- sh -c 'ls -A /tmp; for d in /home /root /run /var /srv /mnt /sys '"$T"'; do
	[ -e "$d" ] && echo "$d: visible"; done; ls /'
if vg_on; then
	skip "[$who] only the box's root is visible" "under valgrind (its log directory is bound in)"
else
	check_eq "[$who] only the box's root: no host /tmp, /home, /root, /run, /var, /srv, /mnt, /sys, nor the test's directory" \
		"$want" "$(tr '\n' ' ' <"$T/tmp/o.see")"
fi

bx_run "$T/tmp/o.ps" -- sh -c 'cd /proc; echo [0-9]*'
check_re "[$who] /proc lists only the box's tree: its init (1), the program (2)" \
	'^1 2$' "$(<"$T/tmp/o.ps")"

# The program waits for proctord's host pid, then tries to signal it and
# this shell.
pd_start --dir "$T/tmp/run.kill" --box "$BOX" --ro-bind "$PROGS:/progs" "${VG_BIND[@]}" --stdout "$T/tmp/o.kill" \
	-- sh -c 'while [ ! -s /box/pid ]; do sleep 0.02; done; '"$P"' kill "$(cat /box/pid)"; '"$P"' kill '$$
pdpid=$(bx_pid "$T/tmp/run.kill")
echo "$pdpid" >"$BOX/pid.tmp" && mv "$BOX/pid.tmp" "$BOX/pid"
pd_poll "$T/tmp/run.kill" 5
wait0 "$T/tmp/run.kill"
check_eq "[$who] it cannot signal proctord (host pid $pdpid) nor the test's shell" \
	"kill: ESRCH;kill: ESRCH;" "$(tr '\n' ';' <"$T/tmp/o.kill")"

"$PROGS/probe" listen "$T/port" &
listener=$!
if wait_for "$T_OP" test -s "$T/port"; then
	port=$(<"$T/port")
	bx_run "$T/tmp/o.net" -- "$P" connect "$port"
	check_eq "[$who] it cannot connect to a listener on the host's 127.0.0.1" \
		"connect: ENETUNREACH" "$(<"$T/tmp/o.net")"
	bx_run "$T/tmp/o.net2" --share-net -- "$P" connect "$port"
	check_eq "[$who] ...but can with --share-net (the control)" "connect: ok" "$(<"$T/tmp/o.net2")"
else
	not_ok "[$who] a listener on 127.0.0.1"
	not_ok "[$who] ...(no listener)"
fi
kill "$listener" 2>/dev/null
wait "$listener" 2>/dev/null

bx_run "$T/tmp/o.tmp1" -- sh -c 'echo x >/tmp/left; echo x >/dev/shm/left; ls /tmp /dev/shm'
# Under valgrind its log directory ($T/vg) is bound in, which makes the first
# directory of $T below /tmp (proctor-bb.*, or a private TMPDIR's) there.
vg_top=${T#/tmp/}
vg_top=${vg_top%%/*}
bx_run "$T/tmp/o.tmp2" -- sh -c "ls -A /tmp /dev/shm | grep -v -x -e '$vg_top' -e 'proctor-bb.*'"
check_eq "[$who] nothing it writes to /tmp or /dev/shm is there for the next box" \
	"/dev/shm: /tmp:" "$(tr '\n' ' ' <"$T/tmp/o.tmp2" | sed 's/ *$//; s/  */ /g')"

bx_run "$T/tmp/o.full" --tmp-size 1MiB -- sh -c 'head -c 2097152 /dev/zero >/tmp/big; echo "rc $?"; wc -c </tmp/big'
check_re "[$who] --tmp-size 1MiB: a write past it fails with ENOSPC" \
	'^rc 1;10[0-9]{5};$' "$(tr '\n' ';' <"$T/tmp/o.full")"
check_re "...said as No space left on device" "No space left on device" "$(<"$T/tmp/o.full.err")"

bx_run "$T/tmp/o.caps" -- sh -c 'grep -E "^Cap(Eff|Bnd)" /proc/self/status | tr -s "\t" " "
	if true 2>/dev/null >/proc/sys/kernel/core_pattern; then echo "core_pattern: written"; else echo "core_pattern: refused"; fi
	mount -t tmpfs none /tmp 2>/dev/null && echo "mount: ok" || echo "mount: refused"'
# As root the bounding set is emptied too (uid 0 would get it back at
# execve); in a user namespace it is the namespace's, and uid is not 0.
bnd=0000000000000000
[ "$rootless" = 1 ] && bnd='[0-9a-f]{16}'
check_re "[$who] even as uid $(id -u $who) it has no capability, cannot write /proc/sys nor mount" \
	"^CapEff: 0000000000000000;CapBnd: $bnd;core_pattern: refused;mount: refused;\$" \
	"$(tr '\n' ';' <"$T/tmp/o.caps")"

# --- what it can do -----------------------------------------------------------

bx_run "$T/tmp/o.c" -- sh -c "pwd; $P ids; echo result >/box/answer"
check_eq "[$who] a C program runs, in /box, as $who" \
	"/box;uid=$(id -u $who) gid=$(id -g $who) groups=0;" "$(tr '\n' ';' <"$T/tmp/o.c")"
check_eq "...and what it writes to /box stays in DIR" "result" "$(cat "$BOX/answer" 2>&1)"
# Without capabilities the program still owns what it makes: a set-id copy
# of a shell in DIR (uid 0's, in a box run as root) would be a host user's
# way up while the box runs. The box's filter refuses every set-id mode.
mkdir "$T/tmp/rw-suid"
chmod 0777 "$T/tmp/rw-suid"
bx_run "$T/tmp/o.suid" --bind "$T/tmp/rw-suid:/data/w" -- sh -c 'cp /bin/sh /box/s &&
	cp /bin/sh /data/w/u; for f in /box/s /data/w/u; do chmod 6755 $f 2>/dev/null; stat -c %A $f; done
	'"$P"' creat-mode /box/c 4755; '"$P"' creat-mode /box/g 2755'
if vg_on; then
	skip "[$who] a set-id mode is refused in a box (chmod, creat)" "under valgrind (no seccomp there)"
else
	check_eq "[$who] a set-id mode is refused in a box (chmod, creat)" \
		"-rwxr-xr-x;-rwxr-xr-x;creat: EPERM;creat: EPERM;" "$(tr '\n' ';' <"$T/tmp/o.suid")" ||
		diag "$(<"$T/tmp/o.suid.err")"
fi
rm -f "$BOX/s" "$BOX/c" "$BOX/g" "$T/tmp/rw-suid/u"
# What is set-id in DIR or a --bind all the same (DIR's owner put it there,
# or the kernel has no seccomp) is stripped at the end, at any depth.
deep=$(printf 'd/%.0s' $(seq 1 140))
setpriv --reuid=nobody --regid="$ng" --clear-groups sh -c "mkdir -p '$BOX/d/e' '$BOX/$deep' &&
	cp /bin/sh '$BOX/s' && cp /bin/sh '$BOX/d/e/t' && cp /bin/sh '$BOX/${deep}x' &&
	chmod 6755 '$BOX/s' '$BOX/${deep}x' && chmod 4711 '$BOX/d/e/t' && ln -s /usr/bin/su '$BOX/l'"
cp /bin/sh "$T/tmp/rw-suid/u"
chown nobody "$T/tmp/rw-suid/u"
chmod 6755 "$T/tmp/rw-suid/u"
bx_run "$T/tmp/o.strip" --bind "$T/tmp/rw-suid:/data/w" -- stat -c %A /box/s
check_eq "[$who] a set-id file in DIR is set-id in the box (the control)" "-rwsr-sr-x" \
	"$(<"$T/tmp/o.strip")" || diag "$(<"$T/tmp/o.strip.err")"
check_eq "[$who] ...but no set-id bit is left in DIR (140 directories deep too) nor in a --bind once the box has ended" \
	"-rwxr-xr-x -rwx--x--x -rwxr-xr-x -rwxr-xr-x" \
	"$(stat -c %A "$BOX/s" "$BOX/d/e/t" "$BOX/${deep}x" "$T/tmp/rw-suid/u" 2>&1 | tr '\n' ' ' | sed 's/ $//')"
if [ -u /usr/bin/su ]; then
	check_eq "...and a link to a host set-user-ID program is not followed" "-rwsr-xr-x" \
		"$(stat -L -c %A /usr/bin/su)"
fi
rm -rf "$BOX/s" "$BOX/d" "$BOX/l"
if [ "$rootless" = 0 ]; then
	bx_run "$T/tmp/o.u" --user nobody -- sh -c "$P ids; id -un; echo by-nobody >/box/n"
	check_eq "--user nobody in a box: runs as nobody, named in the box's /etc/passwd" \
		"uid=$(id -u nobody) gid=$ng groups=0;nobody;" "$(tr '\n' ';' <"$T/tmp/o.u")"
	check_eq "...and its output file is in DIR" "by-nobody" "$(cat "$BOX/n" 2>&1)"
fi
mkdir "$T/tmp/rw"
chmod 0777 "$T/tmp/rw"
bx_run "$T/tmp/o.bind" --bind "$T/tmp/rw:/data/rw" -- sh -c 'echo kept >/data/rw/f && echo written'
check_eq "[$who] --bind SRC:DST is read-write, and what is written there is on the host" \
	"written kept" "$(cat "$T/tmp/o.bind" "$T/tmp/rw/f" 2>&1 | tr '\n' ' ' | sed 's/ $//')"
# A bind wins over what the box put at its path or below (isolate's
# --dir=/etc=/etc, CMS's compilations; -d /etc:noexec, judge0's runs): the
# host's whole /etc, its ld.so.cache and passwd, not the box's.
# What /etc has differs (the VM's has no hostname nor alternatives): the
# same look on the host is the expected output.
etc_look='cat /etc/hostname 2>/dev/null; grep -c "" /etc/passwd; test -e /etc/ld.so.cache && echo cache'
etc_sub=$(find /etc -mindepth 1 -maxdepth 1 -type d -readable 2>/dev/null | sort | head -n 1)
bx_run "$T/tmp/o.etc" --ro-bind /etc ${etc_sub:+--ro-bind "$etc_sub"} -- sh -c "$etc_look"
check_eq "[$who] --ro-bind /etc (with ${etc_sub:-no directory of it} bound in it too) replaces the box's /etc" \
	"$(sh -c "$etc_look" | tr '\n' ';')" "$(tr '\n' ';' <"$T/tmp/o.etc")" ||
	{ ans_diag; diag "$(<"$T/tmp/o.etc.err")"; }
# A redirect in a bind is opened from the bind's source down, as the
# program would open it in the box: the host's directories above it need
# not let the program's user in (CMS's outer directory is 0700).
if [ "$rootless" = 0 ]; then
	mkdir -m 0700 "$T/tmp/locked" && mkdir -m 0777 "$T/tmp/locked/rw"
	echo "through the bind" >"$T/tmp/locked/rw/in" && chmod 0644 "$T/tmp/locked/rw/in"
	bx_run "$T/tmp/locked/rw/o" --user nobody --bind "$T/tmp/locked/rw:/data" --stdin "$T/tmp/locked/rw/in" -- cat
	check_eq "[root] --stdin and --stdout in a --bind under a directory of root's 0700: opened as nobody" \
		"exited 0:through the bind" "$ANS_STATUS:$(<"$T/tmp/locked/rw/o")" || ans_diag
	bx_run "$T/tmp/o.lk" --user nobody --stdin "$T/tmp/locked/rw/in" -- cat
	check_re "[root] ...but not outside one: failed stdin, Permission denied" \
		"^failed stdin: $T/tmp/locked/rw/in: Permission denied" "$ANS_STATUS" || ans_diag
fi
# A device node in a bind: refused (nodev) but with --dev-bind (isolate's :dev).
mkdir "$T/tmp/devs"
if ! mknod -m 0666 "$T/tmp/devs/null" c 1 3 2>/dev/null; then
	# A user namespace's root (a container's) makes no device node.
	skip "[$who] a device node in a --ro-bind cannot be opened, in a --dev-bind it can" \
		"mknod refused here"
else
	for o in --ro-bind --dev-bind; do
		bx_run "$T/tmp/o$o" "$o" "$T/tmp/devs:/d" -- sh -c 'echo x 2>/dev/null >/d/null && echo written || echo refused'
	done
	check_eq "[$who] a device node in a --ro-bind cannot be opened, in a --dev-bind it can" \
		"refused;written" "$(<"$T/tmp/o--ro-bind");$(<"$T/tmp/o--dev-bind")" || ans_diag
fi
bx_run "$T/tmp/o.omit" --box-omit /proc --box-omit /dev/shm --box-omit /etc/passwd -- sh -c \
	'for p in /proc /dev/shm /etc/passwd /etc/group /dev/null; do [ -e $p ] && echo $p; done'
check_eq "[$who] --box-omit /proc, /dev/shm, /etc/passwd: those are not in the box, the rest is" \
	"/etc/group;/dev/null;" "$(tr '\n' ';' <"$T/tmp/o.omit")" || { ans_diag; diag "$(<"$T/tmp/o.omit.err")"; }
if [ -x "$PROGS/cxxthreads" ]; then
	bx_run "$T/tmp/o.cxx" -- /progs/cxxthreads 4
	check_eq "[$who] a C++ program with 4 threads runs" "exited 0" "$ANS_STATUS" ||
		diag "$(cat "$T/tmp/o.cxx" "$T/tmp/o.cxx.err")"
else
	skip "[$who] a C++ program with threads" "no cxxthreads (no C++ compiler)"
fi
if [ -x /usr/bin/python3 ]; then
	bx_run "$T/tmp/o.py" -- /usr/bin/python3 -c 'import os, tempfile; print(os.getcwd(), 6 * 7)'
	check_eq "[$who] python3 runs" "/box 42" "$(<"$T/tmp/o.py")" || diag "$(<"$T/tmp/o.py.err")"
else
	skip "[$who] python3 runs" "no /usr/bin/python3"
fi
if command -v javac >/dev/null && command -v java >/dev/null; then
	mkdir -p "$T/java"
	chmod 0755 "$T/java"
	if javac -d "$T/java" "$src/tests/progs/JThreads.java" 2>"$T/javac.err"; then
		bx_run "$T/tmp/o.java" --ro-bind "$T/java:/java" -- java -cp /java JThreads 4
		check_eq "[$who] java (through /etc/alternatives) runs 4 threads" "exited 0" \
			"$ANS_STATUS" || diag "$(cat "$T/tmp/o.java" "$T/tmp/o.java.err")"
	else
		not_ok "[$who] javac JThreads.java"
		diag "$(<"$T/javac.err")"
	fi
else
	skip "[$who] java runs" "no JDK (javac and java) on the PATH"
fi

# --- limits and verdicts are the same in a box --------------------------------

bx_run "$T/tmp/o.cpu" --cpu-time 300ms -- /progs/spin
check_re "[$who] --cpu-time in a box: killed cpu-time" "^killed cpu-time" "$ANS_STATUS" || ans_diag
bx_run "$T/tmp/o.out" --output-limit 1KiB -- sh -c 'head -c 100000 /dev/zero'
check_re "[$who] --output-limit in a box: killed output" "^killed output" "$ANS_STATUS"
if vg_on; then
	# valgrind 3.19 does not know seccomp(2) (isolation.sh says the same).
	skip "[$who] --seccomp in a box: killed syscall" "under valgrind"
else
	bx_run "$T/tmp/o.sec" --seccomp -- "$P" syscall keyctl
	check_re "[$who] --seccomp in a box: killed syscall" "^killed syscall" "$ANS_STATUS" ||
		ans_diag
fi

# --- lifetime: nothing outlives a SIGKILLed proctord ------------------------------

: >"$T/tmp/esc.lock"
chmod 0644 "$T/tmp/esc.lock"
bx_new
if pd_start --dir "$T/tmp/run.esc" --box "$BOX" --ro-bind "$PROGS:/progs" "${VG_BIND[@]}" \
	--stdin "$T/tmp/esc.lock" -- /progs/escape /box/ready &&
	wait_for "$T_OP" test -e "$BOX/ready"; then
	check "[$who] the escape helper's tree holds the lock" lock_held "$T/tmp/esc.lock"
	pd_kill "$(bx_pid "$T/tmp/run.esc")"
	check "[$who] SIGKILL to proctord: no process of the box is left within 5 s" \
		wait_for 5 flock -x -n "$T/tmp/esc.lock" true
else
	not_ok "[$who] the escape helper starts in a box"
	diag "$(<"$PD_ERR")"
fi

# --- errors before the start ----------------------------------------------------

bad() {
	local rc
	"$PROCTORD" --dir "$T/tmp/bad" "$@" -- /bin/true >/dev/null 2>"$T/bad.err"
	rc=$?
	BAD="rc $rc: $(<"$T/bad.err")"
}
bad --box "$T/tmp/missing"
check_re "[$who] --box DIR that does not exist: exit 2, one line" '^rc 2: proctord: --box: .*No such file' "$BAD"
bx_new
bad --box "$BOX" --ro-bind /nonexistent-proctor-src
check_re "[$who] --ro-bind of a missing path: exit 2 before the start" '^rc 2: .*nonexistent-proctor-src.*No such file' "$BAD"
bad --box "$BOX" --bind "relative:/x"
check_re "[$who] --bind of a relative path: exit 2" '^rc 2: .*absolute' "$BAD"
bad --box "$BOX" --box-omit /box
check_re "[$who] --box-omit /box: exit 2, DIR stays" '^rc 2: .*--box-omit /box: .*DIR stays' "$BAD"
# "/proc/" matched no mount and left /proc in the box without a word.
bad --box "$BOX" --box-omit /proc/
check_re "[$who] --box-omit /proc/ (a trailing /): exit 2, plain names only" \
	'^rc 2: .*--box-omit /proc/: an absolute path of plain names' "$BAD"
bad --ro-bind /usr
check_re "[$who] --ro-bind without --box: exit 2" '^rc 2: .*only in a box' "$BAD"
# A program named by a host path that the box does not hold: refused before
# the start, saying how to put it there (it was a "failed exec: No such file").
badprog() {
	"$PROCTORD" --end-fd 9 --dir "$T/tmp/bad" --box "$BOX" "$@" 9>/dev/null >/dev/null \
		2>"$T/bad.err" </dev/null
	BAD="rc $?: $(<"$T/bad.err")"
}
cp /bin/true "$T/tmp/hosttrue"
chmod 0755 "$T/tmp/hosttrue"
badprog -- "$T/tmp/hosttrue"
check_eq "[$who] a program outside the box: exit 2 before the start, saying how to put it in" \
	"rc 2: proctord: program $T/tmp/hosttrue is not in the box, which has only /usr, the system directories, DIR at /box and the binds: bind it in with --ro-bind $T/tmp/hosttrue (or its directory), or copy it into DIR and give /box/hosttrue" \
	"$BAD"
cp /bin/true "$BOX/prog"
badprog -- "$BOX/prog"
check_eq "[$who] a program in DIR given by its host path: its path in the box named" \
	"rc 2: proctord: program $BOX/prog is not in the box by that name: the box has it at /box/prog; give that path" \
	"$BAD"
bx_run "$T/tmp/o.bound" --ro-bind "$T/tmp/hosttrue" -- "$T/tmp/hosttrue"
check_eq "[$who] ...bound in with --ro-bind, it runs" "exited 0" "$ANS_STATUS" || ans_diag
bx_run "$T/tmp/o.inbox" -- /box/prog
check_eq "[$who] ...and /box/prog runs" "exited 0" "$ANS_STATUS" || ans_diag
# Another user plants a symbolic link in a sticky directory: it must not
# redirect the bind (it could point at /etc, or at another submission's box).
mkdir -m 1777 "$T/tmp/shared"
setpriv --reuid=nobody --regid="$ng" --clear-groups ln -s /etc "$T/tmp/shared/evil"
if [ "$rootless" = 0 ]; then
	bad --box "$T/tmp/shared/evil"
	check_re "[$who] --box through another user's symbolic link is refused" \
		'^rc 2: .*symbolic link of uid' "$BAD"
	bad --box "$BOX" --ro-bind "$T/tmp/shared/evil/x:/x"
	check_re "[$who] --ro-bind through another user's symbolic link is refused" \
		'^rc 2: .*symbolic link of uid' "$BAD"
fi

# A symbolic link the program left in DIR must not lead a mount point out of
# the box: the set-up refuses it, and nothing is made where it points (a
# directory of the host outside /tmp, which the staging mount covers: the
# helpers' own, rw for root).
bx_new
ln -s "$PROGS" "$BOX/sub"
chown -h nobody:"$ng" "$BOX/sub"
bx_run "$T/tmp/o.link" --ro-bind "$PROGS:/box/sub/planted" -- /bin/true
check_re "[$who] a mount point through a symbolic link in DIR: failed setup" \
	"^failed setup: /box/sub/planted: (Not a directory|Too many levels of symbolic links)" \
	"$ANS_STATUS" || ans_diag
check "...and nothing was made where the link points" test ! -e "$PROGS/planted"
rmdir "$PROGS/planted" 2>/dev/null

# --- --check ---------------------------------------------------------------------

"$PROCTORD" --check --box "$BOX" --ro-bind "$PROGS:/progs" --tmp-size 8MiB >"$T/check" 2>&1
check_eq "[$who] --check with a box exits 0" 0 "$?" || diag "$(<"$T/check")"
check_re "[$who] --check lists the box's namespaces" "box namespaces +mount, pid, ipc, uts, cgroup, net" "$(<"$T/check")"
check_re "[$who] --check lists its mounts (/box, the binds, /tmp)" \
	"/box bind of $BOX, read-write.*/progs bind of $PROGS, read-only" "$(tr '\n' ' ' <"$T/check")"
check_re "...and /tmp's size" "/tmp tmpfs mode=1777,size=8388608" "$(<"$T/check")"

# The same keys in a file: ro_bind repeatable, one per line.
printf 'box = %s\nro_bind = %s:/progs\nro_bind = %s:/data/expected\ntmp_size = 2MiB\n' \
	"$BOX" "$PROGS" "$T/expected" >"$T/tmp/box.conf"
RUN_DIR="$T/tmp/run.conf"
pd_start --dir "$RUN_DIR" --config "$T/tmp/box.conf" "${VG_BIND[@]}" --stdout "$T/tmp/o.conf" \
	-- sh -c 'cat /data/expected; df -k /tmp | tail -n 1' && pd_poll "$RUN_DIR" 5 && wait0 "$RUN_DIR"
check_re "[$who] box, ro_bind (twice) and tmp_size from a configuration file" \
	"^the expected output: 42;tmpfs +2048 " "$(tr '\n' ';' <"$T/tmp/o.conf")"

# The box's own network: the loopback down, or up with --loopback (then
# the program reaches itself at 127.0.0.1, as in isolate's box).
lo_try='import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
c = socket.socket()
try:
    c.connect(s.getsockname()); print("up")
except OSError as e:
    print("down")'
if command -v python3 >/dev/null 2>&1; then
	bx_run "$T/tmp/o.lo0" -- python3 -c "$lo_try"
	bx_run "$T/tmp/o.lo1" --loopback -- python3 -c "$lo_try"
	check_eq "[$who] the box's loopback is down, and up with --loopback" "down:up" \
		"$(<"$T/tmp/o.lo0"):$(<"$T/tmp/o.lo1")" || diag "$(<"$T/tmp/o.lo1.err")"
else
	skip "[$who] the box's loopback is down, and up with --loopback" "no python3"
fi

# A source by a descriptor proctord was started with (proctor-isolate's
# set-user-ID mode opens the caller's that way): that very directory, and
# never one of proctord's own (fd 9 is none of ours here).
mkdir -p "$T/tmp/fddir"
echo "by descriptor" >"$T/tmp/fddir/f"
chmod -R a+rX "$T/tmp/fddir"
bx_run "$T/tmp/o.fd" --ro-bind /proc/self/fd/7:/data -- cat /data/f 7<"$T/tmp/fddir"
check_eq "[$who] --ro-bind /proc/self/fd/N:DST binds the directory proctord inherited as N" \
	"by descriptor" "$(<"$T/tmp/o.fd")" || { ans_diag; diag "$(<"$T/tmp/o.fd.err")"; }
"$PROCTORD" --dir "$T/tmp/run.fd9" --box "$BOX" --ro-bind /proc/self/fd/9:/data -- true \
	>"$T/tmp/o.fd9" 2>&1 9<&-
check_eq "[$who] ...one it was not started with is refused (exit 2)" \
	"2:proctord: --ro-bind: /proc/self/fd/9: not a descriptor proctord was started with" \
	"$?:$(tail -n 1 "$T/tmp/o.fd9")"
"$PROCTORD" --dir "$T/tmp/run.fd7" --box "$BOX" --ro-bind /proc/self/fd/7 -- true \
	>"$T/tmp/o.fd7" 2>&1 7<"$T/tmp/fddir"
check_eq "[$who] ...and without a DST too" \
	"2:proctord: --ro-bind /proc/self/fd/7: a descriptor's bind needs its DST" \
	"$?:$(tail -n 1 "$T/tmp/o.fd7")"

# --- the end: no mount and no process is left ----------------------------------------

check_eq "[$who] no mount of the boxes is left on the host" "$mounts_before" "$(host_mounts)"
# A process killed with its namespace may take a moment to be gone.
no_tagged() { [ -z "$(tagged_pids)" ]; }
wait_for 5 no_tagged
left=$(tagged_pids)
check_eq "[$who] no process of the boxes is left" "" "$(echo $left)" ||
	for p in $left; do diag "$p: $(tr '\0' ' ' <"/proc/$p/cmdline") $(<"/proc/$p/stat")"; done

vg_on && vg_check
done_testing
