#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Turn the JSON of one or more benchmark runs into the README's Markdown table.

    build/tests/bench/bench --json run1.json; ... (three runs, say)
    python3 tests/bench/table.py run1.json run2.json run3.json

Every number that differs between the runs becomes a range "low–high", or,
from three runs on, "median (low–high)" (the middle run's value; with an even
number of runs, the upper of the two middle ones); a target's result is PASS
when every run passed it, else "MISS (k of n)".
"""
import json
import re
import sys

NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?")


def merge(texts):
    """One text whose numbers are ranges over the runs' texts."""
    skeletons = {NUMBER.sub("#", t) for t in texts}
    if len(skeletons) != 1:
        return " / ".join(dict.fromkeys(texts))
    columns = list(zip(*(NUMBER.findall(t) for t in texts)))
    parts = NUMBER.split(texts[0])
    out = parts[0]
    for i, values in enumerate(columns):
        ordered = sorted(values, key=float)
        lo, hi = ordered[0], ordered[-1]
        # "-0.13 to -0.12" reads better than "-0.13–-0.12".
        dash = " to " if lo.startswith("-") or hi.startswith("-") else "–"
        if float(lo) == float(hi):
            out += lo
        elif len(values) >= 3:
            out += f"{ordered[len(ordered) // 2]} ({lo}{dash}{hi})"
        else:
            out += f"{lo}{dash}{hi}"
        out += parts[i + 1]
    return out


def result(texts):
    texts = [t for t in texts if t]
    if not texts:
        return ""
    misses = sum(t != "PASS" for t in texts)
    if misses == 0:
        return "PASS"
    return f"MISS ({misses} of {len(texts)})" if len(texts) > 1 else texts[0]


def main(paths):
    runs = [json.load(open(p, encoding="utf-8")) for p in paths]
    figures = [r["figure"] for r in runs[0]["rows"]]
    print("| figure | proctord | reference, same run | ratio | target | result |")
    print("| --- | ---: | --- | ---: | --- | --- |")
    for i, fig in enumerate(figures):
        rows = [run["rows"][i] for run in runs if i < len(run["rows"])]
        if any(r["figure"] != fig for r in rows):
            sys.exit(f"table.py: the runs do not have the same figures ({fig})")
        cells = [merge([r[k] for r in rows]) for k in ("value", "reference", "ratio")]
        print(f"| {fig} | {cells[0]} | {cells[1]} | {cells[2]} | "
              f"{rows[0]['target']} | {result([r['result'] for r in rows])} |")
    print()
    print(f"{runs[0]['machine']}; load average at the start of each run: "
          + ", ".join(r["load_start"] for r in runs) + ".")
    if runs[0].get("cgroups"):
        print(f"proctord's figures: {runs[0]['cgroups']}.")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: table.py RUN.json...")
    main(sys.argv[1:])
