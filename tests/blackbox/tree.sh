#!/bin/bash
# SPDX-License-Identifier: ISC
# No process of the tree survives the end: background, setsid and double-forked descendants included.
# The helpers need bash; "sh file.sh" must work too.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# start_tree NAME [OPTIONS...] -- [exit]: run the tree helper, wait until all
# its sleepers hold their shared lock on $T/NAME.lock.
start_tree() {
	local name=$1
	shift
	local opts=()
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	pd_start --dir "$T/$name" "${opts[@]}" -- "$PROGS/tree" "$T/$name.lock" "$T/$name.ready" "$@"
	wait_for "$T_OP" test -e "$T/$name.ready"
}

# Every kind of descendant dies, with a cgroup (cgroup.kill or freezer, and
# cgroup.events; v1 alone: freeze, kill, thaw) and without (a /proc walk
# from the subreaper).
for mode in auto v1 none; do
	# Terminating wait.
	start_tree term$mode --cgroup "$mode" --
	# Without this the proof below could not fail.
	check "[$mode] the running tree holds the lock" lock_held "$T/term$mode.lock"
	wait0 "$T/term$mode"
	check_eq "[$mode] the terminating wait kills the tree: killed terminate" "killed terminate" "$ANS_HEAD" || ans_diag
	check "[$mode] no process of the tree is left after the terminating wait" lock_free "$T/term$mode.lock"

	# Wall-time kill.
	start_tree wall$mode --cgroup "$mode" --wall-time 500ms --
	check "[$mode] the running tree holds the lock" lock_held "$T/wall$mode.lock"
	pd_poll "$T/wall$mode"
	check_eq "[$mode] the wall-time limit kills the tree: killed wall-time" "killed wall-time" "$ANS_HEAD" || ans_diag
	check "[$mode] no process of the tree is left after the wall-time kill" lock_free "$T/wall$mode.lock"
	wait0 "$T/wall$mode"

	# The main process exits and leaves its descendants behind: the sandbox is
	# over, so they are killed and the figures freeze.
	start_tree exit$mode --cgroup "$mode" -- exit
	pd_poll "$T/exit$mode"
	check_eq "[$mode] a main process that exits leaving descendants is exited 0" "exited 0" "$ANS_STATUS" || ans_diag
	check "[$mode] the descendants it left are killed" lock_free "$T/exit$mode.lock"
	check_eq "[$mode] memory is 0 although descendants were left" 0 "$ANS_MEM"
	wait0 "$T/exit$mode"
done

# A wide tree (the /proc walk, so no cgroup): 2000 children make a children list of about 10 KB, beyond
# what one small read returns. Every one of them dies, and nothing outside
# the tree is touched (a cut-off list once turned "1886" into pid 18).
sleep 1000 &
outsider=$!
sb="$T/wide"
pd_start --dir "$sb" --cgroup none -- "$PROGS/forkn" 2000 "$T/wide.lock" "$T/wide.ready"
wait_for 60 test -e "$T/wide.ready"
wait1 "$sb"
check_range "2000 sleeping children are counted in the memory figure (over 100 MiB)" \
	$((100 << 20)) $((1 << 40)) "${ANS_MEM:-0}"
wait0 "$sb"
check_eq "the terminating wait ends the wide tree" "killed terminate" "$ANS_HEAD"
check "...with none of the 2000 children left (the lock is free)" \
	flock -x -w 5 "$T/wide.lock" true
check "...and a process outside the tree untouched" kill -0 "$outsider"
kill "$outsider" 2>/dev/null

done_testing
