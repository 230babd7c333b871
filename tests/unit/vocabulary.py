#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The protocol's vocabulary, spelled in five places, agrees everywhere.

The status heads, the kill reasons (with whether this version emits them) and
the failure stages: the C table (src/common/proto.c, printed by the
proto-table program), the tables of proto/PROTOCOL.md section 6, the lists of
the Python client (contrib/python/proctor.py), the JSON schema
(proto/report.schema.json) and the head regex of tests/blackbox/lib.sh.
TAP output.

    vocabulary.py PROTO_TABLE_PROGRAM SOURCE_ROOT
"""
import json
import os
import re
import subprocess
import sys

table_prog, root = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(root, "contrib", "python"))
import proctor  # noqa: E402

checks = []


def check(name, got, want):
    checks.append((name, got == want, got, want))


# The C side.
c_heads, c_reasons, c_stages = [], {}, []
for line in subprocess.run([table_prog], check=True, capture_output=True,
                           text=True).stdout.splitlines():
    kind, word, *rest = line.split()
    if kind == "head":
        c_heads.append(word)
    elif kind == "reason":
        c_reasons[word] = rest[0] == "yes"
    else:
        c_stages.append(word)


# PROTOCOL.md: the rows of the table whose header row starts with COLUMN.
def md_table(text, column):
    rows, inside = [], False
    for line in text.splitlines():
        if line.startswith("| " + column + " |"):
            inside = True
            continue
        if inside:
            if not line.startswith("|"):
                break
            cells = [c.strip() for c in line.strip("|").split("|")]
            if cells[0].startswith("---"):
                continue
            rows.append(cells)
    return rows


with open(os.path.join(root, "proto", "PROTOCOL.md"), encoding="utf-8") as f:
    md = f.read()
md_heads = [re.match(r"`([a-z]+)", r[0]).group(1) for r in md_table(md, "head")]
md_reasons = {r[0].strip("`"): r[2] == "yes" for r in md_table(md, "REASON")}
md_stages = [r[0].strip("`") for r in md_table(md, "STAGE")]

check("PROTOCOL.md heads = C heads", md_heads, c_heads)
check("PROTOCOL.md reasons (and which are emitted) = C reasons", md_reasons, c_reasons)
check("PROTOCOL.md stages = C stages", md_stages, c_stages)
check("proctor.py KINDS = C heads", list(proctor.KINDS), c_heads)
check("proctor.py KILL_REASONS = C reasons", sorted(proctor.KILL_REASONS), sorted(c_reasons))
check("proctor.py FAILURE_STAGES = C stages", list(proctor.FAILURE_STAGES), c_stages)

# proto/report.schema.json: the status object's kinds, reasons and stages.
with open(os.path.join(root, "proto", "report.schema.json"), encoding="utf-8") as f:
    status = json.load(f)["$defs"]["status"]["properties"]
check("report.schema.json kinds = C heads", status["kind"]["enum"], c_heads)
check("report.schema.json reasons = C reasons", sorted(status["reason"]["examples"]), sorted(c_reasons))
check("report.schema.json stages = C stages", status["stage"]["examples"], c_stages)

# lib.sh's HEAD_RE: the emitted reasons and the stages.
with open(os.path.join(root, "tests", "blackbox", "lib.sh"), encoding="utf-8") as f:
    head_re = re.search(r"^HEAD_RE='(.*)'$", f.read(), re.M).group(1)
check("lib.sh HEAD_RE killed reasons = C emitted reasons",
      sorted(re.search(r"killed \(([^)]*)\)", head_re).group(1).split("|")),
      sorted(w for w, emitted in c_reasons.items() if emitted))
check("lib.sh HEAD_RE failed stages = C stages",
      sorted(re.search(r"failed \(([^)]*)\)", head_re).group(1).split("|")), sorted(c_stages))

print("1..%d" % len(checks))
for i, (name, ok, got, want) in enumerate(checks, 1):
    print("%s %d - %s" % ("ok" if ok else "not ok", i, name))
    if not ok:
        print("#   got:  %r\n#   want: %r" % (got, want))
sys.exit(0 if all(ok for _, ok, _, _ in checks) else 1)
