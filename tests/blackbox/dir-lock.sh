#!/bin/bash
# SPDX-License-Identifier: ISC
# A start on an existing DIR waits out a client's probe of the lifetime lock instead of calling DIR in use.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

command -v flock >/dev/null || {
	skip "a client's shared lock on DIR does not make a start fail" "no flock(1)"
	done_testing
	exit 0
}

# Clients (proctor wait, libproctor) take a shared lock on DIR for an instant
# to learn whether proctord is alive; a start at that instant found the lock
# taken and exited 3 ("in use by another proctord"), about 1 start in 100
# with two `proctor wait` loops beside. Here the probe is held for 200 ms.
mkdir -m 0700 "$T/box"
rm -f "$T/held"
flock -s "$T/box" bash -c ': >"$1"; sleep 0.2' _ "$T/held" &
holder=$!
wait_for "$T_OP" test -e "$T/held"
pd_start --dir "$T/box" -- sleep 100
check_eq "a start while a client holds a shared lock on DIR for 200 ms: exit code 0" 0 "$PD_RC"
wait "$holder"
if [ "$PD_RC" = 0 ]; then
	wait0 "$T/box"
	check_eq "...and the sandbox works" "killed terminate" "$ANS_HEAD"
fi

done_testing
