#!/bin/bash
# SPDX-License-Identifier: ISC
# proctord's control directory: refused where the boxed program could reach it (inside --box DIR or a bind, told by device and inode), and served through descriptors once renamed.
# The helpers need bash; "sh file.sh" must work too.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# --- a directory renamed under proctord -------------------------------------
# The FIFOs proctord made are followed through its descriptors: once their
# directory has a new path, each answer still ends when its reader closes,
# instead of waiting out the 2 s deadline for a close it cannot see.
mkdir "$T/a"
pd_start --dir "$T/a/sb" -- sleep 100
mv "$T/a" "$T/b"
sb="$T/b/sb"
TALLY_BAD=0 TALLY_SLOW=0 TALLY_WORST=0
for i in 1 2 3 4; do
	wait_tally "$sb"
done
diag "slowest wait after the rename: $TALLY_WORST µs"
check_eq "after its directory is renamed, 4 waits through the new path are answered" 0 "$TALLY_BAD"
native timing check_eq "...each within 1 s (no 2 s deadline waited out)" 0 "$TALLY_SLOW"
wait0 "$sb"
check_eq "...and the terminating wait" "killed terminate" "$ANS_HEAD" || ans_diag
check "...after which proctord removes the directory, where it now is" wait_for "$T_OP" gone "$sb"

# --- a control directory within the box's reach -----------------------------
if [ "$(id -u)" != 0 ]; then
	skip "a control directory inside the box is refused" "needs root"
	done_testing
	exit 0
fi
chmod 0755 "$T"
# /box/s: a bind's mount point below /box must exist in DIR (box.c).
mkdir -p "$T/box/s" "$T/src/sub" "$T/out"
ln -s "$T/box" "$T/boxlink"

# refused DESCRIPTION THROUGH LEFT ARGS...: proctord ARGS exits 3, says the
# directory is within reach through THROUGH, and leaves nothing at LEFT.
refused() {
	local desc=$1 through=$2 left=$3 out rc
	shift 3
	out=$(timeout "$T_OP" "$PROCTORD" --end-fd 9 "$@" -- true 9>/dev/null 2>&1 </dev/null)
	rc=$?
	check_eq "$desc: refused, exit 3" 3 "$rc" || diag "$out"
	check_re "...saying it is within the program's reach through $through" \
		"within the program's reach, through $through \\(at " "$out"
	check "...and leaving nothing there" gone "$left"
}
refused "--dir inside --box DIR" "$T/box" "$T/box/ctl" --box "$T/box" --dir "$T/box/ctl"
refused "--dir inside --box given through a symbolic link" "$T/boxlink" "$T/box/ctl" \
	--box "$T/boxlink" --dir "$T/box/ctl"
refused "--dir inside a --bind source" "$T/src" "$T/src/sub/ctl" \
	--box "$T/box" --bind "$T/src:/box/s" --dir "$T/src/sub/ctl"
refused "--dir holding a --ro-bind source" "$T/src/sub" "$T/src/lock" \
	--box "$T/box" --ro-bind "$T/src/sub:/box/s" --dir "$T/src"
XDG_RUNTIME_DIR="$T/out" refused "the default directory, in a --ro-bind source" "$T/out" \
	"$T/out/nothing" --box "$T/box" --ro-bind "$T/out:/box/o"
check_eq "...which it removed again" "" "$(ls -A "$T/out")"

# The same as nobody, whose boxed program runs as nobody too.
if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1 &&
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups unshare -Urm true 2>/dev/null; then
	install -d -m 0755 -o nobody "$T/nb" "$T/nb/box"
	out=$(timeout "$T_OP" setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		"$PROCTORD" --end-fd 9 --box "$T/nb/box" --dir "$T/nb/box/ctl" -- true 9>/dev/null 2>&1 </dev/null)
	rc=$?
	check_eq "as nobody, --dir inside --box DIR: refused, exit 3" 3 "$rc" || diag "$out"
	check "...and leaving nothing there" gone "$T/nb/box/ctl"
else
	skip "as nobody, --dir inside --box DIR" "no setpriv, no nobody or no user namespaces"
fi

# Outside the box and its binds, the same box runs. Under valgrind, memcheck
# in the program's child opens its log after the box is built: its
# directory is bound in (as box-lib.sh does).
VG_BIND=()
vg_on && VG_BIND=(--bind "$T/vg")
pd_start --box "$T/box" --bind "$T/src:/box/s" "${VG_BIND[@]}" --env PROCTOR_BB_TAG \
	--dir "$T/out/ctl" -- sleep 100
check_eq "--dir outside the box and its binds: the box starts" 0 "$PD_RC"
wait0 "$T/out/ctl"
check_eq "...and answers" "killed terminate" "$ANS_HEAD" || ans_diag

done_testing
