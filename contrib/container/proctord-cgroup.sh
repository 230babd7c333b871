#!/bin/sh
# SPDX-License-Identifier: ISC
# proctord-cgroup ARGS...: proctord in a cgroup of its own, for proctor
# run (PROCTORD=/usr/local/bin/proctord-cgroup, which proctor-entry sets on
# cgroup v2). proctor run and its proctord would otherwise share a cgroup,
# and cgroup v2 hands controllers only to a cgroup without processes:
# alone, proctord moves itself into a leaf and gives the sandbox memory,
# pids and cpu. The cgroups of proctords that have ended are removed here
# (rmdir fails on a cgroup still in use).
for old in /sys/fs/cgroup/proctord.*; do
  [ -d "$old" ] || continue
  rmdir "$old/proctord" "$old" 2>/dev/null || :
done
d=/sys/fs/cgroup/proctord.$$
if mkdir "$d" 2>/dev/null && ! echo $$ >"$d/cgroup.procs"; then
  rmdir "$d"
fi
exec proctord "$@"
