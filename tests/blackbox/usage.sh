#!/bin/bash
# SPDX-License-Identifier: ISC
# Usage errors exit 2 with a message, and run nothing.
# The helpers need bash; "sh file.sh" must work too.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# usage_error DESCRIPTION ARGS...: proctord ARGS must exit 2, say why on
# stderr, create no sandbox and not run the program (which would create $T/ran).
usage_error() {
	local desc=$1
	shift
	timeout "$T_OP" "$PROCTORD" "$@" >"$T/out" 2>"$T/err" </dev/null
	check_eq "$desc: exit code 2" 2 "$?"
	check "$desc: a message on stderr" test -s "$T/err"
	check "$desc: nothing is run or created" eval '[ ! -e "$T/ran" ] && [ -z "$(ls -A "$XDG_RUNTIME_DIR")" ]'
}

usage_error "unknown option" --frobnicate -- touch "$T/ran"
usage_error "bad duration --cpu-time 5parsecs" --cpu-time 5parsecs -- touch "$T/ran"
usage_error "bad size --fsize 12XB" --fsize 12XB -- touch "$T/ran"
usage_error "bad count --nofile many" --nofile many -- touch "$T/ran"
usage_error "option without its value" --cpu-time
usage_error "no program" --cpu-time 1s
usage_error "no program after --" --wall-time 1s --

# A bind's destination without its leading /: nowhere in the box, so refused
# at once, the option and its value named (no box is made: no root needed).
mkdir "$T/box"
for opt in --ro-bind --bind; do
	usage_error "$opt SRC:relative" --box "$T/box" $opt "$T:rel" -- touch "$T/ran"
	check_eq "...saying the destination must be absolute inside the box" \
		"proctord: $opt $T:rel: the destination after ':' must be an absolute path inside the box, such as /data" \
		"$(cat "$T/err")"
	usage_error "$opt SRC: (an empty destination)" --box "$T/box" $opt "$T:" -- touch "$T/ran"
done

timeout "$T_OP" "$PROCTORD" --help >"$T/out" 2>"$T/err" </dev/null
check_eq "--help exits 0" 0 "$?"
check "--help prints usage on stdout" grep -qi usage "$T/out"
timeout "$T_OP" "$PROCTORD" -V >"$T/out" 2>"$T/err" </dev/null
check_eq "-V exits 0" 0 "$?"
check "-V prints a version" grep -q '[0-9]\.[0-9]' "$T/out"

done_testing
