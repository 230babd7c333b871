#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Write the seccomp profile a proctor container runs under.

usage: proctor-seccomp.py DEFAULT.json > proctor.json

DEFAULT.json is the runtime's own default profile (Podman:
/usr/share/containers/seccomp.json; Docker: profiles/seccomp/default.json of
its release; containerd and CRI-O: theirs). The result is that profile with
the system calls of ADDED taken out of every rule that names them (rules that
refuse them, or allow them only with CAP_SYS_ADMIN or some arguments) and
allowed by one rule of their own. Nothing else changes. Why each is there:
contrib/container/README.md.
"""
import json
import sys

# What proctord's --box and the cgroup mount of the recipes need, and
# nothing more (README.md, "The seccomp profile").
ADDED = ["unshare", "setns", "mount", "umount2", "pivot_root",
         "sethostname"]


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr if len(argv) != 2 else sys.stdout)
        return 0 if len(argv) == 2 else 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            profile = json.load(f)
    except (OSError, ValueError) as e:
        print(f"proctor-seccomp.py: {argv[1]}: {e}", file=sys.stderr)
        return 1
    rules = profile.get("syscalls") if isinstance(profile, dict) else None
    if not isinstance(rules, list) or "defaultAction" not in profile:
        print(f"proctor-seccomp.py: {argv[1]}: not an OCI seccomp profile "
              "(no defaultAction or syscalls)", file=sys.stderr)
        return 1
    kept = []
    for rule in rules:
        names = [n for n in rule.get("names", []) if n not in ADDED]
        if names:
            kept.append(dict(rule, names=names))
    kept.append({"names": ADDED, "action": "SCMP_ACT_ALLOW",
                 "comment": "proctor: the box's namespaces, mounts, host "
                            "name and session key ring (contrib/container)"})
    profile["syscalls"] = kept
    json.dump(profile, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
