#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Read a meson test log (meson-logs/testlog*.json, one object per line).

  testlog.py failed LOG          the tests that did not pass, "SUITE NAME" a line
  testlog.py tail LOG NAME [N]   what test NAME printed: each failed TAP check
                                 with its diagnostics, then the last N (40) lines

contrib/quickstart.sh runs a failed test once more on its own, and names the
failures again at the very end of its output with their failed checks and the end of their logs, so
that whoever reads only the end of a CI log sees what failed and why.
"""
import json
import sys

PASSED = {"OK", "SKIP", "EXPECTEDFAIL"}


def rows(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.strip()
                if line:
                    yield json.loads(line)
    except FileNotFoundError:
        return


def split(name):
    # "proctor:blackbox / wedge" -> ("proctor:blackbox", "wedge")
    suite, _, test = name.partition(" / ")
    return suite, test


def failed_checks(lines, per_check=20):
    """Each "not ok" TAP line but a TODO's, and the "#" lines after it."""
    out, keep = [], 0
    for line in lines:
        if line.startswith("not ok ") and "# TODO" not in line:
            out.append(line)
            keep = per_check
        elif keep and line.startswith("#"):
            out.append(line)
            keep -= 1
        else:
            keep = 0
    return out


def main(argv):
    if len(argv) >= 3 and argv[1] == "failed":
        for r in rows(argv[2]):
            if r.get("result") not in PASSED:
                suite, test = split(r.get("name", ""))
                print(suite, test, r.get("result"))
        return 0
    if len(argv) in (4, 5) and argv[1] == "tail":
        n = int(argv[4]) if len(argv) == 5 else 40
        for r in rows(argv[2]):
            if split(r.get("name", ""))[1] == argv[3] or r.get("name") == argv[3]:
                out = (r.get("stdout") or "").rstrip("\n").split("\n")
                err = (r.get("stderr") or "").rstrip("\n")
                if err:
                    out += ["--- stderr:"] + err.split("\n")
                failed = failed_checks(out)
                if failed:
                    # A failed check early in a long script is not in
                    # its tail, and a flake may not come back.
                    print("--- the failed checks, with their diagnostics:")
                    for line in failed:
                        print(line)
                    print("--- the last %d lines:" % n)
                for line in out[-n:]:
                    print(line)
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
