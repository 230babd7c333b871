#!/bin/bash
# SPDX-License-Identifier: ISC
# Trust: a symbolic link of another user on the way to the sandbox directory is never followed.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null || ! id nobody >/dev/null 2>&1; then
	skip "as root, --dir through nobody's link in a sticky directory is refused" \
		"not root, or no setpriv or user nobody"
	skip "as root, \$XDG_RUNTIME_DIR through nobody's link is refused" \
		"not root, or no setpriv or user nobody"
	skip "as root, --report through nobody's link is refused" \
		"not root, or no setpriv or user nobody"
	done_testing
	exit 0
fi
chmod 0711 "$T"
as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$@"; }
errors_only() { grep -v '^proctord: removed .*, left by a proctord that died$' "$1"; }

# /tmp-like: nobody plants a link to a directory of root. Followed, the
# clients would go through nobody's link, which nobody can re-point to a
# directory of its own with forged FIFOs.
mkdir -m 1777 "$T/sticky"
chmod 1777 "$T/sticky"
mkdir -m 0755 "$T/rootdir"
as_nobody ln -s "$T/rootdir" "$T/sticky/link"
timeout "$T_OP" "$PROCTORD" --dir "$T/sticky/link/box" -- true >"$T/out" 2>"$T/err" </dev/null
rc=$?
check_eq "as root, --dir through nobody's link in a sticky directory: exit code 3" 3 "$rc"
check_re "...saying whose link it is" \
	"^proctord: --dir: $T/sticky/link is a symbolic link of uid $(id -u nobody), neither root nor proctord's uid 0" \
	"$(errors_only "$T/err")"
check "...and nothing was made where it leads" test ! -e "$T/rootdir/box"

XDG_RUNTIME_DIR="$T/sticky/link" timeout "$T_OP" "$PROCTORD" -- true >"$T/out" 2>"$T/err" </dev/null
rc=$?
check_eq "as root, \$XDG_RUNTIME_DIR through nobody's link: exit code 3" 3 "$rc"
check_re "...saying whose link it is" \
	"^proctord: .XDG_RUNTIME_DIR: $T/sticky/link is a symbolic link of uid $(id -u nobody)" \
	"$(errors_only "$T/err")"
check_eq "...and nothing was made where it leads" "" "$(ls -A "$T/rootdir")"

# A link of root's own in the same sticky directory is still followed.
ln -s "$T/rootdir" "$T/sticky/rootlink"
pd_start --dir "$T/sticky/rootlink/box" -- true
check_eq "a link of root's in a sticky directory is followed" "$T/sticky/rootlink/box" "$PD_DIR"
[ -n "$PD_DIR" ] && wait0 "$PD_DIR"
check "...and the directory removed at the end" wait_for "$T_OP" gone "$T/rootdir/box"

# --report through nobody's link: a file of root's where it leads would be
# replaced (any file of root's, named like the report, in any directory).
mkdir -m 0755 "$T/etc"
echo "root's data" >"$T/etc/result"
as_nobody ln -s "$T/etc" "$T/sticky/out"
timeout "$T_OP" "$PROCTORD" --report "$T/sticky/out/result" -- true >"$T/out" 2>"$T/err" </dev/null
rc=$?
check_eq "as root, --report through nobody's link: exit code 2" 2 "$rc"
check_re "...saying whose link it is" \
	"^proctord: --report $T/sticky/out/result: $T/sticky/out is a symbolic link of uid $(id -u nobody)" \
	"$(errors_only "$T/err")"
check_eq "...and root's file where it leads is untouched" "root's data" "$(<"$T/etc/result")"
# Root's own link, and a directory of nobody's (not a link), still serve.
ln -s "$T/etc" "$T/sticky/rootout"
pd_start --report "$T/sticky/rootout/r.json" -- true
[ -n "$PD_DIR" ] && wait0 "$PD_DIR"
check "a --report through root's own link is written" wait_for "$T_OP" test -s "$T/etc/r.json"
install -d -m 0755 -o nobody "$T/nbdir"
pd_start --report "$T/nbdir/r.json" -- true
[ -n "$PD_DIR" ] && wait0 "$PD_DIR"
check "a --report in a directory of nobody's is written" wait_for "$T_OP" test -s "$T/nbdir/r.json"

done_testing
