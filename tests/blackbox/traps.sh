#!/bin/bash
# SPDX-License-Identifier: ISC
# Traps for isolate users: a bare size below 1 MiB is a warning, a 0 that would kill at once is refused.
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
	check_re "...that names \"unlimited\"" 'must be above 0 .*"unlimited"' "$(cat "$T/err")"
	check "...and nothing ran" test ! -e "$T/ran"
}

refused "--wall-time 0" --wall-time 0
refused "--cpu-time 0" --cpu-time 0
refused "--cpu-time 0ms" --cpu-time 0ms
refused "--memory-max 0" --memory-max 0
refused "--pids 0" --pids 0
printf '[c]\nwall_time = 0\n' >"$T/zero.conf"
refused "wall_time = 0 in the file" --config "$T/zero.conf" --profile c
check_re "...named with its file and line" "^proctord: $T/zero.conf:2: wall_time = 0: must be above 0" "$(cat "$T/err")"
refused "cpu_time = 0 in --check" --check --config <(printf 'cpu_time = 0\n')

# 0 stays accepted where it means something: no grace, no file writes.
timeout "$T_OP" "$PROCTORD" --check --grace 0 --fsize 0 --output-limit 0 >"$T/out" 2>"$T/err"
check_eq "--grace 0, --fsize 0 and --output-limit 0 are accepted" "0:" "$?:$(cat "$T/err")"

# The isolate habit: sizes in KiB. One warning line, at start and in --check.
timeout "$T_OP" "$PROCTORD" --check --memory-max 262144 >"$T/out" 2>"$T/err"
check_eq "--check --memory-max 262144 still exits 0" 0 "$?"
check_eq "...with one line on stderr" 1 "$(wc -l <"$T/err")"
check_re "...that suggests KiB" \
	'^proctord: warning: memory_max = 262144 bytes \(command line\) is below 1 MiB: .*did you mean 262144KiB\?$' \
	"$(cat "$T/err")"
check "...and the table on stdout is left alone" grep -q '^memory_max ' "$T/out"

printf '[cpp]\nstack = 65536\naddress_space = 512MiB\n' >"$T/kib.conf"
timeout "$T_OP" "$PROCTORD" --check --config "$T/kib.conf" --profile cpp >"$T/out" 2>"$T/err"
check_re "a stack of 65536 in the file: a warning with its file and line" \
	"^proctord: warning: stack = 65536 bytes \\($T/kib.conf:2 \\[cpp\\]\\) is below 1 MiB.*did you mean 65536KiB\\?\$" \
	"$(cat "$T/err")"

run_to_end --stack 262144 -- true
check_eq "a run with --stack 262144 starts" "exited 0" "$ANS_STATUS" || ans_diag
check_re "...after a warning on proctord's stderr" \
	'^proctord: warning: stack = 262144 bytes .*did you mean 262144KiB\?$' "$(cat "$PD_ERR")"

out=$(timeout "$T_OP" "$PROCTOR" run --address-space 1000000 -- true 2>&1)
check_re "proctor run passes the warning on" 'warning: address_space = 1000000 bytes .*did you mean 1000000KiB\?' "$out"

timeout "$T_OP" "$PROCTORD" --check --memory-max 1MiB --address-space 1M --stack 8MiB \
	--fsize 1M >"$T/out" 2>"$T/err"
check_eq "1 MiB and more: no warning" "0:" "$?:$(cat "$T/err")"

done_testing
