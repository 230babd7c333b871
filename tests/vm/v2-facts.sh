#!/bin/bash
# SPDX-License-Identifier: ISC
# What the cgroup v2 VM must provide before proctord's cgroup tests mean
# anything: one unified hierarchy, delegated memory and pids controllers, and
# limits that the kernel enforces. Run by tests/vm/run-v2.sh inside the VM; on
# another machine it fails, and says which fact does not hold.
#
# It does what a delegated service does to get child cgroups: a cgroup that
# holds processes cannot pass controllers on, so it first moves its own
# processes into a leaf, then enables the controllers for its children.
# shellcheck disable=SC2016 # single-quoted $ is for a child shell
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/blackbox/lib.sh
. "$(dirname "$0")/../blackbox/lib.sh"

if [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" != cgroup2fs ]; then
  echo "Bail out! /sys/fs/cgroup is not a cgroup2 file system: this is not a pure cgroup v2 machine"
  exit 1
fi
check_eq "no cgroup v1 hierarchy is mounted" 0 "$(grep -c '^[^ ]* [^ ]* cgroup ' /proc/mounts)"

self=$(cat /proc/self/cgroup)
check_re "/proc/self/cgroup is a single 0:: line" '^0::/[^'$'\n'']*$' "$self"
cg=/sys/fs/cgroup${self#0::}
check "the suite runs outside the root cgroup" test "$cg" != /sys/fs/cgroup/
controllers=" $(cat "$cg/cgroup.controllers" 2>/dev/null) "
check_re "the suite's cgroup has the memory controller" ' memory ' "$controllers"
check_re "the suite's cgroup has the pids controller" ' pids ' "$controllers"
check_re "the suite's cgroup has the cpu controller" ' cpu ' "$controllers"

# Move every process of the suite's cgroup (this shell, alone) into a leaf.
mkdir "$cg/leaf"
while read -r pid; do
  echo "$pid" >"$cg/leaf/cgroup.procs" 2>/dev/null
done <"$cg/cgroup.procs"
check_eq "the suite's cgroup is emptied into a leaf" "" "$(<"$cg/cgroup.procs")"
check "memory, pids and cpu can be enabled for its children" \
  sh -c 'echo "+memory +pids +cpu" >"$1/cgroup.subtree_control"' _ "$cg"

child=$cg/child
mkdir "$child"
for f in memory.max memory.peak memory.events pids.max pids.current cgroup.kill; do
  check "a child cgroup has $f" test -f "$child/$f"
done

# in_child COMMAND...: run COMMAND in the child cgroup (under a timeout).
in_child() {
  timeout "$T_OP" bash -c 'echo "$BASHPID" >"$1/cgroup.procs" && shift && exec "$@"' _ "$child" "$@"
}

# memory.max: 300 MiB of touched memory in a 100 MiB cgroup, no swap.
echo 100M >"$child/memory.max"
[ ! -f "$child/memory.swap.max" ] || echo 0 >"$child/memory.swap.max"
mkfifo "$T/go"
# In a subshell, so that its "Killed" goes to the file and not into the TAP.
(in_child "$PROGS/hold" 300 "$T/ready" "$T/go") 2>"$T/hold.err"
check_eq "300 MiB in a cgroup with memory.max 100M is killed by SIGKILL" 137 "$?" || diag "$(<"$T/hold.err")"
check "...before it has touched all of it" test ! -e "$T/ready"
check_eq "...and memory.events counts one OOM kill" "oom_kill 1" "$(grep '^oom_kill ' "$child/memory.events")"
check_range "memory.peak is 90..100 MiB" $((90 << 20)) $((100 << 20)) "$(<"$child/memory.peak")"

# pids.max: forkn itself and 3 children fill pids.max 4, the 4th fork fails.
echo 4 >"$child/pids.max"
in_child "$PROGS/forkn" 10 "$T/lock" "$T/forkn.ready" 2>"$T/forkn.err"
check_eq "forkn 10 in a cgroup with pids.max 4 fails" 1 "$?" || diag "$(<"$T/forkn.err")"
check_re "...on fork, with EAGAIN" '^fork: Resource temporarily unavailable' "$(<"$T/forkn.err")"
check_re "...and pids.events counts it" '^max [1-9]' "$(<"$child/pids.events")"
check_eq "its 3 children are left in the cgroup" 3 "$(<"$child/pids.current")"

# cgroup.kill ends them all at once.
child_empty() { grep -qx 'populated 0' "$child/cgroup.events"; }
echo 1 >"$child/cgroup.kill"
check "cgroup.kill empties the cgroup" wait_for "$T_OP" child_empty
check "...which can then be removed" rmdir "$child"

done_testing
