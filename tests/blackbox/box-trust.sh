#!/bin/bash
# SPDX-License-Identifier: ISC
# A hostile program in a box reaches nothing of the host, its caller or the next run: links left in DIR, the caller's terminal, /dev, key rings, mount points, the init's command line; as root, or rootless (BOX_ROOTLESS=1, box-trust-rootless.sh).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/box-lib.sh"

# The user an earlier run had: nobody with --user as root, else proctord's.
as_prog() {
	if [ "$rootless" = 1 ]; then
		setpriv --reuid=nobody --regid="$ng" --clear-groups "$@"
	else
		"$@"
	fi
}
USER_ARGS=()
[ "$rootless" = 0 ] && USER_ARGS=(--user nobody)
# How the caller runs proctor: rootless, proctor run itself is nobody's (its
# private directory too).
CALLER=()
[ "$rootless" = 1 ] && CALLER=(env PROCTORD="$PROCTORD_BIN" setpriv --reuid=nobody \
	--regid="$ng" --clear-groups)

# --- files proctord opens for the program --------------------------------------

# A file the program's user must not read, and one it must not write.
echo "secret of $who's caller" >"$T/secret"
chmod 0600 "$T/secret"
echo "precious" >"$T/victim"
chmod 0600 "$T/victim"
bx_new
# What an earlier run (as the program's user) could have left in DIR.
setpriv --reuid=nobody --regid="$ng" --clear-groups ln -s "$T/secret" "$BOX/in"
setpriv --reuid=nobody --regid="$ng" --clear-groups ln -s "$T/victim" "$BOX/out"
setpriv --reuid=nobody --regid="$ng" --clear-groups ln -s "$T" "$BOX/up"
bx_run "$T/tmp/o.in" "${USER_ARGS[@]}" --stdin "$BOX/in" -- cat
check_re "[$who] --stdin DIR/in, a link an earlier run left: failed stdin, not followed" \
	"^failed stdin: $BOX/in: Too many levels of symbolic links" "$ANS_STATUS" || ans_diag
check_eq "...and nothing of the file it points to was read" "" "$(<"$T/tmp/o.in")"
pd_start --dir "$T/tmp/run.out" --box "$BOX" --ro-bind "$PROGS:/progs" "${VG_BIND[@]}" \
	"${USER_ARGS[@]}" --stdout "$BOX/out" -- echo overwritten
pd_poll "$T/tmp/run.out" 5
wait0 "$T/tmp/run.out"
check_re "[$who] --stdout DIR/out, a link: failed stdout" "^failed stdout: $BOX/out" "$ANS_STATUS" ||
	ans_diag
pd_start --dir "$T/tmp/run.out2" --box "$BOX" --ro-bind "$PROGS:/progs" "${VG_BIND[@]}" \
	"${USER_ARGS[@]}" --output-limit 1MiB --stdout "$BOX/out" -- echo overwritten
pd_poll "$T/tmp/run.out2" 5
wait0 "$T/tmp/run.out2"
check_re "[$who] ...also through --output-limit (proctord opens it)" "^failed stdout: $BOX/out" \
	"$ANS_STATUS" || ans_diag
pd_start --dir "$T/tmp/run.out3" --box "$BOX" --ro-bind "$PROGS:/progs" "${VG_BIND[@]}" \
	"${USER_ARGS[@]}" --stdout "$BOX/up/victim" -- echo overwritten
pd_poll "$T/tmp/run.out3" 5
wait0 "$T/tmp/run.out3"
check_re "[$who] --stdout through a linked directory in DIR: failed stdout" \
	"^failed stdout: $BOX/up/victim" "$ANS_STATUS" || ans_diag
check_eq "...and the files the links point to are untouched" "precious" "$(<"$T/victim")"
if [ "$rootless" = 0 ]; then
	# Not a link: a file of root's in DIR, which nobody may not read.
	cp "$T/secret" "$BOX/rootfile"
	chmod 0600 "$BOX/rootfile"
	bx_run "$T/tmp/o.rf" --user nobody --stdin "$BOX/rootfile" -- cat
	check_re "[root] --user nobody --stdin DIR/F, F root's 0600: opened as nobody, refused" \
		"^failed stdin: $BOX/rootfile: Permission denied" "$ANS_STATUS" || ans_diag
	rm -f "$BOX/rootfile"
fi
# --output-limit: proctord opens the file itself, as the box's user too.
# (as root without --user, the box's uid 0 is nobody: see below).
setpriv --reuid=nobody --regid="$ng" --clear-groups mkdir "$BOX/outdir"
rm -rf "$BOX/outdir"
setpriv --reuid=nobody --regid="$ng" --clear-groups ln -s "$T" "$BOX/outdir"
pd_start --dir "$T/tmp/run.out4" --box "$BOX" --ro-bind "$PROGS:/progs" "${VG_BIND[@]}" \
	--output-limit 1MiB --stdout "$BOX/outdir/victim" -- echo overwritten
pd_poll "$T/tmp/run.out4" 5
wait0 "$T/tmp/run.out4"
check_re "[$who] --output-limit, --stdout through a linked directory in DIR, no --user: failed stdout" \
	"^failed stdout: $BOX/outdir/victim" "$ANS_STATUS" || ans_diag
check_eq "...and the file it points to is untouched" "precious" "$(<"$T/victim")"
# A FIFO an earlier run left in DIR: the next run's set-up does not wait on it.
setpriv --reuid=nobody --regid="$ng" --clear-groups mkfifo "$BOX/in.fifo" "$BOX/out.fifo"
t0=${EPOCHREALTIME/./}
bx_run "$T/tmp/o.fifo1" "${USER_ARGS[@]}" --wall-time 20s --stdin "$BOX/in.fifo" -- cat
check_re "[$who] --stdin, a FIFO left in DIR: failed stdin at once" \
	"^failed stdin: $BOX/in.fifo: No such device or address" "$ANS_STATUS" || ans_diag
pd_start --dir "$T/tmp/run.fifo2" --box "$BOX" --ro-bind "$PROGS:/progs" "${VG_BIND[@]}" \
	"${USER_ARGS[@]}" --wall-time 20s --stdout "$BOX/out.fifo" -- echo hi
pd_poll "$T/tmp/run.fifo2" 5
wait0 "$T/tmp/run.fifo2"
t1=${EPOCHREALTIME/./}
check_re "[$who] --stdout, a FIFO left in DIR: failed stdout at once" \
	"^failed stdout: $BOX/out.fifo: No such device or address" "$ANS_STATUS" || ans_diag
check_range "...both within 15 s, not at the 20 s wall time (the set-up never waits on them)" 0 15000000 $((t1 - t0))
# The same FIFO, DIR named through a link of root's: the stdio is opened
# from DIR's source down by whatever name (box_child_base), so the look at
# where the program could write goes the same way, not through the name.
ln -s "$BOX" "$T/tmp/box.link"
t0=${EPOCHREALTIME/./}
pd_start --dir "$T/tmp/run.fifo5" --box "$T/tmp/box.link" --ro-bind "$PROGS:/progs" \
	"${VG_BIND[@]}" "${USER_ARGS[@]}" --wall-time 20s --stdin "$T/tmp/box.link/in.fifo" -- cat
pd_poll "$T/tmp/run.fifo5" 5
wait0 "$T/tmp/run.fifo5"
t1=${EPOCHREALTIME/./}
check_re "[$who] --stdin, a FIFO left in DIR, DIR given through a link: failed stdin at once" \
	"^failed stdin: $T/tmp/box.link/in.fifo: No such device or address" "$ANS_STATUS" || ans_diag
check_range "...within 15 s, not at the 20 s wall time" 0 15000000 $((t1 - t0))
rm -f "$T/tmp/box.link"
# With --output-limit proctord opens --stdout itself: the FIFO left in DIR
# fails the start too, rather than taking the output where nobody reads it.
pd_start --dir "$T/tmp/run.fifo6" --box "$BOX" --ro-bind "$PROGS:/progs" "${VG_BIND[@]}" \
	"${USER_ARGS[@]}" --wall-time 20s --output-limit 1MiB --stdout "$BOX/out.fifo" -- echo hi
pd_poll "$T/tmp/run.fifo6" 5
wait0 "$T/tmp/run.fifo6"
check_re "[$who] --output-limit, --stdout a FIFO left in DIR: failed stdout" \
	"^failed stdout: $BOX/out.fifo: No such device or address" "$ANS_STATUS" || ans_diag
# The judge's own FIFO, outside DIR, is waited on as ever.
mkfifo "$T/tmp/judge.fifo"
chmod 0666 "$T/tmp/judge.fifo"
(exec 3>"$T/tmp/judge.fifo"; echo "from the judge" >&3) &
bx_run "$T/tmp/o.fifo3" "${USER_ARGS[@]}" --wall-time 20s --stdin "$T/tmp/judge.fifo" -- cat
check_eq "[$who] --stdin, the judge's FIFO outside DIR: read as ever (the control)" "from the judge" \
	"$(<"$T/tmp/o.fifo3")" || ans_diag
wait
# ...and one whose reader is there first sees no end of file before the
# program's output (the look at its type opens no end of it).
mkfifo "$T/tmp/judge.out"
chmod 0666 "$T/tmp/judge.out"
cat "$T/tmp/judge.out" >"$T/tmp/judge.got" &
reader=$!
bx_run "$T/tmp/o.fifo4" "${USER_ARGS[@]}" --wall-time 20s --stdout "$T/tmp/judge.out" -- \
	sh -c 'sleep 0.2; echo "to the judge"'
wait "$reader"
check_eq "[$who] --stdout, the judge's FIFO with its reader there: it gets the output whole" \
	"to the judge" "$(<"$T/tmp/judge.got")" || ans_diag
# The judge's FIFOs in a read-write bind (CMS's Communication tasks): waited
# on where the program could not have put them, neither they nor their
# directory its user's and the directory writable by no group or other.
if [ "$rootless" = 0 ]; then
	mkdir -m 0755 "$T/tmp/jf" "$T/tmp/jw"
	mkfifo -m 0666 "$T/tmp/jf/in" "$T/tmp/jw/in"
	# Left when the directory was open to all, since closed.
	chmod 0777 "$T/tmp/jw"
	setpriv --reuid=nobody --regid="$ng" --clear-groups mkfifo "$T/tmp/jw/left"
	chmod 0755 "$T/tmp/jw"
	(exec 3>"$T/tmp/jf/in"; echo "through the bind" >&3) &
	bx_run "$T/tmp/o.jf" --user nobody --wall-time 20s --bind "$T/tmp/jf:/fifo" --stdin "$T/tmp/jf/in" -- cat
	check_eq "[root] --stdin, the judge's FIFO in a --bind (root's, 0755): waited on, read" \
		"through the bind" "$(<"$T/tmp/o.jf")" || ans_diag
	wait
	bx_run "$T/tmp/o.jw" --user nobody --wall-time 20s --bind "$T/tmp/jw:/fifo" --stdin "$T/tmp/jw/left" -- cat
	check_re "[root] ...but one of nobody's there (an earlier run's): failed stdin at once" \
		"^failed stdin: $T/tmp/jw/left: No such device or address" "$ANS_STATUS" || ans_diag
	chmod 0775 "$T/tmp/jw"
	bx_run "$T/tmp/o.jw2" --user nobody --wall-time 20s --bind "$T/tmp/jw:/fifo" --stdin "$T/tmp/jw/in" -- cat
	check_re "[root] ...and root's in a directory its group may write to: failed stdin at once" \
		"^failed stdin: $T/tmp/jw/in: No such device or address" "$ANS_STATUS" || ans_diag
	# A second name of another judge's FIFO (root's, 0666), left while the
	# directory was open to all: what nobody's ln makes where
	# fs.protected_hardlinks is 0 (root makes it here, whatever the host's).
	mkdir -m 0755 "$T/tmp/jo" "$T/tmp/jh"
	mkfifo -m 0666 "$T/tmp/jo/chan"
	ln "$T/tmp/jo/chan" "$T/tmp/jh/in"
	bx_run "$T/tmp/o.jh" --user nobody --wall-time 20s --bind "$T/tmp/jh:/fifo" --stdin "$T/tmp/jh/in" -- cat
	check_re "[root] ...and root's with a second name, another judge's FIFO: failed stdin at once" \
		"^failed stdin: $T/tmp/jh/in: No such device or address" "$ANS_STATUS" || ans_diag
	mkfifo -m 0666 "$T/tmp/jf/out"
	cat "$T/tmp/jf/out" >"$T/tmp/jf.got" &
	pd_start --dir "$T/tmp/run.jfo" --box "$BOX" --ro-bind "$PROGS:/progs" "${VG_BIND[@]}" \
		--user nobody --wall-time 20s --output-limit 1MiB --bind "$T/tmp/jf:/fifo" \
		--stdout "$T/tmp/jf/out" -- echo "to the judge, counted"
	pd_poll "$T/tmp/run.jfo" 5
	wait0 "$T/tmp/run.jfo"
	wait
	check_eq "[root] --output-limit, --stdout the judge's FIFO in a --bind: it gets the output" \
		"to the judge, counted" "$(<"$T/tmp/jf.got")" || ans_diag
else
	skip "[nobody] the judge's FIFO in a --bind" "rootless, the program is the judge's user"
fi
bx_run "$T/tmp/o.ok" "${USER_ARGS[@]}" --stdout "$BOX/result" -- echo fine
check_eq "[$who] --stdout DIR/result, a plain new file: written (the control)" "fine" \
	"$(cat "$BOX/result" 2>&1)"

# --- the caller's terminal -------------------------------------------------------

# Under script(1) proctor run's descriptors are a terminal, the program's too.
# The verdict goes to $T/tmp/sti.verdict.
tiocsti() {
	rm -f "$T/tmp/sti" "$T/tmp/sti.verdict"
	timeout "$T_OP" script -qec "$(printf '%q ' "${CALLER[@]}" "$PROCTOR" run --box "$BOX" \
		--ro-bind "$PROGS:/progs" "${VG_BIND[@]}" "${USER_ARGS[@]}" "$@" \
		--stdout "$T/tmp/sti" -- /progs/probe tiocsti) 2>$(printf '%q' "$T/tmp/sti.verdict")" \
		/dev/null </dev/null >/dev/null 2>&1
	cat "$T/tmp/sti" 2>/dev/null
}
if ! command -v script >/dev/null; then
	skip "[$who] TIOCSTI into the caller's terminal fails in a box" "no script(1)"
elif [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1)" = 0 ]; then
	skip "[$who] TIOCSTI into the caller's terminal fails in a box" \
		"TIOCSTI is off on this kernel (dev.tty.legacy_tiocsti = 0)"
else
	bx_new
	check_eq "[$who] TIOCSTI into the caller's terminal fails in a box" "TIOCSTI: EPERM" "$(tiocsti)" ||
		diag "$(<"$T/tmp/sti.verdict")"
	if vg_on; then
		skip "[$who] ...and with --seccomp the call kills it" "under valgrind (no seccomp there)"
	else
		bx_new
		tiocsti --seccomp >/dev/null
		check_re "[$who] ...and with --seccomp the call kills it" "killed syscall: ioctl" \
			"$(<"$T/tmp/sti.verdict")"
	fi
fi

# --- host device nodes -----------------------------------------------------------

full_mode=$(stat -c %a /dev/full)
bx_new
bx_run "$T/tmp/o.dev" -- sh -c 'chmod 0600 /dev/full 2>/dev/null && echo "chmod: done" || echo "chmod: refused"
	touch /dev/null 2>/dev/null && echo "touch: done" || echo "touch: refused"
	echo x >/dev/null && head -c 3 /dev/zero | od -An -c | tr -d " \n"; echo'
check_eq "[$who] /dev's nodes cannot be chmodded nor touched, but still work" \
	'chmod: refused;touch: refused;\0\0\0;' "$(tr '\n' ';' <"$T/tmp/o.dev")" ||
	diag "$(<"$T/tmp/o.dev.err")"
check_eq "...and the host's /dev/full keeps its mode" "$full_mode" "$(stat -c %a /dev/full)"
# The old code let uid 0 change it: put it back for the machine's sake.
[ "$(stat -c %a /dev/full)" = "$full_mode" ] || chmod "$full_mode" /dev/full

# --- new namespaces and mounts ---------------------------------------------------

if vg_on; then
	skip "[$who] no new namespace nor mount in a box" "under valgrind (no seccomp there)"
else
	bx_new
	bx_run "$T/tmp/o.ns" -- sh -c "$P syscall unshare; $P syscall mount; $P syscall clone-newuser
		grep -c -v ':/\$' /proc/self/cgroup"
	check_eq "[$who] no new namespace nor mount in a box, and no host cgroup path in /proc/self/cgroup" \
		"unshare: EPERM;mount: EPERM;clone-newuser: EPERM;0;" "$(tr '\n' ';' <"$T/tmp/o.ns")" ||
		diag "$(cat "$T/tmp/o.ns" "$T/tmp/o.ns.err")"
fi

# --- key rings -------------------------------------------------------------------

if vg_on; then
	skip "[$who] the key ring calls fail in a box" "under valgrind (no seccomp there)"
else
	bx_new
	bx_run "$T/tmp/o.key" "${USER_ARGS[@]}" -- sh -c "$P syscall keyctl; $P syscall add_key"
	check_eq "[$who] the key ring calls fail in a box: no caller's session ring, no @u for the next box" \
		"keyctl: EPERM;add_key: EPERM;" "$(tr '\n' ';' <"$T/tmp/o.key")"
fi

# --- mount points ----------------------------------------------------------------

# A bind below a host directory (the /usr bind) makes nothing there.
name=proctor-trust-$$
bx_new
bx_run "$T/tmp/o.mp" --ro-bind "$PROGS:/usr/share/$name/x" -- /bin/true
check_re "[$who] --ro-bind SRC:/usr/share/NEW/x: failed setup, naming the path" \
	"^failed setup: /usr/share/$name/x: No such file or directory" "$ANS_STATUS" || ans_diag
check "...and nothing was made in the host's /usr/share" test ! -e "/usr/share/$name"
rm -rf "/usr/share/$name"
bx_run "$T/tmp/o.mp2" --ro-bind "$PROGS:/box/progs" -- /bin/true
check_re "[$who] --ro-bind SRC:/box/NEW: failed setup (DIR stays as its owner left it)" \
	"^failed setup: /box/progs: No such file or directory" "$ANS_STATUS" || ans_diag
check "...and DIR holds no mount point of root's" test ! -e "$BOX/progs"
as_prog mkdir "$BOX/progs"
bx_run "$T/tmp/o.mp3" --ro-bind "$PROGS:/box/progs" -- test -x /box/progs/probe
check_eq "[$who] ...with DIR/NEW made beforehand, the bind is there" "exited 0" "$ANS_STATUS" ||
	ans_diag
as_prog mkfifo "$BOX/fifo"
t0=${EPOCHREALTIME/./}
bx_run "$T/tmp/o.fifo" --wall-time 20s --ro-bind "$PROGS/probe:/box/fifo" -- /bin/true
t1=${EPOCHREALTIME/./}
check_re "[$who] a FIFO in DIR where a file is bound: failed setup at once, naming it" \
	"^failed setup: /box/fifo: Invalid argument" "$ANS_STATUS" || ans_diag
check_range "...within 10 s, not at the 20 s wall time (the set-up never blocks on it)" 0 10000000 $((t1 - t0))
bx_run "$T/tmp/o.dir" --ro-bind "$PROGS:/box/fifo" -- /bin/true
check_re "[$who] ...and where a directory is bound: failed setup" \
	"^failed setup: /box/fifo: Not a directory" "$ANS_STATUS" || ans_diag

# --- uid 0 in a box ----------------------------------------------------------------

if [ "$rootless" = 1 ]; then
	skip "[nobody] root's box without --user: uid 0 there is nobody on the host" "rootless"
	skip "...and a file of root's in DIR cannot be written" "rootless"
elif vg_on; then
	skip "[root] root's box without --user: uid 0 there is nobody on the host" \
		"under valgrind (no clone3: no user namespace, a warning says so)"
	skip "...and a file of root's in DIR cannot be written" "under valgrind"
else
	bx_new
	echo "root's" >"$BOX/rootfile"
	chmod 0644 "$BOX/rootfile"
	bx_run "$T/tmp/o.uid0" -- sh -c 'id -u; echo made >/box/made
		echo spoiled 2>/dev/null >/box/rootfile && echo "rootfile: written" || echo "rootfile: refused"'
	check_eq "[root] root's box without --user: uid 0 there is nobody on the host" \
		"0;$(id -u nobody):$(id -g nobody);" \
		"$(sed -n 1p "$T/tmp/o.uid0");$(stat -c %u:%g "$BOX/made" 2>&1);" ||
		diag "$(<"$T/tmp/o.uid0.err")"
	check_eq "...and a file of root's in DIR cannot be written" "rootfile: refused;root's" \
		"$(sed -n 2p "$T/tmp/o.uid0");$(<"$BOX/rootfile")"
fi

# --- the report ------------------------------------------------------------------

# The program (as the box's uid 0, or nobody) puts a directory where the
# judge's --report FILE in DIR goes: the report file is lost, the verdict not.
bx_new
timeout "$T_OP" "${CALLER[@]}" "$PROCTOR" run --box "$BOX" --ro-bind "$PROGS:/progs" "${VG_BIND[@]}" \
	--report "$BOX/report.json" -- sh -c 'mkdir /box/report.json; exit 3' \
	</dev/null >/dev/null 2>"$T/tmp/rep.err"
rc=$?
check_eq "[$who] a directory put at DIR/report.json: proctor run still exits with the program's code" \
	3 "$rc" || diag "$(<"$T/tmp/rep.err")"
check_re "...says the verdict" "^proctor: exited 3; cpu " "$(grep "^proctor:" "$T/tmp/rep.err")"
check_re "...and why the report file is missing" "report: $BOX/report.json is not a regular file" \
	"$(<"$T/tmp/rep.err")"

# A link in DIR owned by proctord's uid (rootless: the program's own; as
# root: uid 0's, as a program run as the host's root would make it) must not
# lead --report elsewhere.
bx_new
mkdir "$T/tmp/other"
chmod 0777 "$T/tmp/other"
as_prog ln -s "$T/tmp/other" "$BOX/sub"
out=$(timeout "$T_OP" "${CALLER[@]}" "$PROCTORD_BIN" --dir "$T/tmp/run.rl" --box "$BOX" \
	--report "$BOX/sub/r.json" -- /bin/true 2>&1 </dev/null)
rc=$?
check_eq "[$who] --report through a link of proctord's uid in DIR: exit 2" 2 "$rc" || diag "$out"
check_re "...saying why" "sub is a symbolic link where the boxed program can write" "$out"
check "...and nothing was written where it points" test ! -e "$T/tmp/other/r.json"

# --- the environment --------------------------------------------------------------

bx_new
SECRET_TOKEN=hunter2 bx_run "$T/tmp/o.env" --env LC_ALL=C -- sh -c 'env | sort | grep -v "^PWD=\|^SHLVL=\|^_=\|^PROCTOR_BB_TAG="'
check_eq "[$who] a box's environment is its own: PATH, HOME=/box, LANG, TMPDIR, and --env" \
	"HOME=/box;LANG=C.UTF-8;LC_ALL=C;PATH=/usr/local/bin:/usr/bin:/bin;TMPDIR=/tmp;" \
	"$(tr '\n' ';' <"$T/tmp/o.env")"
SECRET_TOKEN=hunter2 bx_run "$T/tmp/o.env2" --env SECRET_TOKEN -- sh -c 'echo "$SECRET_TOKEN"'
check_eq "...and --env NAME passes the caller's NAME on" "hunter2" "$(<"$T/tmp/o.env2")"
if [ "$rootless" = 0 ]; then
	out=$(SECRET_TOKEN=hunter2 OTHER=x timeout "$T_OP" "$PROCTOR" run --box "$BOX" \
		--env SECRET_TOKEN --env PROCTOR_BB_TAG "${VG_BIND[@]}" \
		-- sh -c 'echo "$SECRET_TOKEN:$HOME:${OTHER-}"' 2>"$T/run-env.err")
	check_eq "[$who] ...proctor run passes --env on to the box, and nothing else" "hunter2:/box:" "$out" ||
		diag "$(<"$T/run-env.err")"
fi

# --- the init's command line -------------------------------------------------------

if vg_on; then
	skip "[$who] /proc/1/cmdline in the box is proctor-init, no host path" \
		"under valgrind (the init's command line is valgrind's)"
else
	bx_new
	bx_run "$T/tmp/o.cmd" -- sh -c 'tr "\0" " " </proc/1/cmdline; echo'
	check_eq "[$who] /proc/1/cmdline in the box is proctor-init, no host path" "proctor-init" \
		"$(sed 's/ *$//' "$T/tmp/o.cmd")" || ans_diag
fi

check_eq "[$who] no mount of the boxes is left on the host" "$mounts_before" "$(host_mounts)"
vg_on && vg_check
done_testing
