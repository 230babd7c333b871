#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""CMS's own functional tests on proctor-isolate, outside CI.

Runs the tests of cmstestsuite/Tests.py (a CMS checkout at CMS_SRC) whose
task is of type Batch, Communication or TwoSteps, in C and C++ (the
languages each test lists among C11 / gcc and C++11, 14, 17, 20 / g++),
through CMS's own code with proctor-isolate as `isolate` on the PATH: the
test's task, managers and test cases from cmstestsuite/tasks/, the task
type's parameters parsed by CMS's ParameterTypes from the task's form
fields, then CMS's task type class (Batch.py, Communication.py,
TwoSteps.py) compiling the submission and evaluating each test case as
CMS's Worker has it do, with CMS's Sandbox.py, steps, languages and
checkers; and the test's own checks (cmstestsuite/Test.py) judge the
result.

What stands in for CMS's database, web servers, EvaluationService and
ScoringService: the task and submission kept in memory (a FileCacher over
a dict, jobs made as Job.from_submission makes them), the score summed as
CMS's Sum score type does (every task here uses it), and the status line
the way AWS's submission page shows it. User tests are not run.

    CMS_SRC=/path/to/cms PROCTOR_ISOLATE=build/src/proctor-isolate \\
        python3 tests/compat/cms-testsuite.py [NAME-REGEX]   (as root)

CMS_LANGUAGES (a comma-separated list, e.g. "C11 / gcc") narrows the
languages; CMS_MIN_TIME_LIMIT (seconds) raises every task's time limit to
at least that, for a host too slow for the suite's limits (oom-static and
oom-heap touch 128 MiB within 0.5 s). Prints TAP; skips (1..0) without
CMS_SRC or when not root.
"""
import os
import re
import shutil
import sys
import tempfile
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
CMS_SRC = os.environ.get("CMS_SRC", "")

if not CMS_SRC or not os.path.isfile(os.path.join(CMS_SRC, "cmstestsuite/Tests.py")):
    print("1..0 # SKIP set CMS_SRC to a CMS checkout (cmstestsuite/Tests.py)")
    sys.exit(0)
if os.geteuid() != 0:
    print("1..0 # SKIP needs root (proctor-isolate runs as root, as isolate under sudo)")
    sys.exit(0)
try:
    import jinja2  # noqa: F401  (CMS's ParameterTypes needs it)
except ImportError:
    print("1..0 # SKIP needs jinja2 (CMS's ParameterTypes imports it)")
    sys.exit(0)

ISO = os.path.abspath(os.environ.get(
    "PROCTOR_ISOLATE", os.path.join(HERE, "../../build/src/proctor-isolate")))
LANGUAGES = os.environ.get(
    "CMS_LANGUAGES",
    "C11 / gcc,C++11 / g++,C++14 / g++,C++17 / g++,C++20 / g++").split(",")
TASK_TYPES = ("Batch", "Communication", "TwoSteps")
MIN_TIME_LIMIT = float(os.environ.get("CMS_MIN_TIME_LIMIT", "0"))
work = tempfile.mkdtemp(prefix="cms-suite.")
os.chmod(work, 0o711)

# The stand-ins. CMS's configuration (cms/conf.py's defaults) and its
# plugin_list, which here reads the entry points from CMS's own setup.py
# instead of the installed package's metadata.
STUBS = {
    "cms/__init__.py": """
        import importlib, re, shutil, types
        rmtree = shutil.rmtree
        config = types.SimpleNamespace(
            global_=types.SimpleNamespace(temp_dir=%r),
            worker=types.SimpleNamespace(keep_sandbox=False),
            sandbox=types.SimpleNamespace(
                max_file_size=1024 * 1024,
                compilation_sandbox_max_processes=1000,
                compilation_sandbox_max_time_s=10.0,
                compilation_sandbox_max_memory_kib=512 * 1024,
                trusted_sandbox_max_processes=1000,
                trusted_sandbox_max_time_s=10.0,
                trusted_sandbox_max_memory_kib=4 * 1024 * 1024))

        def plugin_list(group):
            with open(%r) as f:
                setup = f.read()
            found = re.findall(r'"[^"=]+=(%%s\\.[\\w.]+):(\\w+)"' %% re.escape(group), setup)
            classes = []
            for module, name in found:
                try:
                    classes.append(getattr(importlib.import_module(module), name))
                except Exception:
                    pass
            return classes
    """ % (work, os.path.join(CMS_SRC, "setup.py")),
    # The database's classes that the task types name.
    "cms/db/__init__.py": """
        class _Digest:
            def __init__(self, filename, digest):
                self.filename, self.digest = filename, digest
        class Executable(_Digest): pass
        class File(_Digest): pass
        class Manager(_Digest): pass
    """,
    # The file store: a dict from SHA-1 digest to content.
    "cms/db/filecacher.py": """
        import hashlib, io, shutil
        class FileCacher:
            service = None
            def __init__(self):
                self.files = {}
            def put_file_content(self, content, description=""):
                digest = hashlib.sha1(content).hexdigest()
                self.files[digest] = content
                return digest
            def put_file_from_fobj(self, fobj, description=""):
                return self.put_file_content(fobj.read(), description)
            def get_file(self, digest):
                return io.BytesIO(self.files[digest])
            def get_file_to_fobj(self, digest, dst):
                shutil.copyfileobj(self.get_file(digest), dst)
    """,
    # The jobs, with the fields Job.from_submission fills in.
    "cms/grading/Job.py": """
        class Job:
            def __init__(self, **fields):
                self.success = self.text = self.plus = None
                self.executables, self.files, self.managers = {}, {}, {}
                self.sandboxes, self.sandbox_digests = [], {}
                self.archive_sandbox = self.keep_sandbox = False
                self.multithreaded_sandbox = False
                self.info = ""
                self.__dict__.update(fields)
        class CompilationJob(Job):
            def __init__(self, **fields):
                self.compilation_success = None
                super().__init__(**fields)
        class EvaluationJob(Job):
            def __init__(self, **fields):
                self.outcome = self.user_output = self.admin_text = None
                self.get_output = self.only_execution = False
                super().__init__(**fields)
    """,
    # The translation layer (babel's) as the identity.
    "cms/locale/__init__.py": """
        class Translation:
            def gettext(self, message):
                return message
        DEFAULT_TRANSLATION = Translation()
    """,
    "cms/server/__init__.py": "",
    "cms/server/jinja2_toolbox.py":
        "import jinja2\nGLOBAL_ENVIRONMENT = jinja2.Environment()\n",
    # Only what Test.py builds; the runner below does the framework's part.
    "cmstestsuite/functionaltestframework.py":
        "class FunctionalTestFramework:\n    pass\n",
}
tree = os.path.join(work, "py")
# CMS's own code, as it is in the checkout.
for path in ("cms/grading", "cmscommon", "cmstestsuite"):
    shutil.copytree(os.path.join(CMS_SRC, path), os.path.join(tree, path),
                    ignore=shutil.ignore_patterns("Job.py", "unit_tests", "web"))
for path, text in STUBS.items():
    os.makedirs(os.path.dirname(os.path.join(tree, path)), exist_ok=True)
    with open(os.path.join(tree, path), "w") as f:
        f.write(textwrap.dedent(text))
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

from cms.db import File, Manager  # noqa: E402
from cms.db.filecacher import FileCacher  # noqa: E402
from cms.grading import format_status_text  # noqa: E402
from cms.grading.Job import CompilationJob, EvaluationJob  # noqa: E402
from cms.grading.tasktypes import get_task_type_class  # noqa: E402
from cmstestsuite.Test import TestFailure  # noqa: E402
from cmstestsuite.Tests import ALL_TESTS  # noqa: E402


class Form:
    """The task's form fields, as AWS's handler hands them to ParameterTypes."""

    def __init__(self, task_info):
        self.task_info = task_info

    def get_argument(self, name, default=None):
        return self.task_info.get(name, default)


class Task:
    """A cmstestsuite task as AWS stores it: dataset, managers, test cases."""

    def __init__(self, module, cacher):
        info = module.task_info
        self.type = info["task_type_{{dataset_id}}"]
        cls = get_task_type_class(self.type)
        form = Form(info)
        prefix = "TaskTypeOptions_{{dataset_id}}_%s_" % self.type
        self.parameters = [p.parse_handler(form, prefix) for p in cls.ACCEPTED_PARAMETERS]
        self.task_type = cls(self.parameters)
        self.time_limit = max(float(info["time_limit_{{dataset_id}}"]), MIN_TIME_LIMIT)
        self.memory_limit = int(info["memory_limit_{{dataset_id}}"]) * 1024 * 1024
        assert info["score_type_{{dataset_id}}"] == "Sum"
        self.per_case = float(info["score_type_parameters_{{dataset_id}}"])
        base = os.path.dirname(module.__file__)
        self.managers = {}
        for name in getattr(module, "managers", []):
            with open(os.path.join(base, "code", name), "rb") as f:
                self.managers[name] = Manager(name, cacher.put_file_content(f.read()))
        self.testcases = []
        for given, wanted, _public in module.test_cases:
            pair = []
            for name in (given, wanted):
                with open(os.path.join(base, "data", name), "rb") as f:
                    pair.append(cacher.put_file_content(f.read()))
            self.testcases.append(pair)


def grade(task, cacher, language, submission_format, sources):
    """What ES and the Workers do with a submission; AWS's result_info."""
    files = {}
    for fmt, path in zip(submission_format, sources):
        with open(path, "rb") as f:
            files[fmt] = File(fmt, cacher.put_file_content(f.read()))
    common = dict(language=language, files=files, managers=dict(task.managers),
                  info="submission in %s" % language)
    job = CompilationJob(**common)
    task.task_type.compile(job, cacher)
    result = {"compile_output": job.text, "evaluations": []}
    if not job.success:
        result["status"] = "Compilation: the sandbox failed (%r)" % (job.plus,)
        return result
    if not job.compilation_success:
        result["status"] = "Compilation failed"
        return result
    executables = dict(job.executables)
    score = 0.0
    for i, (given, wanted) in enumerate(task.testcases):
        job = EvaluationJob(executables=dict(executables), input=given, output=wanted,
                            time_limit=task.time_limit, memory_limit=task.memory_limit,
                            **common)
        task.task_type.evaluate(job, cacher)
        if not job.success:
            result["status"] = "Evaluation of test case %d: the sandbox failed" % i
            return result
        text = format_status_text(job.text) if job.text else ""
        took = job.plus and job.plus.get("execution_time")
        result["evaluations"].append({"outcome": job.outcome, "text": text,
                                      "time": took and round(took, 3)})
        score += float(job.outcome) * task.per_case
    result["status"] = "Scored (%g / %g)" % (score, task.per_case * len(task.testcases))
    return result


def main():
    pattern = re.compile(sys.argv[1] if len(sys.argv) > 1 else "")
    cacher = FileCacher()
    tasks = {}
    n = failed = 0
    for test in ALL_TESTS:
        module = test.task_module
        kind = module.task_info["task_type_{{dataset_id}}"]
        if kind not in TASK_TYPES or not pattern.search(test.name):
            continue
        if module not in tasks:
            tasks[module] = Task(module, cacher)
        for language in [lang for lang in test.languages if lang in LANGUAGES]:
            n += 1
            what = "%s (%s, %s)" % (test.name, kind, language)
            result = grade(tasks[module], cacher, language, test.submission_format,
                           test._sources_names(language))
            try:
                for check in test.checks:
                    check.check(result)
                print("ok %d - %s: %s %s" % (n, what, result["status"],
                                             [e["time"] for e in result["evaluations"]]))
            except TestFailure as e:
                failed += 1
                print("not ok %d - %s\n# %s\n# %r" % (n, what, e, result))
            sys.stdout.flush()
    shutil.rmtree(work, ignore_errors=True)
    print("1..%d" % n)
    print("%d passed, %d failed" % (n - failed, failed))
    return 1 if failed else 0


sys.exit(main())
