#!/bin/sh
# SPDX-License-Identifier: ISC
# proctor-entry COMMAND [ARGS...]: run COMMAND (proctord, proctor run, a
# judge) with cgroups it may write, in a container started without
# --privileged. contrib/container/README.md says why each step is there.
#
# Where /sys/fs/cgroup is a cgroup2 mount this process may write (Podman
# with --security-opt unmask=/sys/fs/cgroup), COMMAND runs as it is.
# Otherwise (a read-only mount: Docker's and Kubernetes' default, or a
# hybrid host's v1 hierarchies) COMMAND runs in user, mount and cgroup
# namespaces of its own, over a fresh cgroup2 mount (and, on a hybrid
# host, fresh memory and pids v1 mounts), which the container's root may
# write because it owns the container's cgroup. No new process: COMMAND
# keeps this one's pid (1 as a container's entry point).
# PROCTOR_ENTRY=plain skips all of it.
set -eu

# On cgroup v2, once /sys/fs/cgroup may be written: this process (the
# container's first) out of the root cgroup into "init", so that the root
# may hand controllers to the proctords' cgroups, and proctor run's
# proctord in a cgroup of its own (proctord-cgroup). Best effort: where a
# step fails, proctord --check says which limit is not enforced.
v2_setup() {
  c=/sys/fs/cgroup
  [ -w "$c/cgroup.subtree_control" ] || return 0
  if [ "$(cat /proc/self/cgroup)" = "0::/" ]; then
    mkdir -p "$c/init" && echo $$ >"$c/init/cgroup.procs" || return 0
    for k in memory pids cpu; do
      echo "+$k" >"$c/cgroup.subtree_control" 2>/dev/null || :
    done
  fi
  if [ -z "${PROCTORD:-}" ] && command -v proctord-cgroup >/dev/null; then
    PROCTORD=$(command -v proctord-cgroup)
    export PROCTORD
  fi
}

if [ $# -eq 0 ]; then
  echo "usage: proctor-entry COMMAND [ARGS...]" >&2
  exit 2
fi

if [ "${PROCTOR_ENTRY:-}" = inside ]; then
  unset PROCTOR_ENTRY
  # cgroup2 cannot be mounted on top of its own mount: a tmpfs first.
  mount -t tmpfs -o mode=0755 proctor-cgroup /sys/fs/cgroup
  if grep -qw cgroup2 /proc/filesystems; then
    mkdir -p /sys/fs/cgroup/unified
  fi
  v1=$(awk '$1 == "memory" || $1 == "pids" { if ($4 == 1 && $2 != 0) print $1 }' /proc/cgroups)
  if [ -z "$v1" ]; then
    # Pure v2: the cgroup2 mount is /sys/fs/cgroup itself.
    umount /sys/fs/cgroup
    mount -t cgroup2 none /sys/fs/cgroup
  else
    mount -t cgroup2 none /sys/fs/cgroup/unified
    for c in $v1; do
      mkdir -p "/sys/fs/cgroup/$c"
      mount -t cgroup -o "$c" none "/sys/fs/cgroup/$c"
    done
  fi
  v2_setup
  exec "$@"
fi

if [ "${PROCTOR_ENTRY:-}" != plain ] && ! [ -w /sys/fs/cgroup/cgroup.procs ]; then
  if unshare --user --map-root-user --mount --cgroup true 2>/dev/null; then
    PROCTOR_ENTRY=inside exec unshare --user --map-root-user --mount --cgroup \
      sh "$0" "$@"
  fi
  echo "proctor-entry: cannot make the namespaces for a cgroup mount of" \
    "our own (unshare: seccomp or AppArmor?); cgroup limits may not be" \
    "enforced: proctord --check says which" >&2
fi
unset PROCTOR_ENTRY
v2_setup
exec "$@"
