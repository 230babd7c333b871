#!/bin/bash
# SPDX-License-Identifier: ISC
# Trust: paths another user controls are refused (the sandbox directory, its parents, --report), and bad input keeps its error.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

root=0
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	root=1
	# nobody must reach what it plants under $T.
	chmod 0711 "$T"
fi
as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$@"; }
# one_line FILE: the file is exactly one line.
one_line() { [ "$(wc -l <"$1")" = 1 ]; }
# errors_only FILE: drop the notes on stale cgroups that any start may print
# (leftovers of other proctords, not this test's business).
errors_only() { grep -v '^proctord: removed .*, left by a proctord that died$' "$1" >"$1.x"; mv "$1.x" "$1"; }
# refused DESCRIPTION ERE ARGS...: proctord ARGS exits 3 with one line on
# stderr matching ERE, and no program ran.
refused() {
	local desc=$1 re=$2
	shift 2
	rm -f "$T/ran"
	timeout "$T_OP" "$PROCTORD" "$@" -- sh -c ': >"$0"' "$T/ran" >"$T/out" 2>"$T/err" </dev/null
	check_eq "$desc: exit code 3" 3 "$?"
	errors_only "$T/err"
	check_re "...one line saying why" "^proctord: $re" "$(<"$T/err")"
	check "...only one line" one_line "$T/err"
	check "...and the program did not run" test ! -e "$T/ran"
}

# --- the base of a fresh sandbox directory -------------------------------------

if [ "$root" = 1 ]; then
	install -d -m 0755 -o nobody "$T/nobody-xdg"
	XDG_RUNTIME_DIR="$T/nobody-xdg" refused \
		"as root, a \$XDG_RUNTIME_DIR owned by nobody is refused" \
		"\\\$XDG_RUNTIME_DIR: $T/nobody-xdg belongs to uid $(id -u nobody), neither root nor proctord's uid 0"
	check_eq "...and nothing was made in it" "" "$(ls -A "$T/nobody-xdg")"
else
	skip "as root, a \$XDG_RUNTIME_DIR owned by nobody is refused" "not root, or no setpriv or user nobody"
fi
mkdir -m 0777 "$T/open"
chmod 0777 "$T/open" # whatever the umask
XDG_RUNTIME_DIR="$T/open" refused "a \$XDG_RUNTIME_DIR that every user can write (0777) is refused" \
	"\\\$XDG_RUNTIME_DIR: $T/open is writable by every user \\(mode 0777\\) and not sticky"
mkdir -m 0775 "$T/group"
chmod 0775 "$T/group"
XDG_RUNTIME_DIR="$T/group" refused "a \$XDG_RUNTIME_DIR that its group can write (0775) is refused" \
	"\\\$XDG_RUNTIME_DIR: $T/group is writable by its group \\(mode 0775\\) and not sticky"
mkdir -m 0755 "$T/open/sub"
XDG_RUNTIME_DIR="$T/open/sub" refused "a \$XDG_RUNTIME_DIR under a directory every user can write is refused" \
	"\\\$XDG_RUNTIME_DIR: $T/open is writable by every user"
mkdir -m 1777 "$T/sticky"
chmod 1777 "$T/sticky"
XDG_RUNTIME_DIR="$T/sticky" pd_start -- true
check_re "a sticky \$XDG_RUNTIME_DIR (1777, like /tmp) is used" "^$T/sticky/proctor\\.[^/]+\$" "$PD_DIR"
[ -n "$PD_DIR" ] && wait0 "$PD_DIR"
check "...and the directory removed at the end" wait_for "$T_OP" gone "$PD_DIR"

# --- --dir --------------------------------------------------------------------

refused "--dir under a directory every user can write is refused" \
	"--dir: $T/open is writable by every user \\(mode 0777\\) and not sticky" --dir "$T/open/box"
refused "...also further down (an ancestor, not only the parent)" \
	"--dir: $T/open is writable by every user" --dir "$T/open/sub/box"
check "...and nothing was made there" gone "$T/open/sub/box"
ln -s open "$T/to-open"
refused "...also when a symbolic link on the way leads there" \
	"--dir: $T/open is writable by every user" --dir "$T/to-open/sub/box"

mkdir -m 0755 "$T/real"
ln -s real "$T/to-real"
pd_start --dir "$T/to-real/box" -- true
check_eq "--dir through a symbolic link to a trusted directory works" 0 "$PD_RC"
check "...the sandbox is where the link leads" is_fifo "$T/real/box/wait"
wait0 "$T/to-real/box"
check "...and it is removed at the end" wait_for "$T_OP" gone "$T/real/box"

mkdir -m 0755 "$T/r"
ln -s "$T/r" "$T/sticky/mine"
refused "--dir whose last component is a symbolic link is refused, even one of ours" \
	"$T/sticky/mine is a symbolic link \\(owned by uid $(id -u)\\); proctord never follows one there" \
	--dir "$T/sticky/mine"
# Each client would resolve /proc/self/fd/N in its own process.
exec 7<"$T/r"
refused "--dir through /proc/self/fd is refused" \
	"/proc/self/fd/7/box: a path through /proc or /dev/fd means something else in each client" \
	--dir /proc/self/fd/7/box
exec 7<&-
if [ "$root" = 1 ]; then
	as_nobody ln -s "$T/r" "$T/sticky/box"
	refused "as root, --dir through a symbolic link nobody planted in a sticky directory (to a directory of root) is refused" \
		"$T/sticky/box is a symbolic link \\(owned by uid $(id -u nobody)\\)" --dir "$T/sticky/box"
	check_eq "...nothing was made where it points" "" "$(ls -A "$T/r")"
	check_eq "...and the link is left as it was" "$T/r" "$(readlink "$T/sticky/box")"
	as_nobody mkdir -m 0700 "$T/sticky/theirs"
	refused "as root, --dir naming a directory that nobody made is refused" \
		"directory $T/sticky/theirs belongs to uid $(id -u nobody), not to proctord's uid 0" \
		--dir "$T/sticky/theirs"
else
	for i in 1 2 3 4 5 6 7 8; do
		skip "as root, --dir through what nobody planted ($i of 8)" "not root, or no setpriv or user nobody"
	done
fi
mkdir -m 0777 "$T/sticky/wide"
chmod 0777 "$T/sticky/wide"
refused "an existing --dir that every user can write is refused" \
	"directory $T/sticky/wide is writable by every user \\(mode 0777\\): they could replace its FIFOs" \
	--dir "$T/sticky/wide"

long="$T/$(printf '%0300d' 0)"
refused "a --dir with a component over 255 bytes keeps its reason" \
	"cannot create directory $long: File name too long\$" --dir "$long"
long="$T/"
while [ "${#long}" -lt 4089 ]; do long="${long}d/"; done
long=${long:0:4089}
refused "a 4089-byte --dir keeps its reason" \
	"--dir: the path is 4089 bytes long; DIR/status must fit in PATH_MAX \\(4096 bytes\\)\$" \
	--dir "$long"

# --- --config ---------------------------------------------------------------------

# refused_config DESCRIPTION ERE ARGS...: exit 2, one line, nothing ran.
refused_config() {
	local desc=$1 re=$2
	shift 2
	rm -f "$T/ran"
	timeout "$T_OP" "$PROCTORD" --dir "$T/refused-sb" "$@" -- sh -c ': >"$0"' "$T/ran" \
		>"$T/out" 2>"$T/err" </dev/null
	check_eq "$desc: exit code 2" 2 "$?"
	errors_only "$T/err"
	check_re "...one line saying why" "^proctord: $re" "$(<"$T/err")"
	check "...only one line" one_line "$T/err"
	check "...and the program did not run" test ! -e "$T/ran"
}

mkdir "$T/confdir"
refused_config "--config DIR (a directory) is refused" \
	"$T/confdir: cannot read it: Is a directory\$" --config "$T/confdir"
printf 'wall_time = 1s\0x\n' >"$T/nul.conf"
refused_config "a NUL byte in a short line of the file is named as such" \
	"$T/nul.conf:1: a NUL byte in the line \\(the file must be text\\)\$" --config "$T/nul.conf"
printf 'wall_time = 1s' >"$T/last.conf"
run_to_end --config "$T/last.conf" -- true
check_eq "...while a last line without a newline is read" "exited 0" "$ANS_STATUS"

# --- --report ------------------------------------------------------------------

# refused_report DESCRIPTION ERE ARGS...: exit 2 before the program runs,
# the line starting with "--report".
refused_report() {
	local desc=$1 re=$2
	shift 2
	refused_config "$desc" "--report $re" "$@"
}

echo victim >"$T/victim"
ln -s "$T/victim" "$T/rlink"
refused_report "--report FILE where FILE is a symbolic link is refused" \
	"$T/rlink is a symbolic link: a report replaces only a regular file of ours" --report "$T/rlink"
check_eq "...the link is left as it was" "$T/victim" "$(readlink "$T/rlink")"
check_eq "...and what it points to too" victim "$(<"$T/victim")"
mkfifo "$T/rfifo"
refused_report "--report FILE where FILE is a FIFO is refused" \
	"$T/rfifo is not a regular file" --report "$T/rfifo"
check "...and left a FIFO" is_fifo "$T/rfifo"
refused_report "--report FILE in a missing directory is a usage error found before the start" \
	"$T/nodir/r.json: cannot open $T/nodir: No such file or directory" --report "$T/nodir/r.json"
if [ "$root" = 1 ]; then
	as_nobody sh -c 'echo theirs >"$0"' "$T/sticky/report.json"
	refused_report "as root, --report FILE where FILE is nobody's is refused" \
		"$T/sticky/report.json belongs to uid $(id -u nobody), not to proctord's uid 0" \
		--report "$T/sticky/report.json"
	check_eq "...and left as it was" theirs "$(<"$T/sticky/report.json")"
else
	for i in $(seq 5); do
		skip "as root, --report FILE where FILE is nobody's ($i of 5)" "not root, or no setpriv or user nobody"
	done
fi

echo old >"$T/mine.json"
run_to_end --fsize 16777215T --report "$T/mine.json" -- true
check_eq "--report FILE replaces a regular file of ours" "exited 0" "$ANS_STATUS"
check_re "...with the report" '"version": 2' "$(<"$T/mine.json")"
check_re "...where a limit above INT64_MAX is printed exactly (--fsize 16777215T)" \
	'"fsize_bytes": 18446742974197923840,' "$(<"$T/mine.json")"
json_keep "$T/mine.json"
check "...and no temporary file is left beside it" \
	eval '[ -z "$(find "$T" -maxdepth 1 -name ".mine.json.*")" ]'

echo "before" >"$T/fd.json"
run_to_end --report /dev/fd/5 -- true 5>>"$T/fd.json"
check_re "--report /dev/fd/N writes to that descriptor in place (appended here)" \
	$'^before\n\\{\n  "cpu_us"' "$(<"$T/fd.json")"

pd_start_fg --dir "$T/dash" --report - -- true
wait_for "$T_OP" is_fifo "$T/dash/wait" && wait0 "$T/dash"
pd_reap "$PD_PID"
check_eq "--report - writes to standard output: exit code 0" 0 "$PD_EXIT"
check_re "...with the report" '^\{.*"version": 2' "$(tr '\n' ' ' <"$T/pd.$pd_seq.out")"

# $(proctord --daemonize --report /dev/fd/1 ...) would wait for the daemon,
# which holds the caller's standard output, until the program ends.
out=$(timeout "$T_OP" "$PROCTORD" --daemonize --report /dev/fd/1 -- sleep 100 2>"$T/err")
check_eq "--daemonize --report /dev/fd/1 (standard output) is refused: exit code 2" 2 "$?"
check_re "...saying why" "^proctord: --report /dev/fd/1: with --daemonize, standard output carries the directory only" "$(<"$T/err")"
check_eq "...and prints no directory" "" "$out"

done_testing
