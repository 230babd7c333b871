#!/bin/bash
# SPDX-License-Identifier: ISC
# Safety: no FIFO impostors, a private directory, no leaked descriptors, and a clean end on SIGTERM/SIGINT/SIGHUP.
# The helpers need bash; "sh file.sh" must work too.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# A regular file or a symlink (even to a real FIFO) at DIR/wait or DIR/status
# is refused with exit 3 and a message naming it, and left as it was.
mkfifo "$T/elsewhere"
for name in wait status; do
	for kind in file symlink; do
		d="$T/$kind-$name"
		mkdir -m 0700 "$d"
		if [ "$kind" = file ]; then : >"$d/$name"; else ln -s "$T/elsewhere" "$d/$name"; fi
		timeout "$T_OP" "$PROCTORD" --dir "$d" -- sleep 100 >/dev/null 2>"$T/err" </dev/null
		rc=$?
		check_eq "a $kind at DIR/$name is refused with exit code 3" 3 "$rc"
		check_re "...with a message on stderr naming $name" "$name" "$(<"$T/err")"
		if [ "$kind" = file ]; then
			check "...and the file is left in place" eval '[ -f "$d/$name" ] && [ ! -L "$d/$name" ]'
		else
			check_eq "...and the symlink is left in place" "$T/elsewhere" "$(readlink "$d/$name")"
		fi
	done
done
pd_start --dir "$T/file-wait" -- sleep 100
check_eq "with --daemonize too, a file at DIR/wait gives exit code 3" 3 "$PD_RC"

# A directory proctord creates is private, and removed at the end.
sb="$T/new"
pd_start --dir "$sb" -- sleep 100
check_eq "a directory proctord creates has mode 0700" 700 "$(stat -c %a "$sb" 2>/dev/null)"
check_eq "wait and status are FIFOs of mode 0600" "600 600" "$(stat -c %a "$sb/wait" "$sb/status" 2>/dev/null | xargs)"
check_eq "lock is an empty regular file" "regular empty file" "$(stat -c %F "$sb/lock" 2>/dev/null)"
wait0 "$sb"
check "the directory proctord created is removed at the end" wait_for "$T_OP" gone "$sb"

# An existing directory is used and left in place, emptied of what proctord made.
sb="$T/existing"
mkdir -m 0755 "$sb"
pd_start --dir "$sb" -- sleep 100
wait0 "$sb"
wait_for "$T_OP" gone "$sb/status"
check "an existing directory is left in place, without wait, status and lock" \
	eval '[ -d "$sb" ] && gone "$sb/wait" && gone "$sb/status" && gone "$sb/lock"'
check_eq "...and its mode is unchanged" 755 "$(stat -c %a "$sb")"

# Without --dir: a fresh private directory under $XDG_RUNTIME_DIR.
pd_start -- sleep 100
check_re "without --dir, the directory is made under \$XDG_RUNTIME_DIR" "^$XDG_RUNTIME_DIR/proctor\\.[^/]+\$" "$PD_DIR"
check_eq "...with mode 0700" 700 "$(stat -c %a "$PD_DIR" 2>/dev/null)"
[ -n "$PD_DIR" ] && wait0 "$PD_DIR"
check "...and removed at the end" wait_for "$T_OP" gone "$PD_DIR"

# The program sees only 0, 1 and 2, also when proctord itself was started
# with more descriptors open (a foreground proctord inherits this shell's).
sb="$T/fd"
pd_start --dir "$sb" -- "$PROGS/fdcheck" "$T/fds"
pd_poll "$sb"
check_eq "a program under proctord --daemonize sees only descriptors 0, 1, 2" "0 1 2" "$(cat "$T/fds" 2>/dev/null)"
wait0 "$sb"
exec 7</dev/null 8>"$T/extra" 9<>"$T/elsewhere"
sb="$T/fdfg"
pd_start_fg --dir "$sb" -- "$PROGS/fdcheck" "$T/fds-fg"
exec 7<&- 8>&- 9<&-
wait_for "$T_OP" test -e "$T/fds-fg"
check_eq "a program under a foreground proctord with fds 7, 8, 9 open sees only 0, 1, 2" "0 1 2" "$(cat "$T/fds-fg" 2>/dev/null)"
wait_for "$T_OP" is_fifo "$sb/status"
wait0 "$sb"
pd_reap "$PD_PID"

# SIGTERM to a daemonized proctord: the program ends, the directory goes, no
# process of the tree is left, proctord exits.
sb="$T/sig"
pd_start --dir "$sb" -- "$PROGS/tree" "$T/sig.lock" "$T/sig.ready"
wait_for "$T_OP" test -e "$T/sig.ready"
pid=$(pd_pid "$sb")
check "the tree holds its lock before the signal" lock_held "$T/sig.lock"
kill -TERM "${pid:-0}"
check "SIGTERM: the daemonized proctord exits" wait_for "$T_OP" pid_gone "${pid:-0}"
check "SIGTERM: it removes the directory it created" wait_for "$T_OP" gone "$sb"
check "SIGTERM: no process of the tree is left" lock_free "$T/sig.lock"

# In the foreground the exit code can be seen: 4 for an interrupted sandbox.
# A background job of a script starts with SIGINT ignored; env puts it back.
for sig in TERM INT HUP; do
	sb="$T/fg-$sig"
	pd_seq=$((pd_seq + 1))
	env --default-signal=INT "$PROCTORD" --dir "$sb" -- "$PROGS/tree" "$T/$sig.lock" "$T/$sig.ready" \
		>/dev/null 2>"$T/pd.$pd_seq.err" </dev/null &
	pid=$!
	wait_for "$T_OP" test -e "$T/$sig.ready"
	kill -s "$sig" "$pid"
	pd_reap "$pid"
	check_eq "SIG$sig to a foreground proctord: exit code 4" 4 "$PD_EXIT"
	check "SIG$sig: the directory it created is removed" gone "$sb"
	check "SIG$sig: no process of the tree is left" lock_free "$T/$sig.lock"
done

# One proctord per directory for its whole life, grace period included
# (its wait FIFO is closed by then, so only the directory lock says so).
sbx="$T/one"
pd_start --dir "$sbx" --grace 2s -- sleep 100
timeout "$T_OP" bash -c 'echo 0 > "$1/wait"' _ "$sbx"
out=$(timeout "$T_OP" "$PROCTORD" --dir "$sbx" -- sleep 100 2>&1 </dev/null)
check_eq "a second proctord on a directory in its grace period is refused: exit 3" 3 "$?"
check_re "...saying the directory is in use" "in use by another proctord" "$out"
read_status "$sbx"
check_eq "...and the first still ends normally" "killed terminate" "$ANS_HEAD"

# A user whose inotify instances are used up (fs.inotify.max_user_instances;
# 128 by default): proctord says so once, naming the sysctl, and serves
# waits all the same, each answer on a fresh status FIFO (density.sh checks
# that mode further). Checked as nobody, whose instances nothing else uses.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	chmod 0711 "$T"
	install -d -m 0755 -o nobody "$T/hog"
	timeout "$T_OP" setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		"$PROGS/probe" inotify-hog "$PROCTORD" --daemonize --dir "$T/hog/sb" \
		-- sh -c 'touch "$0"' "$T/hog/ran" >/dev/null 2>"$T/hog.err" </dev/null
	check_eq "no inotify instance left: proctord starts all the same (exit 0)" 0 "$?"
	check_re "...saying so once and naming the sysctl" \
		"^proctord: this user has no inotify instance left \(fs.inotify.max_user_instances\)" \
		"$(grep -v '^probe: ' "$T/hog.err")"
	check "...the program ran" wait_for "$T_OP" test -e "$T/hog/ran"
	wait0 "$T/hog/sb"
	check_eq "...and the terminating wait is answered" "exited 0" "$ANS_STATUS"
else
	skip "no inotify instance left" "not root, or no setpriv or user nobody"
fi

done_testing
