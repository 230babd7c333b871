# SPDX-License-Identifier: ISC
"""Example interactive evaluator: talks to a program under proctord line by line and reports the CPU time of each section."""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import proctor


def evaluate(program, lines=1000, sections=4, proctord="proctord", grace="50ms", wall_time="10s",
             options=(), memory_max=None):
    """Run PROGRAM, send it LINES lines in SECTIONS sections, expect each echoed back.

    OPTIONS are more proctord options (["--output-limit", "1MiB", "--seccomp"]).
    MEMORY_MAX, if given, is --memory-max: an int of bytes or a str with its
    unit (proctor.size(); a bare "262144" is refused, as proctord does).
    Returns (rows, verdict): one (section, lines, cpu_us, memory_bytes, ok)
    row per section, and the Result of the terminating wait.
    """
    if memory_max is not None:
        options = ("--memory-max", proctor.size(memory_max), *options)
    work = tempfile.mkdtemp(prefix="proctor-eval.")
    try:
        box = os.path.join(work, "box")
        to_prog, from_prog = os.path.join(work, "in"), os.path.join(work, "out")
        os.mkfifo(to_prog, 0o600)
        os.mkfifo(from_prog, 0o600)
        # --daemonize returns once the program is started, not once it has
        # opened its FIFOs: the program opens them in its set-up, after this.
        # The wall-time limit also bounds our readline(): a program that hangs
        # is killed, its end of the FIFO closes, and we read end of file.
        subprocess.run([proctord, "--daemonize", "--dir", box, "--grace", grace, "--wall-time", wall_time,
                        "--stdin", to_prog, "--stdout", from_prog, *options, "--", *program],
                       stdout=subprocess.DEVNULL, check=True)
        # Open our ends in the order the program opens its own (stdin, then
        # stdout), or both sides block for ever in open(). (With
        # --output-limit proctord opens the stdout FIFO, without blocking:
        # the order then does not matter.)
        w = open(to_prog, "w", buffering=1)      # line-buffered: one line, one write
        r = open(from_prog, "r")
        rows, sent = [], 0
        for s in range(sections):
            n = lines * (s + 1) // sections - sent
            # A section's CPU is the difference of two readings; the program
            # is blocked on its input at both, so nothing is in flight.
            before = proctor.wait(box)
            ok = True
            for i in range(sent, sent + n):
                try:
                    w.write("line %d\n" % i)
                except BrokenPipeError:     # the program has ended
                    ok = False
                    break
                ok = r.readline() == "line %d\n" % i and ok
            after = proctor.wait(box)
            rows.append((s + 1, n, after.cpu_us - before.cpu_us, after.memory_bytes, ok))
            sent += n
        # Closing its input lets the program end by itself in the grace
        # period, so the verdict is "exited 0" rather than "killed terminate".
        try:
            w.close()
        except BrokenPipeError:             # it has ended: nothing more to say to it
            pass
        verdict = proctor.wait(box, terminate=True)
        r.close()
        return rows, verdict
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--proctord", default=os.environ.get("PROCTORD", "proctord"))
    ap.add_argument("--lines", type=int, default=1000)
    ap.add_argument("--sections", type=int, default=4)
    ap.add_argument("--option", action="append", default=[], metavar="OPT",
                    help="pass OPT to proctord (repeatable): --option=--output-limit=1MiB --option=--seccomp")
    ap.add_argument("program", nargs="+", help="the program and its arguments (after --)")
    args = ap.parse_args()
    rows, verdict = evaluate(args.program, args.lines, args.sections, args.proctord, options=args.option)
    print("%-8s %6s %10s %12s %s" % ("section", "lines", "cpu_us", "memory", "answers"))
    for s, n, cpu, mem, ok in rows:
        print("%-8d %6d %10d %12d %s" % (s, n, cpu, mem, "ok" if ok else "WRONG"))
    print("total cpu_us %d" % verdict.cpu_us)
    print("verdict: %s" % verdict.status)
    return 0 if all(row[4] for row in rows) and verdict.head == "exited 0" else 1


if __name__ == "__main__":
    sys.exit(main())
