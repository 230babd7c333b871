#!/bin/bash
# SPDX-License-Identifier: ISC
# Traps for isolate users: a bare size (but 0) and KB..TB are refused, a 0 that would kill at once too.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# refused DESCRIPTION ARGS...: proctord ARGS exits 2 with one line naming
# "unlimited", and runs nothing.
refused() {
	local desc=$1
	shift
	rm -f "$T/ran"
	timeout "$T_OP" "$PROCTORD" "$@" -- touch "$T/ran" >"$T/out" 2>"$T/err" </dev/null
	check_eq "$desc: exit 2" 2 "$?"
	check_eq "...one line on stderr" 1 "$(wc -l <"$T/err")"
	check_re "...that names \"unlimited\"" 'must be above 0 .*"unlimited"' "$(<"$T/err")"
	check "...and nothing ran" test ! -e "$T/ran"
}

refused "--wall-time 0" --wall-time 0
refused "--cpu-time 0" --cpu-time 0
refused "--cpu-time 0ms" --cpu-time 0ms
refused "--memory-max 0" --memory-max 0
refused "--pids 0" --pids 0
printf '[c]\nwall_time = 0\n' >"$T/zero.conf"
refused "wall_time = 0 in the file" --config "$T/zero.conf" --profile c
check_re "...named with its file and line" "^proctord: $T/zero.conf:2: wall_time = 0: must be above 0" "$(<"$T/err")"
refused "cpu_time = 0 in --check" --check --config <(printf 'cpu_time = 0\n')

# 0 stays accepted where it means something: no grace, no file writes.
timeout "$T_OP" "$PROCTORD" --check --grace 0 --fsize 0 --output-limit 0 >"$T/out" 2>"$T/err"
check_eq "--grace 0, --fsize 0 and --output-limit 0 are accepted" "0:" "$?:$(<"$T/err")"

# The isolate habit: sizes in KiB. A bare size is refused, with the units,
# at start, in --check, in the file and through proctor run alike.
# bare DESCRIPTION [proctor run] ARGS...: exit 2 (125 for proctor run, with
# its own line after proctord's), proctord's line asking for the unit.
bare() {
	local desc=$1 rc=2 lines=1
	shift
	[ "$1" != "$PROCTOR" ] || { rc=125; lines=2; }
	rm -f "$T/ran"
	timeout "$T_OP" "$@" -- touch "$T/ran" >"$T/out" 2>"$T/err" </dev/null
	check_eq "$desc: exit $rc" "$rc" "$?"
	check_eq "...$lines line(s) on stderr" "$lines" "$(wc -l <"$T/err")"
	check_re "...that asks for the unit, isolate's KiB named" \
		"^proctord: .*a size needs its unit: B \\(bytes\\), KiB \\(isolate's unit\\)" "$(<"$T/err")"
	check "...and nothing ran" test ! -e "$T/ran"
}
bare "--check --memory-max 262144" "$PROCTORD" --check --memory-max 262144
check_re "...naming the option and its value" '^proctord: --memory-max 262144: ' "$(<"$T/err")"
bare "--memory-max 1048576 (isolate's 1 GiB)" "$PROCTORD" --memory-max 1048576
bare "--stack 262144" "$PROCTORD" --stack 262144
bare "--fsize 1000" "$PROCTORD" --fsize 1000
bare "--output-limit 100" "$PROCTORD" --output-limit 100
bare "proctor run --address-space 1000000" "$PROCTOR" run --address-space 1000000
printf '[cpp]\nstack = 65536\naddress_space = 512MiB\n' >"$T/kib.conf"
bare "a stack of 65536 in the file" "$PROCTORD" --config "$T/kib.conf" --profile cpp
check_re "...named with its file and line" "^proctord: $T/kib.conf:2: stack = 65536: " "$(<"$T/err")"

# "256mb": 256 MiB to Docker, 256 * 10^6 bytes to SI. Refused, in any case.
for v in 256mb 256MB 1GB 64kb; do
	timeout "$T_OP" "$PROCTORD" --check --memory-max "$v" >"$T/out" 2>"$T/err"
	check_re "--memory-max $v is refused (exit 2), binary or bytes asked for" \
		"^2:proctord: --memory-max $v: .*Docker.*write KiB, MiB, GiB, TiB" "$?:$(<"$T/err")"
done

timeout "$T_OP" "$PROCTORD" --check --memory-max 262144KiB --address-space 1M --stack 8MiB \
	--fsize 1000B --output-limit 0 >"$T/out" 2>"$T/err"
check_eq "sizes with their units, and a bare 0: no error, no warning" "0:" "$?:$(<"$T/err")"
check_re "...and 262144KiB is 256 MiB" $'\nmemory_max +256MiB ' "$(<"$T/out")"
run_to_end --stack 8MiB --fsize 0 -- true
check_eq "a run with --stack 8MiB --fsize 0 starts" "exited 0" "$ANS_STATUS" || ans_diag

done_testing
