#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""CMS's own sandbox code on proctor-isolate, outside CI.

Drives cms/grading/Sandbox.py and cms/grading/steps/ of a CMS checkout
(CMS_SRC, a directory) with proctor-isolate as `isolate` on the PATH: a
Batch task's C and C++ solutions compiled by compilation_step with the
command lines of CMS's own language classes (C11 / gcc, C++17 / g++),
then evaluated by evaluation_step and judged by white_diff_step, right,
wrong, too slow, out of memory, crashing and exiting non-zero; then a Communication task's
evaluation as Communication.py runs it (a manager and two users through
FIFOs). Only CMS's database and configuration layers are stood in for (a
FileCacher that is never used, the configuration's defaults): everything
that builds the isolate command lines and reads the meta files is CMS's.

    CMS_SRC=/path/to/cms PROCTOR_ISOLATE=build/src/proctor-isolate \\
        python3 tests/compat/cms-sandbox.py      (as root)

Prints TAP; skips (1..0) without CMS_SRC or when not root.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
CMS_SRC = os.environ.get("CMS_SRC", "")

if not CMS_SRC or not os.path.isfile(os.path.join(CMS_SRC, "cms/grading/Sandbox.py")):
    print("1..0 # SKIP set CMS_SRC to a CMS checkout (cms/grading/Sandbox.py)")
    sys.exit(0)
if os.geteuid() != 0:
    print("1..0 # SKIP needs root (proctor-isolate runs as root, as isolate under sudo)")
    sys.exit(0)

ISO = os.path.abspath(os.environ.get(
    "PROCTOR_ISOLATE", os.path.join(HERE, "../../build/src/proctor-isolate")))
work = tempfile.mkdtemp(prefix="cms-compat.")
os.chmod(work, 0o711)

# The stand-ins: CMS's configuration (the defaults of cms/conf.py) and a
# FileCacher the steps below never call.
STUBS = {
    "cms/__init__.py": """
        import shutil, types
        rmtree = shutil.rmtree
        config = types.SimpleNamespace(
            global_=types.SimpleNamespace(temp_dir=%r),
            sandbox=types.SimpleNamespace(
                max_file_size=1024 * 1024,
                compilation_sandbox_max_processes=1000,
                compilation_sandbox_max_time_s=10.0,
                compilation_sandbox_max_memory_kib=512 * 1024,
                trusted_sandbox_max_processes=1000,
                trusted_sandbox_max_time_s=10.0,
                trusted_sandbox_max_memory_kib=4 * 1024 * 1024))
    """ % work,
    "cms/db/__init__.py": "",
    "cms/db/filecacher.py": "class FileCacher:\n    pass\n",
    "cms/grading/__init__.py":
        "from .language import Language, CompiledLanguage\n",
}
tree = os.path.join(work, "py")
for path, text in STUBS.items():
    os.makedirs(os.path.dirname(os.path.join(tree, path)), exist_ok=True)
    with open(os.path.join(tree, path), "w") as f:
        f.write(textwrap.dedent(text))
# CMS's own code, as it is in the checkout.
for path in ("cms/grading/Sandbox.py", "cms/grading/steps", "cmscommon",
             "cms/grading/language.py", "cms/grading/languages"):
    dst = os.path.join(tree, path)
    if os.path.isdir(os.path.join(CMS_SRC, path)):
        shutil.copytree(os.path.join(CMS_SRC, path), dst)
    else:
        shutil.copy(os.path.join(CMS_SRC, path), dst)
# cmscommon/__init__.py may import more than commands.py needs.
open(os.path.join(tree, "cmscommon/__init__.py"), "w").close()
sys.path.insert(0, tree)

# isolate on the PATH is proctor-isolate, with its boxes under work.
bindir = os.path.join(work, "bin")
os.mkdir(bindir)
os.symlink(ISO, os.path.join(bindir, "isolate"))
os.environ["PATH"] = bindir + ":" + os.environ["PATH"]
with open(os.path.join(work, "isolate.conf"), "w") as f:
    f.write("box_root = %s/boxes\nlock_root = %s/locks\nfirst_uid = 62000\n"
            "first_gid = 62000\nnum_boxes = 100\n" % (work, work))
os.environ["PROCTOR_ISOLATE_CONFIG"] = os.path.join(work, "isolate.conf")

from cms.grading.Sandbox import Sandbox, wait_without_std  # noqa: E402
from cms.grading.steps import (compilation_step, evaluation_step,  # noqa: E402
                               white_diff_step)
from cms.grading.steps.evaluation import (  # noqa: E402
    evaluation_step_after_run, evaluation_step_before_run,
    human_evaluation_message)
from cms.grading.languages.c11_gcc import C11Gcc  # noqa: E402
from cms.grading.languages.cpp17_gpp import Cpp17Gpp  # noqa: E402

n = 0
failed = 0


def check(what, want, got):
    global n, failed
    n += 1
    if want == got:
        print("ok %d - %s" % (n, what))
    else:
        failed += 1
        print("not ok %d - %s\n# want: %r\n# got:  %r" % (n, what, want, got))


SOLUTION = r"""
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
    long a, b;
    if (scanf("%ld %ld", &a, &b) != 2) return 5;
    if (a == 1) printf("%ld\n", a + b + 1);          /* wrong */
    else if (a == 2) for (volatile long i = 0;; i++) ; /* too slow */
    else if (a == 3) { size_t n = 512u << 20; char *p = malloc(n);
        for (size_t i = 0; p && i < n; i += 4096) p[i] = 1; }
    else if (a == 4) raise(SIGSEGV);
    else if (a == 5) return 3;
    printf("%ld\n", a + b);
    return 0;
}
"""

SOLUTION_CPP = r"""
#include <csignal>
#include <cstddef>
#include <iostream>
#include <vector>
int main() {
    long a, b;
    if (!(std::cin >> a >> b)) return 5;
    if (a == 1) std::cout << a + b + 1 << std::endl;        // wrong
    else if (a == 2) for (volatile long i = 0;; i++) ;    // too slow
    else if (a == 3) { std::vector<char> v(512u << 20);
        for (std::size_t i = 0; i < v.size(); i += 4096) v[i] = 1; }
    else if (a == 4) std::raise(SIGSEGV);
    else if (a == 5) return 3;
    std::cout << a + b << std::endl;
    return 0;
}
"""

CASES = [  # input, exit status, outcome of white_diff_step, contestant's message
    ("10 32", Sandbox.EXIT_OK, 1.0, []),
    ("1 41", Sandbox.EXIT_OK, 0.0, []),
    ("2 0", Sandbox.EXIT_TIMEOUT, None, ["Execution timed out"]),
    ("3 0", Sandbox.EXIT_MEM_LIMIT, None, ["Memory limit exceeded"]),
    ("4 0", Sandbox.EXIT_SIGNAL, None, ["Execution killed by signal"]),
    ("5 0", Sandbox.EXIT_NONZERO_RETURN, None, ["Execution failed because the return code was nonzero"]),
]


def batch(language, source, text):
    """Compile with the language's own command line, then run the cases."""
    sb = Sandbox(0, None, name="compile")
    with sb.create_file(source) as f:
        f.write(text.encode())
    commands = language.get_compilation_commands([source], "batch")
    ok, comp_ok, _, _ = compilation_step(sb, commands)
    check("Batch, %s: compilation_step runs %s" % (language.name, " ".join(commands[0])),
          (True, True), (ok, comp_ok))
    binary = None
    if ok and comp_ok:
        with sb.get_file("batch") as f:
            binary = f.read()
    sb.cleanup(delete=True)
    if binary is None:
        return None
    for given, status, outcome, message in CASES:
        sb = Sandbox(1, None, name="evaluate")
        with sb.create_file("batch", executable=True) as f:
            f.write(binary)
        with sb.create_file("input.txt") as f:
            f.write((given + "\n").encode())
        with sb.create_file("res.txt") as f:
            f.write(b"42\n")
        ok, eval_ok, stats = evaluation_step(sb, [["./batch"]], 1.0, 64 * 1024 * 1024,
                                             stdin_redirect="input.txt",
                                             stdout_redirect="output.txt")
        got_outcome = white_diff_step(sb, "output.txt", "res.txt")[0] if eval_ok else None
        got_message = [m for m in human_evaluation_message(stats)] if stats else None
        check("Batch, %s, input %r: %s, outcome %s, %r (time %s s, memory %s bytes)" % (
            language.name, given, status, outcome, message,
            stats and stats["execution_time"], stats and stats["execution_memory"]),
            (True, status, outcome, message),
            (ok, stats and stats["exit_status"], got_outcome, got_message))
        sb.cleanup(delete=True)
    return binary


# --- Batch: compile (CMS's own language classes), then evaluate -------------
binary = batch(C11Gcc(), "batch.c", SOLUTION)
batch(Cpp17Gpp(), "batch.cpp", SOLUTION_CPP)

# --- Communication: a manager and two users, as Communication.evaluate -------
MANAGER = r"""#!/bin/bash
read -r a b
i=0 right=0
while [ $# -ge 2 ]; do
    exec 3>"$2"; echo "$a $((b + i))" >&3; exec 3>&- 4<"$1"
    read -r got <&4; exec 4<&-
    [ "$got" = "$((a + b + i))" ] && right=$((right + 1))
    i=$((i + 1)); shift 2
done
[ "$right" = "$i" ] && echo 1.0 || echo 0.0
echo "$right of $i right" >&2
"""
nproc = 2
fifo_dir = [tempfile.mkdtemp(dir=work) for i in range(nproc)]
for i in range(nproc):
    for name in ("u%d_to_m" % i, "m_to_u%d" % i):
        os.mkfifo(os.path.join(fifo_dir[i], name))
        os.chmod(os.path.join(fifo_dir[i], name), 0o666)
    os.chmod(fifo_dir[i], 0o755)
mgr = Sandbox(0, None, name="manager_evaluate")
with mgr.create_file("manager", executable=True) as f:
    f.write(MANAGER.encode())
with mgr.create_file("input.txt") as f:
    f.write(b"10 32\n")
users = [Sandbox(i + 1, None, name="user_evaluate_%d" % i) for i in range(nproc)]
for u in users:
    with u.create_file("batch", executable=True) as f:
        f.write(binary)
command = ["./manager"]
for i in range(nproc):
    command += ["/fifo%d/u%d_to_m" % (i, i), "/fifo%d/m_to_u%d" % (i, i)]
manager = evaluation_step_before_run(
    mgr, command, max(nproc * 2.0, 10.0), 4 * 1024 * 1024 * 1024,
    dirs_map=dict((fifo_dir[i], ("/fifo%d" % i, "rw")) for i in range(nproc)),
    writable_files=["output.txt"], stdin_redirect="input.txt")
procs = [evaluation_step_before_run(
    users[i], ["./batch", str(i)], 1.0, 64 * 1024 * 1024,
    dirs_map={fifo_dir[i]: ("/fifo%d" % i, "rw")},
    stdin_redirect="/fifo%d/m_to_u%d" % (i, i),
    stdout_redirect="/fifo%d/u%d_to_m" % (i, i)) for i in range(nproc)]
wait_without_std(procs + [manager])
mgr_result = evaluation_step_after_run(mgr)
user_results = [evaluation_step_after_run(u) for u in users]
check("Communication: the manager and %d users end well (box and evaluation success)" % nproc,
      [(True, True)] * (nproc + 1), [r[:2] for r in [mgr_result] + user_results])
with mgr.get_file("stdout.txt") as f:
    check("...the manager's verdict", b"1.0\n", f.read())
for s in [mgr] + users:
    s.cleanup(delete=True)

shutil.rmtree(work, ignore_errors=True)
print("1..%d" % n)
print("%d passed, %d failed" % (n - failed, failed))
sys.exit(1 if failed else 0)
