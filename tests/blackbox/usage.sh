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
		"$(<"$T/err")"
	usage_error "$opt SRC: (an empty destination)" --box "$T/box" $opt "$T:" -- touch "$T/ran"
done

# isolate's options: the usual error first, then proctord's spelling, the
# value in isolate's unit.
isolate_hint() {
	local desc=$1 want=$2
	shift 2
	usage_error "isolate's $desc" "$@" -- touch "$T/ran"
	check_re "...the usual error first" "^(.*proctord: invalid option -- '.'|proctord: unknown option '--[a-z-]+')" "$(head -n 1 "$T/err")"
	check_eq "...then proctord's spelling" "proctord: $want" "$(sed -n 2p "$T/err")"
}
isolate_hint "-t 1" "-t is isolate's --time; proctord says --cpu-time 1s" -t 1
isolate_hint "-t1.5" "-t is isolate's --time; proctord says --cpu-time 1.5s" -t1.5
isolate_hint "--time=2" "--time is isolate's option; proctord says --cpu-time 2s" --time=2
isolate_hint "-w 5 after a good option" "-w is isolate's --wall-time; proctord says --wall-time 5s" \
	--cpu-time 1s -w 5
isolate_hint "-m 262144" \
	"-m is isolate's --mem; proctord says --address-space 262144KiB (isolate counts KiB; a size here needs its unit)" \
	-m 262144
isolate_hint "--mem 65536" \
	"--mem is isolate's option; proctord says --address-space 65536KiB (isolate counts KiB; a size here needs its unit)" \
	--mem 65536
isolate_hint "--cg-mem=1000" "--cg-mem is isolate's option; proctord says --memory-max 1000KiB" --cg-mem=1000
isolate_hint "-k" "-k is isolate's --stack; proctord says --stack SIZE" -k
isolate_hint "-p10" "-p is isolate's --processes; proctord says --pids 10" -p10
isolate_hint "-E FOO=1" "-E is isolate's --env; proctord says --env FOO=1" -E FOO=1
isolate_hint "-e" "-e is isolate's --full-env; proctord has none: outside a box the program gets proctord's environment; in a box, --env NAME passes one variable on" -e
isolate_hint "-M meta" "-M is isolate's --meta; proctord says --report meta (JSON)" -M meta
isolate_hint "--run" "--run is isolate's option; proctord says proctord [options] -- PROGRAM [ARGS...]" --run
isolate_hint "--cg" "--cg is isolate's option; proctord has none: it uses cgroups by default (--cgroup auto)" --cg
for o in -f -d -b -i -o -r -x -n -c --box-id --init --cleanup --processes --meta; do
	usage_error "isolate's $o" $o 1 -- touch "$T/ran"
	check_re "...names proctord's spelling" "^proctord: $o is isolate's " "$(sed -n 2p "$T/err")"
done
usage_error "an unknown option of no one's" -z -- touch "$T/ran"
check "...has no hint" eval '! grep -q "is isolate.s " "$T/err"'

timeout "$T_OP" "$PROCTORD" --help >"$T/out" 2>"$T/err" </dev/null
check_eq "--help exits 0" 0 "$?"
check "--help prints usage on stdout" grep -qi usage "$T/out"
timeout "$T_OP" "$PROCTORD" -V >"$T/out" 2>"$T/err" </dev/null
check_eq "-V exits 0" 0 "$?"
check "-V prints a version" grep -q '[0-9]\.[0-9]' "$T/out"

done_testing
