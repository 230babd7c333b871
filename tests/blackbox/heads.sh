#!/bin/bash
# SPDX-License-Identifier: ISC
# How a program ended is reported with the right status head: exited, signaled, failed exec.
# The helpers need bash; "sh file.sh" must work too.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# Only the head is the contract; the text after ": " may vary.
# expect_head NAME HEAD_ERE PROGRAM ARGS...
expect_head() {
	local name=$1 re=$2 sb="$T/sb.$1"
	shift 2
	pd_start --dir "$sb" -- "$@"
	pd_poll "$sb"
	check_re "$name: reported as ${re}" "^$re(: .*)?\$" "$ANS_STATUS" || ans_diag
	check_eq "$name: memory is 0 once it has ended" 0 "$ANS_MEM"
	wait0 "$sb"
	check_re "$name: the terminating wait keeps the head" "^$re(: .*)?\$" "$ANS_STATUS" || ans_diag
}

cp "$PROGS/crash" "$T/not-executable"
chmod 0644 "$T/not-executable"

expect_head "exit 0" "exited 0" "$PROGS/crash" exit 0
expect_head "exit 3" "exited 3" "$PROGS/crash" exit 3
expect_head "segfault" "signaled SIGSEGV" "$PROGS/crash" segv
expect_head "abort" "signaled SIGABRT" "$PROGS/crash" abort
expect_head "missing program" "failed exec" "$T/no-such-program"
expect_head "file of mode 0644" "failed exec" "$T/not-executable"

done_testing
