#!/bin/bash
# SPDX-License-Identifier: ISC
# proctor-isolate installed set-user-ID root, run by a member of setuid_group: the caller's environment not trusted, what it names opened with its rights, boxes kept to their owner, --cleanup safe against the caller's races.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root (to make a set-user-ID root copy of proctor-isolate)"
	exit 0
fi
if ! command -v setpriv >/dev/null 2>&1; then
	echo "1..0 # SKIP needs setpriv (util-linux) to play the caller"
	exit 0
fi
# The build's copy whose configuration and proctord are the build tree's
# (src/meson.build); ours is a set-user-ID copy of it in $T.
SRC=${PROCTOR_ISOLATE_SETUID:-$(dirname "$PROCTORD")/proctor-isolate-setuid-test}
CONFDIR=$(dirname "$SRC")/isolate-setuid-test
CONF=$CONFDIR/etc/isolate.conf
install -d -m 0755 "$CONFDIR" "$CONFDIR/etc"
chmod 0711 "$T"
mkdir -m 0755 "$T/bin"
ISO=$T/bin/isolate
cp "$SRC" "$ISO"
chown 0:0 "$ISO"
chmod 4755 "$ISO"
write_conf() { # extra lines on stdin
	{
		echo "box_root = $T/boxes"
		echo "lock_root = $T/locks"
		echo "first_uid = 62000"
		echo "first_gid = 62000"
		echo "num_boxes = 10"
		cat
	} >"$CONF.new"
	chmod 0644 "$CONF.new"
	mv -f "$CONF.new" "$CONF"
}
echo "setuid_group = nogroup" | write_conf
trap 'chmod 0755 "$CONFDIR"; rm -rf "${CONFDIR:?}/etc"; bb_cleanup' EXIT

if ! setpriv --reuid=nobody --regid=nogroup --clear-groups "$ISO" --version >/dev/null 2>&1; then
	echo "1..0 # SKIP $T is not where nobody can run a set-user-ID program (nosuid, or modes)"
	exit 0
fi
# The build tree must be where a set-user-ID program may trust a file:
# root's alone up to / (a clone made with umask 002 is not).
if setpriv --reuid=nobody --regid=nogroup --clear-groups "$ISO" -b 9 --cleanup 2>&1 |
	grep -q "writable by root alone"; then
	echo "1..0 # SKIP the build tree ($(dirname "$SRC")) is not root's alone up to /: a set-user-ID proctor-isolate would not trust its configuration there"
	exit 0
fi
# The callers: nobody (in nogroup, setuid_group), daemon in nogroup too,
# and daemon in its own group only.
AS=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
AS2=(setpriv --reuid=daemon --regid=nogroup --clear-groups)
OUT=(setpriv --reuid=daemon --regid=daemon --clear-groups)
NOBODY=$(id -u nobody)

# The caller's own directory, and a tree it cannot reach: secret/ is
# root's 0700, secret/pub 0755 and its file 0644, so only the way there
# keeps the caller out (a bind as root would hand it to the box).
install -d -m 0700 -o nobody "$T/u"
install -d -m 0755 -o nobody "$T/u/data"
echo "the caller's" >"$T/u/data/f"
chmod 0644 "$T/u/data/f"
install -d -m 0700 "$T/secret"
install -d -m 0755 "$T/secret/pub"
echo s3cret >"$T/secret/pub/f"
chmod 0644 "$T/secret/pub/f"
install -d -m 0700 "$T/rootonly"

W=$("${AS[@]}" "$ISO" -b 0 --init)
check_eq "--init by a member of setuid_group prints box_root/N and exits 0" "$T/boxes/0:0" "$W:$?"
check_eq "...box/ is the caller's, mode 0700" "700:$NOBODY" "$(stat -c %a:%u "$W/box" 2>/dev/null)"
check_eq "...box_root/N and the lock are root's" "0:0" \
	"$(stat -c %u "$W"):$(stat -c %u "$T/locks/0")"
check_eq "...the lock names its owner" "owner $NOBODY" "$(<"$T/locks/0")"

out=$("${AS[@]}" "$ISO" -b 0 -M "$T/u/meta" --run -- /bin/echo hi 2>"$T/err")
check_eq "--run by the owner: the program's output, exit 0" "hi:0" "$out:$?"
check_eq "...the meta file was created with the caller's rights (its owner)" "$NOBODY" \
	"$(stat -c %u "$T/u/meta" 2>/dev/null)"
check_re "...and holds the run" 'exitcode:0$' "$(<"$T/u/meta")"

"${AS[@]}" "$ISO" -b 0 -M "$T/rootonly/meta" --run -- /bin/true 2>"$T/err"
check_eq "a meta file where the caller cannot write: exit 2, nothing made" "2:absent" \
	"$?:$([ -e "$T/rootonly/meta" ] && echo there || echo absent)"
check_re "...said so" "Failed to open meta file '$T/rootonly/meta': Permission denied" "$(<"$T/err")"

out=$("${AS[@]}" "$ISO" -b 0 -M "$T/u/meta" --dir=/d="$T/u/data" --run -- /bin/cat /d/f 2>"$T/err")
check_eq "--dir of a directory the caller reaches: the program reads it" "the caller's:0" "$out:$?"

for src in "$T/secret/pub" "$T/u/link"; do
	[ "$src" = "$T/u/link" ] && setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s "$T/secret/pub" "$T/u/link"
	out=$("${AS[@]}" "$ISO" -b 0 -M "$T/u/meta" --dir=/s="$src" --run -- /bin/cat /s/f 2>"$T/err")
	rc=$?
	check_eq "--dir=/s=${src#"$T"/}: a directory root reaches but the caller does not is refused (XX, exit 2)" \
		"2::status:XX" "$rc:$out:$(grep '^status:' "$T/u/meta")"
	check_re "...saying why" "Cannot bind $src on /s: Permission denied" "$(<"$T/err")"
done
# proctor-isolate's own descriptors through /proc/self/fd: what it holds
# open when it opens the sources is the caller's or root's 0600 lock
# (the report's memfd comes after); a pipe is no directory nor file.
echo | "${AS[@]}" "$ISO" -b 0 -M "$T/u/meta" --dir=/x=/proc/self/fd/0:rw --run -- /bin/true 2>"$T/err"
check_eq "--dir=/x=/proc/self/fd/0 (a pipe) is refused" "2" "$?"
check_re "...saying so" "Cannot bind /proc/self/fd/0 on /x: not a directory nor a file" "$(<"$T/err")"
# Root's process in secret/drop (0777, a file 0644 in it): its
# /proc/PID/cwd leads there as a link, which opened with the caller's
# file-system ids alone (CAP_SYS_PTRACE kept) would be followed.
install -d -m 0777 "$T/secret/drop"
echo s3cret >"$T/secret/drop/f"
chmod 0644 "$T/secret/drop/f"
(cd "$T/secret/drop" && exec sleep 60) &
SLEEPER=$!
out=$("${AS[@]}" "$ISO" -b 0 -M "$T/u/meta" --dir=/s="/proc/$SLEEPER/cwd" --run -- /bin/cat /s/f 2>"$T/err")
check_eq "--dir=/s=/proc/PID/cwd of root's process in a directory the caller cannot reach: XX, exit 2" \
	"2::status:XX" "$?:$out:$(grep '^status:' "$T/u/meta")"
check_re "...saying why" "Cannot bind /proc/$SLEEPER/cwd on /s: Permission denied" "$(<"$T/err")"
"${AS[@]}" "$ISO" -b 0 -M "/proc/$SLEEPER/cwd/meta" --run -- /bin/true 2>"$T/err"
check_eq "-M /proc/PID/cwd/meta of that process: refused, nothing made" "2:absent" \
	"$?:$([ -e "$T/secret/drop/meta" ] && echo there || echo absent)"
kill "$SLEEPER"
wait "$SLEEPER" 2>/dev/null
out=$("${AS[@]}" "$ISO" -b 0 -M "$T/u/meta" --dir=/s="$T/secret/pub:maybe" --run -- /bin/true 2>"$T/err")
check_eq "...:maybe does not hide it (only a missing source is skipped)" 2 "$?"
out=$("${AS[@]}" "$ISO" -b 0 -M "$T/u/meta" --dir=/s="$T/u/none:maybe" --run -- /bin/echo ran 2>"$T/err")
check_eq "a missing :maybe source is skipped" "ran:0" "$out:$?"

# The redirects are the box user's, through the caller's sources.
"${AS[@]}" sh -c "echo '3 4' >'$W/box/in.txt'"
"${AS[@]}" "$ISO" -b 0 -M "$T/u/meta" -i in.txt -o out.txt --run -- /bin/cat 2>"$T/err"
check_eq "-i and -o in the box" "0:3 4" "$?:$(cat "$W/box/out.txt" 2>/dev/null)"

# /proc as a rule's source makes -o /p/self/fd/N the host's /proc/self/fd/N,
# which proctord takes for its descriptor N (its report's, its sources').
out=$("${AS[@]}" "$ISO" -b 0 -M "$T/u/meta" --dir=/p=/proc -o /p/self/fd/3 --run -- /bin/true 2>"$T/err")
check_eq "-o /p/self/fd/3 through --dir=/p=/proc: not proctord's descriptor 3 (XX, exit 2)" \
	"2:status:XX" "$?:$(grep '^status:' "$T/u/meta")"
check_re "...saying why" "/p/self/fd/3 is /proc/self/fd/3, one of proctord's own descriptors" "$(<"$T/err")"

# The caller's environment is its own: none of it reaches what runs as root.
printf '#!/bin/sh\ntouch %s/pwned\n' "$T" >"$T/evil"
chmod 0755 "$T/evil"
echo "box_root = $T/evil-boxes" >"$T/evil.conf"
chmod 0644 "$T/evil.conf"
out=$(env PROCTOR_ISOLATE_CONFIG="$T/evil.conf" PROCTORD="$T/evil" PROCTORD_FAIL_AT=cgroups \
	LD_PRELOAD="$T/nothing.so" PATH="$T:$PATH" "${AS[@]}" "$ISO" -b 0 -M "$T/u/meta" --run -- /bin/echo hi 2>"$T/err")
check_eq "\$PROCTORD, \$PROCTOR_ISOLATE_CONFIG, \$PROCTORD_FAIL_AT, \$LD_PRELOAD are not obeyed" \
	"hi:0:none:none" "$out:$?:$([ -e "$T/pwned" ] && echo pwned || echo none):$([ -e "$T/evil-boxes" ] && echo made || echo none)"

# Who may: setuid_group's members, and a box only its owner.
"${OUT[@]}" "$ISO" -b 1 --init >/dev/null 2>"$T/err"
check_eq "a caller outside setuid_group is refused (exit 2)" 2 "$?"
check_re "...saying so" "not in group nogroup" "$(<"$T/err")"
for cmd in --init --cleanup "--run -- /bin/true"; do
	# shellcheck disable=SC2086 # $cmd is words
	"${AS2[@]}" "$ISO" -b 0 $cmd >/dev/null 2>"$T/err"
	check_eq "$cmd on another member's box is refused (exit 2)" 2 "$?"
	check_re "...as isolate 2.x says it" "This box belongs to a different user \\(uid $NOBODY\\)" "$(<"$T/err")"
done
check "...and the box is still there" test -d "$W/box"
# Another member's box is refused before its lock is taken: with --wait,
# while the owner's run holds it, at once (else it would wait for it, and
# hold it, stopped by its caller, from the owner).
"${AS[@]}" "$ISO" -b 0 --run -- /bin/sleep 20 >/dev/null 2>&1 &
BUSY=$!
wait_for 20 test -p "$T/locks/0.run/wait"
timeout 10 "${AS2[@]}" "$ISO" -b 0 --wait --run -- /bin/true >/dev/null 2>"$T/err"
rc=$?
check_eq "--wait on another member's box in use: refused at once (exit 2), its run goes on" \
	"2:running" "$rc:$(kill -0 "$BUSY" 2>/dev/null && echo running || echo over)"
check_re "...as isolate 2.x says it" "This box belongs to a different user \\(uid $NOBODY\\)" "$(<"$T/err")"
kill -TERM "$BUSY"
wait "$BUSY"

# --cleanup: root removes what the caller and the program left, without
# following what they put there. A link to a root directory, a deep tree,
# a directory of the box user's mode 0.
"${AS[@]}" "$ISO" -b 0 -M "$T/u/meta" -p --run -- /bin/sh -c \
	'mkdir -p a/b/c && touch a/b/c/f && mkdir locked && touch locked/f && chmod 0 locked' 2>"$T/err"
check_eq "the program leaves a tree of its own in box/" 0 "$?"
install -d -m 0755 "$T/victim"
touch "$T/victim/keep"
"${AS[@]}" sh -c "cd '$W/box' && ln -s '$T/victim' v && ln -s '$T/victim/keep' k && p=deep && i=0 &&
	while [ \$i -lt 300 ]; do mkdir \$p 2>/dev/null || break; p=\$p/d; i=\$((i+1)); done"
"${AS[@]}" "$ISO" -b 0 --cleanup 2>"$T/err"
check_eq "--cleanup by the owner removes box_root/N whole, exit 0" "0:gone" \
	"$?:$([ -e "$W" ] && echo there || echo gone)"
check "...following none of the links left in it" test -e "$T/victim/keep"
check_eq "...and the box is nobody's again" "" "$(<"$T/locks/0")"
# A directory of the caller's with root's in it, which the caller cannot
# empty, moved into box/: root does not empty it either.
W3=$("${AS[@]}" "$ISO" -b 3 --init)
install -d -m 0755 -o nobody "$T/u/mine"
install -d -m 0755 "$T/u/mine/roots"
echo keep >"$T/u/mine/roots/f"
"${AS[@]}" mv "$T/u/mine" "$W3/box/mine"
"${AS[@]}" "$ISO" -b 3 --cleanup 2>"$T/err"
check_eq "--cleanup meets a directory of root's that the caller moved in: XX, exit 2, its file kept" \
	"2:keep" "$?:$(cat "$W3/box/mine/roots/f" 2>/dev/null)"
check_re "...saying so" "Cannot remove $W3: Operation not permitted" "$(<"$T/err")"
rm -r "$W3/box/mine/roots"
"${AS[@]}" "$ISO" -b 3 --cleanup 2>"$T/err"
check_eq "...and with it gone, --cleanup removes the box" "0:gone" \
	"$?:$([ -e "$W3" ] && echo there || echo gone)"
W2=$("${AS2[@]}" "$ISO" -b 0 --init)
check_eq "...so another member may --init it" "$T/boxes/0:0" "$W2:$?"
"${AS2[@]}" "$ISO" -b 0 --cleanup

# A signal of the caller's once proctord is reaped: its pid may be another
# process's by then (the caller may stop us there until it is), which we,
# root, must not signal. strace holds us 3 s at the end of the wait4 that
# reaps it, and we send SIGTERM then.
if command -v strace >/dev/null 2>&1; then
	"${AS[@]}" "$ISO" -b 5 --init >/dev/null
	# shellcheck disable=SC2016 # $$ is the child sh's
	strace -o "$T/strace" -e trace=wait4,kill -e inject=wait4:delay_exit=3000000 \
		sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$T/iso.pid" \
		"${AS[@]}" "$ISO" -b 5 --run -- /bin/true >/dev/null 2>&1 &
	STRACED=$!
	if wait_for 30 grep -q '^wait4(.*) = [0-9]' "$T/strace"; then
		kill -TERM "$(<"$T/iso.pid")"
		wait "$STRACED"
		check_eq "SIGTERM once proctord is reaped: no process is signalled" "" \
			"$(sed -n '/^wait4(.*) = [0-9]/,$p' "$T/strace" | grep '^kill(')"
	else
		wait "$STRACED"
		not_ok "strace showed no wait4 that reaped proctord: $(<"$T/strace")"
	fi
	"${AS[@]}" "$ISO" -b 5 --cleanup
else
	skip "SIGTERM once proctord is reaped: no process is signalled" "needs strace"
fi

# The configuration is trusted only as root's alone.
printf 'box_root = %s/boxes\nlock_root = %s/locks\n' "$T" "$T" | write_conf
"${AS[@]}" "$ISO" -b 2 --init >/dev/null 2>"$T/err"
check_eq "a configuration without setuid_group: every set-user-ID caller refused" 2 "$?"
check_re "...saying so" "names no setuid_group" "$(<"$T/err")"
echo "setuid_group = nogroup" | write_conf
chmod 0666 "$CONF"
"${AS[@]}" "$ISO" -b 2 --init >/dev/null 2>"$T/err"
check_eq "a configuration others may write: refused" 2 "$?"
check_re "...saying so" "must be root's and writable by root alone" "$(<"$T/err")"
chmod 0644 "$CONF"

# The configuration's directory in a sticky one of root's (as /tmp), which
# the trust allows: the caller cannot replace root's etc/, but once it is
# gone may make its own, write its configuration (box_root a directory of
# root's, first_uid another user's) and close it to itself (mode 0), so
# that only root's eyes see the file.
chmod 1777 "$CONFDIR"
rm -r "${CONFDIR:?}/etc"
install -d -m 0755 "$T/victim/0"
touch "$T/victim/0/keep"
"${AS[@]}" sh -c "mkdir '$CONFDIR/etc' && printf 'box_root = $T/victim\nlock_root = $T/locks\nfirst_uid = 1\nsetuid_group = nogroup\n' >'$CONF' && chmod 0 '$CONFDIR/etc'"
"${AS[@]}" "$ISO" -b 0 --init >/dev/null 2>"$T/err"
check_eq "a configuration of the caller's that the caller cannot see itself: refused, root's directory kept" \
	"2:kept" "$?:$([ -e "$T/victim/0/keep" ] && echo kept || echo gone)"
check_re "...saying so" "must be root's and writable by root alone" "$(<"$T/err")"
rm -rf "${CONFDIR:?}/etc"
install -d -m 0755 "$CONFDIR/etc"
"${AS[@]}" "$ISO" -b 4 --init >/dev/null 2>"$T/err"
check_eq "...and none at all there: isolate's defaults (box_root /var/local/lib/isolate, no setuid_group: refused)" \
	2 "$?"
check_re "...saying so" "names no setuid_group" "$(<"$T/err")"
chmod 0755 "$CONFDIR"

done_testing
