# SPDX-License-Identifier: ISC
"""Tests of contrib/python/proctor.py and evaluator.py against the real proctord."""

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# Run by meson, PYTHONPATH points at contrib/python; by hand, find it from here.
sys.path.insert(0, os.path.join(ROOT, "contrib", "python"))
import proctor  # noqa: E402

PROCTORD = os.path.abspath(os.environ.get("PROCTORD", os.path.join(ROOT, "build", "src", "proctord")))
PROGS = os.path.abspath(os.environ.get("PROGS", os.path.join(ROOT, "build", "tests", "progs")))
CONTRIB = os.path.dirname(os.path.abspath(proctor.__file__))

try:
    import jsonschema
except ImportError:
    jsonschema = None


def schema_check(test, doc):
    """doc is valid against proto/report.schema.json (when python3-jsonschema is here)."""
    if jsonschema is None:
        return
    with open(os.path.join(ROOT, "proto", "report.schema.json"), encoding="utf-8") as f:
        schema = json.load(f)
    errors = [e.message for e in jsonschema.validators.validator_for(schema)(schema).iter_errors(doc)]
    test.assertEqual(errors, [])
ECHO = ["sh", "-c", 'while read l; do echo "$l"; done']


class Sandbox:
    """One proctord under a private temporary directory, cleaned up whatever happens."""

    def __init__(self, *program, opts=(), daemonize=True):
        self.tmp = tempfile.mkdtemp(prefix="proctor-py.")
        self.dir = os.path.join(self.tmp, "box")
        self.proc = None
        self.stopped = False
        cmd = [PROCTORD, "--dir", self.dir, *opts, "--", *program]
        if daemonize:
            out = subprocess.run(cmd[:1] + ["--daemonize"] + cmd[1:], stdout=subprocess.PIPE,
                                 check=True, timeout=10).stdout
            assert out == self.dir.encode() + b"\n", out
        else:
            # In the foreground proctord's pid is ours to kill. Without --dir
            # it prints the directory it chose once its FIFOs are open, which
            # is the readiness signal (the lock file alone comes earlier).
            null = ["--stdin", "/dev/null", "--stdout", "/dev/null", "--stderr", "/dev/null"]
            self.proc = subprocess.Popen([PROCTORD, *null, *opts, "--", *program], stdin=subprocess.DEVNULL,
                                         stdout=subprocess.PIPE, env=dict(os.environ, XDG_RUNTIME_DIR=self.tmp))
            self.dir = self.proc.stdout.readline().decode().rstrip("\n")
            self.proc.stdout.close()
            if not self.dir.startswith(self.tmp + "/proctor."):
                raise RuntimeError("proctord did not start")

    def terminate(self):
        # Tests end their sandbox through this, so close() knows not to send
        # a second "0", which could be lost in proctord's clean-up and time out.
        self.stopped = True
        return proctor.wait(self.dir, terminate=True)

    def close(self):
        if not self.stopped:
            try:
                proctor.wait(self.dir, terminate=True, timeout=5)
            except proctor.ProctorError:
                pass
        if self.proc:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def wait_final(box, timeout=5.0):
    """Continue-waits until the status is final (a program ending takes a moment)."""
    deadline = time.monotonic() + timeout
    while True:
        r = proctor.wait(box)
        if r.final or time.monotonic() > deadline:
            return r
        time.sleep(0.01)


def wait_gone(box, timeout=5.0):
    """Waits for proctord to remove the sandbox directory after its terminating answer."""
    deadline = time.monotonic() + timeout
    while os.path.exists(box) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not os.path.exists(box), box + " still exists"


class FakeSandbox:
    """A directory laid out like a sandbox, with no proctord: for the error paths.

    Like proctord, the fake server holds flock(LOCK_EX) on the directory
    while it "lives" (until die())."""

    def __init__(self, wait_fifo=True, status_fifo=True):
        self.dir = tempfile.mkdtemp(prefix="proctor-fake.")
        self.life = os.open(self.dir, os.O_RDONLY | os.O_DIRECTORY)
        fcntl.flock(self.life, fcntl.LOCK_EX)
        open(os.path.join(self.dir, "lock"), "w").close()
        if wait_fifo:
            os.mkfifo(os.path.join(self.dir, "wait"), 0o600)
        if status_fifo:
            os.mkfifo(os.path.join(self.dir, "status"), 0o600)
        self.fds = []

    def die(self):
        # What a proctord's death does to its lifetime lock.
        if self.life is not None:
            os.close(self.life)
            self.life = None

    def read_wait(self):
        # Holding wait open for reading is what makes a client's open succeed.
        fd = os.open(os.path.join(self.dir, "wait"), os.O_RDONLY | os.O_NONBLOCK)
        self.fds.append(fd)
        return fd

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for fd in self.fds:
            os.close(fd)
        self.die()
        shutil.rmtree(self.dir, ignore_errors=True)


class TestParse(unittest.TestCase):
    def test_running(self):
        r = proctor.parse(b"15230\n2801664\nrunning\n")
        self.assertEqual((r.cpu_us, r.memory_bytes, r.kind, r.head, r.text, r.status),
                         (15230, 2801664, "running", "running", "", "running"))
        self.assertIsNone(r.exit_code)
        self.assertFalse(r.final)

    def test_exited(self):
        for code in (0, 3, 255):
            r = proctor.parse(b"93330\n0\nexited %d\n" % code)
            self.assertEqual((r.kind, r.exit_code, r.head, r.text), ("exited", code, "exited %d" % code, ""))
            self.assertTrue(r.final)

    def test_signaled(self):
        r = proctor.parse(b"8813\n0\nsignaled SIGSEGV: segmentation fault\n")
        self.assertEqual((r.kind, r.signal, r.head, r.text),
                         ("signaled", "SIGSEGV", "signaled SIGSEGV", "segmentation fault"))
        for name in ("SIGKILL", "SIGRTMIN+3", "SIG77"):
            self.assertEqual(proctor.parse(b"1\n0\nsignaled %s\n" % name.encode()).signal, name)

    def test_killed(self):
        r = proctor.parse(b"1002310\n0\nkilled cpu-time: CPU time limit of 1.000s exceeded\n")
        self.assertEqual((r.kind, r.reason, r.head, r.text),
                         ("killed", "cpu-time", "killed cpu-time", "CPU time limit of 1.000s exceeded"))
        # Reserved and unknown reasons are kept, for a generic "killed".
        for reason in ("wall-time", "file-size", "terminate", "memory", "pids", "syscall", "future-thing"):
            r = proctor.parse(b"1\n0\nkilled %s: x\n" % reason.encode())
            self.assertEqual((r.kind, r.reason), ("killed", reason))

    def test_failed(self):
        r = proctor.parse(b"412\n0\nfailed exec: ./solution: No such file or directory\n")
        self.assertEqual((r.kind, r.reason, r.head, r.text),
                         ("failed", "exec", "failed exec", "./solution: No such file or directory"))
        self.assertTrue(r.final)
        # File names may hold any byte but newline, CR and NUL; they round-trip.
        r = proctor.parse(b"412\n0\nfailed chdir: /srv/\xff\xfe: Permission denied\n")
        self.assertEqual(r.reason, "chdir")
        self.assertEqual(r.status.encode("utf-8", "surrogateescape"), b"failed chdir: /srv/\xff\xfe: Permission denied")

    def test_killed_output_and_syscall(self):
        r = proctor.parse(b"9\n0\nkilled output: output limit of 1MiB exceeded\n")
        self.assertEqual((r.kind, r.reason, r.syscall), ("killed", "output", None))
        r = proctor.parse(b"9\n0\nkilled syscall: io_uring_setup\n")
        self.assertEqual((r.kind, r.reason, r.syscall, r.final), ("killed", "syscall", "io_uring_setup", True))
        with self.assertRaises(proctor.MalformedAnswer):
            proctor.parse(b"9\n0\nkilled syscall\n")

    def test_invalid(self):
        r = proctor.parse(b'2100\n1327104\ninvalid: expected "0" or "1", got "hello"; program running\n')
        self.assertEqual((r.kind, r.head), ("invalid", "invalid"))
        self.assertEqual(r.text, 'expected "0" or "1", got "hello"; program running')
        self.assertFalse(r.final)

    @unittest.skipIf(jsonschema is None, "no python3-jsonschema")
    def test_answer_json_is_of_the_schema(self):
        for line in (b"running", b"exited 3", b"signaled SIGSEGV: segmentation fault",
                     b"killed cpu-time: CPU time limit of 1.000s exceeded", b"killed terminate",
                     b"killed syscall: keyctl", b"killed later-reason",
                     b"failed exec: ./x: No such file or directory", b"invalid: request 'x'"):
            with self.subTest(line=line):
                d = proctor.answer_json(proctor.parse(b"12\n34\n" + line + b"\n"))
                schema_check(self, d)
                self.assertEqual(d["status"]["line"], line.decode())
        d = proctor.answer_json(proctor.parse(b"1\n0\nkilled memory: over\n"))
        self.assertEqual((d["status"]["reason"], d["status"]["limit"]), ("memory", "memory"))

    def test_malformed(self):
        bad = [
            b"", b"\n", b"1\n2\n", b"1\n2\nrunning", b"1\n2\nrunning\nextra\n", b"1\n2\nrunning\n\n",
            b"x\n2\nrunning\n", b"1\n\nrunning\n", b"-1\n2\nrunning\n", b"+1\n2\nrunning\n",
            b" 1\n2\nrunning\n", b"1_0\n2\nrunning\n", b"1.5\n2\nrunning\n", b"\xd9\xa1\n2\nrunning\n",
            b"1\n2\n\n", b"1\r\n2\r\nrunning\r\n", b"1\n2\nrunning\r\n", b"1\n2\nrun\0ning\n",
            b"1\n2\nRUNNING\n", b"1\n2\nstopped\n", b"1\n2\nexited\n", b"1\n2\nexited 256\n",
            b"1\n2\nexited -1\n", b"1\n2\nexited x\n", b"1\n2\nsignaled\n", b"1\n2\nsignaled 11\n",
            b"1\n2\nkilled\n", b"1\n2\nkilled \n", b"1\n2\nfailed: exec\n", b"1\n2\n running\n",
        ]
        for answer in bad:
            with self.subTest(answer=answer):
                with self.assertRaises(proctor.MalformedAnswer) as cm:
                    proctor.parse(answer)
                self.assertEqual(cm.exception.answer, answer)
                self.assertIn("malformed answer", str(cm.exception))
                self.assertNotIn("\n", str(cm.exception))

    def test_exceptions_share_a_base(self):
        for cls in (proctor.NoSandbox, proctor.DaemonGone, proctor.Timeout,
                    proctor.MalformedAnswer, proctor.ProctorOSError):
            self.assertTrue(issubclass(cls, proctor.ProctorError))
        self.assertEqual(len({proctor.NoSandbox, proctor.DaemonGone, proctor.Timeout,
                              proctor.MalformedAnswer}), 4)


class TestSize(unittest.TestCase):
    """proctor.size() spells sizes as proctord reads them, and refuses what proctord refuses."""

    def test_ints_are_bytes(self):
        self.assertEqual(proctor.size(262144), "262144B")
        self.assertEqual(proctor.size(0), "0")
        for bad in (-1, True, 1.5, None):
            with self.assertRaises((ValueError, TypeError)):
                proctor.size(bad)

    def test_bare_and_decimal_are_refused(self):
        for bare in ("262144", "1048576", " 100 ", "1.5", "0.1"):
            with self.assertRaisesRegex(ValueError, r"needs its unit: B \(bytes\), KiB \(isolate's unit\)"):
                proctor.size(bare)
        for dec in ("256mb", "256MB", "1GB", "64kB", "1TB"):
            with self.assertRaisesRegex(ValueError, "Docker"):
                proctor.size(dec)
        for ok in ("0", "0.0", "256MiB", "256m", "1.5G", "100B", "262144KiB", "unlimited", " 8 MiB "):
            self.assertEqual(proctor.size(ok), ok)

    def test_proctord_agrees(self):
        # Every spelling that size() takes, proctord takes, and the other
        # way round; a refused one with the same words. (--fsize: 0 is a
        # size there, no file at all.)
        for v in ("0", "262144", "262144KiB", "256mb", "256MiB", "1.5G", "0.1", "100B", "1GB",
                  "12 GiB", "unlimited", "1Q", proctor.size(262144)):
            p = subprocess.run([PROCTORD, "--check", "--fsize", v], capture_output=True,
                               text=True, timeout=30)
            try:
                proctor.size(v)
                ours = None
            except ValueError as e:
                ours = str(e)
            self.assertEqual(p.returncode == 0, ours is None, (v, p.stderr, ours))
            if ours is not None and "Q" not in v:
                self.assertIn(ours.split(": ", 1)[1], p.stderr, v)


class TestDaemon(unittest.TestCase):
    def test_wait_on_running_sleep(self):
        with Sandbox("sleep", "30") as sb:
            # Right after the start the program may not have touched a page
            # of its own yet (a memory cgroup counts from zero): poll.
            deadline = time.monotonic() + 10
            r1 = proctor.wait(sb.dir)
            while r1.memory_bytes == 0 and time.monotonic() < deadline:
                time.sleep(0.05)
                r1 = proctor.wait(sb.dir)
            r2 = proctor.wait(sb.dir)
            self.assertEqual((r1.kind, r1.status, r1.text), ("running", "running", ""))
            self.assertGreater(r1.memory_bytes, 0)
            self.assertGreaterEqual(r2.cpu_us, r1.cpu_us)
            t = time.monotonic()
            last = sb.terminate()
            self.assertGreaterEqual(time.monotonic() - t, 0.045)   # the 50 ms grace
            self.assertEqual((last.kind, last.reason, last.memory_bytes), ("killed", "terminate", 0))
            self.assertGreaterEqual(last.cpu_us, r2.cpu_us)
            # proctord removes the sandbox once we have closed status. It does
            # so a moment later, and a wait in that moment may find the old
            # FIFOs (see the report on the race), so look once it is gone.
            wait_gone(sb.dir)
            with self.assertRaises(proctor.NoSandbox):
                proctor.wait(sb.dir)

    def test_head_killed_syscall(self):
        with Sandbox(os.path.join(PROGS, "probe"), "syscall", "keyctl", opts=["--seccomp"]) as sb:
            r = wait_final(sb.dir)
            self.assertEqual((r.head, r.syscall), ("killed syscall", "keyctl"))
            self.assertEqual(sb.terminate().syscall, "keyctl")

    def test_head_exited(self):
        with Sandbox(os.path.join(PROGS, "crash"), "exit", "3") as sb:
            r = wait_final(sb.dir)
            self.assertEqual((r.kind, r.exit_code, r.head, r.memory_bytes), ("exited", 3, "exited 3", 0))
            self.assertEqual(sb.terminate().status, r.status)

    def test_head_signaled(self):
        with Sandbox(os.path.join(PROGS, "crash"), "segv") as sb:
            r = wait_final(sb.dir)
            self.assertEqual((r.kind, r.signal), ("signaled", "SIGSEGV"))
            self.assertTrue(r.text)

    def test_head_killed_cpu_time(self):
        with Sandbox(os.path.join(PROGS, "spin"), opts=["--cpu-time", "200ms"]) as sb:
            r = wait_final(sb.dir, timeout=10)
            self.assertEqual((r.kind, r.reason, r.head), ("killed", "cpu-time", "killed cpu-time"))
            self.assertGreaterEqual(r.cpu_us, 200000)
            final = sb.terminate()
            # The CPU figure may still grow while the killed tree is reaped, never shrink.
            self.assertEqual(final.status, r.status)
            self.assertGreaterEqual(final.cpu_us, r.cpu_us)

    def test_head_failed_exec(self):
        # In a directory that exists, so the path fails at execve and not earlier.
        with Sandbox(os.path.join(tempfile.gettempdir(), "proctor-py-no-such-program")) as sb:
            r = wait_final(sb.dir)
            self.assertEqual((r.kind, r.reason, r.head), ("failed", "exec", "failed exec"))
            self.assertIn("no-such-program", r.text)

    def test_head_invalid(self):
        with Sandbox("sleep", "30") as sb:
            r = proctor.parse(proctor._call(sb.dir, b"hello\n", 5))
            self.assertEqual(r.kind, "invalid")
            self.assertIn('got "hello"; program running', r.text)
            self.assertEqual(proctor.wait(sb.dir).kind, "running")

    def test_cli(self):
        cli = [sys.executable, os.path.join(CONTRIB, "proctor.py")]
        with Sandbox("sleep", "30") as sb:
            out = subprocess.run(cli + ["wait", sb.dir], stdout=subprocess.PIPE, check=True, timeout=10).stdout
            lines = out.decode().split("\n")
            self.assertEqual((len(lines), lines[2], lines[3]), (4, "running", ""))
            out = subprocess.run(cli + ["wait", "--json", sb.dir], stdout=subprocess.PIPE, check=True,
                                 timeout=10).stdout
            d = json.loads(out)
            self.assertEqual((d["type"], d["status"]["kind"]), ("answer", "running"))
            schema_check(self, d)
            sb.stopped = True
            out = subprocess.run(cli + ["stop", sb.dir], stdout=subprocess.PIPE, check=True, timeout=10).stdout
            self.assertTrue(out.decode().split("\n")[2].startswith("killed terminate"))
            wait_gone(sb.dir)
            gone = subprocess.run(cli + ["wait", sb.dir], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  timeout=10)
            self.assertEqual((gone.returncode, gone.stdout), (1, b""))
            self.assertIn(b"no sandbox at", gone.stderr)


class TestErrors(unittest.TestCase):
    def test_missing_directory(self):
        missing = os.path.join(tempfile.gettempdir(), "proctor-py-no-such-dir-%d" % os.getpid())
        with self.assertRaises(proctor.NoSandbox) as cm:
            proctor.wait(missing)
        self.assertIn("no sandbox at", str(cm.exception))
        with self.assertRaises(proctor.NoSandbox):
            proctor.wait("/dev/null")                  # ENOTDIR

    def test_not_a_sandbox(self):
        with FakeSandbox(wait_fifo=False) as fake:
            open(os.path.join(fake.dir, "wait"), "w").close()   # a regular file, not a FIFO
            with self.assertRaises(proctor.NoSandbox):
                proctor.wait(fake.dir)

    def test_daemon_killed(self):
        sb = Sandbox("sleep", "30", daemonize=False)
        try:
            self.assertEqual(proctor.wait(sb.dir).kind, "running")
            # Until its execve the program is a copy of proctord holding the
            # FIFOs (close-on-exec); a kill in that window would leave a
            # reader on wait for a moment. Kill once it is really sleep.
            exe = os.path.realpath(PROCTORD)
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                with open("/proc/%d/task/%d/children" % (sb.proc.pid, sb.proc.pid)) as f:
                    kids = f.read().split()
                if kids and all(os.path.realpath("/proc/%s/exe" % k) != exe for k in kids):
                    break
                time.sleep(0.002)
            sb.proc.send_signal(signal.SIGKILL)
            sb.proc.wait()
            t = time.monotonic()
            with self.assertRaises((proctor.DaemonGone, proctor.NoSandbox)) as cm:
                proctor.wait(sb.dir)
            self.assertLess(time.monotonic() - t, 1.0)  # at once, not at the deadline
            # Its files are left behind, so this is the "nobody reads" case.
            self.assertIsInstance(cm.exception, proctor.DaemonGone)
            self.assertIn("proctord is gone", str(cm.exception))
        finally:
            sb.close()

    def test_daemon_gone_fake(self):
        with FakeSandbox() as fake:
            with self.assertRaises(proctor.DaemonGone):
                proctor.wait(fake.dir)

    def test_timeout_on_lock(self):
        with Sandbox("sleep", "30") as sb:
            fd = os.open(os.path.join(sb.dir, "lock"), os.O_RDONLY)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                t = time.monotonic()
                with self.assertRaises(proctor.Timeout):
                    proctor.wait(sb.dir, timeout=0.3)
                self.assertGreaterEqual(time.monotonic() - t, 0.29)
                self.assertLess(time.monotonic() - t, 2.0)
            finally:
                os.close(fd)
            # Nothing was sent while we held the lock: the sandbox is intact.
            self.assertEqual(proctor.wait(sb.dir).kind, "running")

    def test_timeout_on_status(self):
        # A server that reads the request and never answers.
        with FakeSandbox() as fake:
            fd = fake.read_wait()
            t = time.monotonic()
            with self.assertRaises(proctor.Timeout):
                proctor.wait(fake.dir, timeout=0.3)
            self.assertGreaterEqual(time.monotonic() - t, 0.29)
            self.assertLess(time.monotonic() - t, 2.0)
            self.assertEqual(os.read(fd, 100), b"1\n")

    def _fake_answer(self, answer, terminate=False, exits=True, timeout=5):
        with FakeSandbox() as fake:
            fd = fake.read_wait()

            def server():
                # Wait for the client's reader, as proctord does, then answer in one write.
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline:
                    try:
                        out = os.open(os.path.join(fake.dir, "status"), os.O_WRONLY | os.O_NONBLOCK)
                    except OSError:
                        time.sleep(0.001)
                        continue
                    os.write(out, answer)
                    os.close(out)
                    if terminate and exits:
                        fake.die()
                    return

            th = threading.Thread(target=server)
            th.start()
            try:
                return proctor.wait(fake.dir, terminate=terminate, timeout=timeout)
            finally:
                th.join()
                self.assertEqual(os.read(fd, 100), b"0\n" if terminate else b"1\n")

    def test_malformed_answer_from_server(self):
        with self.assertRaises(proctor.MalformedAnswer):
            self._fake_answer(b"garbage\n")
        with self.assertRaises(proctor.MalformedAnswer):
            self._fake_answer(b"")                    # the writer closed without an answer
        r = self._fake_answer(b"7\n8\nexited 0\n", terminate=True)
        self.assertEqual((r.cpu_us, r.memory_bytes, r.exit_code), (7, 8, 0))

    def test_stop_waits_for_the_server_to_exit(self):
        # The final answer came, but the server keeps DIR locked: NotExited
        # at the deadline, with the answer.
        t = time.monotonic()
        with self.assertRaises(proctor.NotExited) as cm:
            self._fake_answer(b"7\n0\nexited 0\n", terminate=True, exits=False, timeout=0.5)
        self.assertGreaterEqual(time.monotonic() - t, 0.49)
        self.assertEqual(cm.exception.result.head, "exited 0")

    def test_server_dies_after_taking_the_request(self):
        # The request is read, then the server dies without answering: the
        # client sees its lifetime lock go and says so at once.
        with FakeSandbox() as fake:
            fd = fake.read_wait()
            threading.Timer(0.2, fake.die).start()
            t = time.monotonic()
            with self.assertRaises(proctor.DaemonGone) as cm:
                proctor.wait(fake.dir, timeout=8)
            self.assertLess(time.monotonic() - t, 2.0)
            self.assertIn("proctord is gone", str(cm.exception))
            self.assertEqual(os.read(fd, 100), b"1\n")

    def test_daemon_killed_right_after_start(self):
        # SIGKILL 0-5 ms after proctord's start, 20 times: the wait says at
        # once that it is gone (or that there is no sandbox, when it died
        # before making one), never waits out its timeout.
        tmp = tempfile.mkdtemp(prefix="proctor-py.")
        try:
            for i in range(20):
                box = os.path.join(tmp, "box%d" % i)
                p = subprocess.Popen([PROCTORD, "--dir", box, "--", "sleep", "100"], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep((i % 6) / 1000)
                p.kill()
                p.wait()
                t = time.monotonic()
                with self.assertRaises((proctor.DaemonGone, proctor.NoSandbox)):
                    proctor.wait(box, timeout=8)
                self.assertLess(time.monotonic() - t, 2.0, "round %d" % i)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class TestStop(unittest.TestCase):
    def test_stop(self):
        with Sandbox("sleep", "30") as sb:
            sb.stopped = True
            r = proctor.stop(sb.dir)
            self.assertEqual((r.head, r.memory_bytes, r.final), ("killed terminate", 0, True))
            # No wait_gone(): stop returns once everything is gone.
            self.assertFalse(os.path.exists(sb.dir))
            with self.assertRaises(proctor.NoSandbox):
                proctor.stop(sb.dir)

    def test_stop_then_a_new_proctord_on_the_same_dir(self):
        # 50 times: stop, then at once a new proctord on the same --dir,
        # which proctord created (even rounds) or which was there before.
        tmp = tempfile.mkdtemp(prefix="proctor-py.")
        box = os.path.join(tmp, "box")

        def start():
            subprocess.run([PROCTORD, "--daemonize", "--dir", box, "--", "sleep", "100"],
                           stdout=subprocess.DEVNULL, check=True, timeout=10)

        try:
            start()
            for i in range(50):
                self.assertEqual(proctor.stop(box).head, "killed terminate")
                self.assertFalse(os.path.exists(os.path.join(box, "wait")), "round %d" % i)
                if i % 2 == 0:
                    self.assertFalse(os.path.exists(box), "round %d" % i)
                    os.mkdir(box)
                else:
                    os.rmdir(box)
                start()
            proctor.stop(box)
        finally:
            try:
                proctor.stop(box, timeout=5)
            except proctor.ProctorError:
                pass
            shutil.rmtree(tmp, ignore_errors=True)

    def test_cli_stop(self):
        cli = [sys.executable, os.path.join(CONTRIB, "proctor.py")]
        with Sandbox("sleep", "30") as sb:
            sb.stopped = True
            out = subprocess.run(cli + ["stop", "--json", sb.dir], stdout=subprocess.PIPE, check=True,
                                 timeout=20).stdout
            d = json.loads(out)
            self.assertEqual(d["status"]["head"], "killed terminate")
            schema_check(self, d)
            self.assertFalse(os.path.exists(sb.dir))


class TestConcurrency(unittest.TestCase):
    def test_16_clients_x_20_waits(self):
        clients, waits = 16, 20
        with Sandbox("sleep", "60") as sb:
            results = [[] for _ in range(clients)]
            errors = []

            def client(i):
                try:
                    for _ in range(waits):
                        results[i].append(proctor.wait(sb.dir, timeout=30))
                except Exception as e:  # noqa: BLE001 - reported below
                    errors.append(repr(e))

            threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
            for th in threads:
                th.start()
            for th in threads:
                th.join(60)
            self.assertEqual(errors, [])
            self.assertEqual(sum(len(r) for r in results), clients * waits)
            for rs in results:
                for r in rs:
                    self.assertEqual((r.kind, r.status), ("running", "running"))
                    self.assertGreater(r.memory_bytes, 0)
                cpus = [r.cpu_us for r in rs]
                self.assertEqual(cpus, sorted(cpus))   # monotonic, as each client sees it
            last = sb.terminate()
            self.assertEqual(last.head, "killed terminate")
            self.assertGreaterEqual(last.cpu_us, max(r.cpu_us for rs in results for r in rs))


class TestEvaluator(unittest.TestCase):
    def test_echo_1000_lines(self):
        env = dict(os.environ, PYTHONPATH=CONTRIB)
        p = subprocess.run([sys.executable, os.path.join(CONTRIB, "evaluator.py"), "--proctord", PROCTORD,
                            "--lines", "1000", "--sections", "4", "--", *ECHO],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=60)
        out = p.stdout.decode()
        self.assertEqual(p.returncode, 0, out + p.stderr.decode())
        lines = out.splitlines()
        self.assertEqual(lines[0].split(), ["section", "lines", "cpu_us", "memory", "answers"])
        rows = [line.split() for line in lines[1:5]]
        self.assertEqual([int(r[0]) for r in rows], [1, 2, 3, 4])
        self.assertEqual(sum(int(r[1]) for r in rows), 1000)
        for r in rows:
            self.assertGreater(int(r[2]), 0)           # echoing 250 lines costs some CPU
            self.assertGreater(int(r[3]), 0)
            self.assertEqual(r[4], "ok")
        total = int(lines[5].split()[-1])
        self.assertGreaterEqual(total, sum(int(r[2]) for r in rows))
        self.assertEqual(lines[6], "verdict: exited 0")

    def test_evaluate_function(self):
        sys.path.insert(0, CONTRIB)
        import evaluator
        rows, verdict = evaluator.evaluate(ECHO, lines=40, sections=2, proctord=PROCTORD)
        self.assertEqual([(s, n, ok) for s, n, _, _, ok in rows], [(1, 20, True), (2, 20, True)])
        self.assertEqual((verdict.kind, verdict.exit_code, verdict.memory_bytes), ("exited", 0, 0))

    def test_echo_1000_lines_through_the_output_pump_under_seccomp(self):
        # stdout through proctord's pipe (--output-limit) into the FIFO, and
        # the filter on: the exchange and the per-section CPU still hold.
        sys.path.insert(0, CONTRIB)
        import evaluator
        rows, verdict = evaluator.evaluate(ECHO, lines=1000, sections=4, proctord=PROCTORD,
                                           options=["--output-limit", "1MiB", "--seccomp"])
        self.assertEqual([(s, n, ok) for s, n, _, _, ok in rows],
                         [(1, 250, True), (2, 250, True), (3, 250, True), (4, 250, True)])
        for _, _, cpu, mem, _ in rows:
            self.assertGreater(cpu, 0)             # echoing 250 lines costs some CPU
            self.assertGreater(mem, 0)
        self.assertEqual(verdict.head, "exited 0")
        self.assertGreaterEqual(verdict.cpu_us, sum(cpu for _, _, cpu, _, _ in rows))

    def test_memory_max_takes_an_int_of_bytes_or_a_size_with_its_unit(self):
        sys.path.insert(0, CONTRIB)
        import evaluator
        for mm in (256 << 20, "256MiB"):
            rows, verdict = evaluator.evaluate(ECHO, lines=4, sections=1, proctord=PROCTORD, memory_max=mm)
            self.assertEqual(verdict.head, "exited 0", mm)
        with self.assertRaisesRegex(ValueError, "needs its unit"):
            evaluator.evaluate(ECHO, lines=4, sections=1, proctord=PROCTORD, memory_max="262144")

    def test_output_limit_ends_a_chatty_program(self):
        sys.path.insert(0, CONTRIB)
        import evaluator
        rows, verdict = evaluator.evaluate(["yes"], lines=20, sections=2, proctord=PROCTORD,
                                           options=["--output-limit", "64KiB"])
        self.assertEqual([ok for *_, ok in rows], [False, False])
        self.assertEqual(verdict.head, "killed output")

    def test_wrong_program(self):
        sys.path.insert(0, CONTRIB)
        import evaluator
        # Answers every line with the same thing, then exits 1 at end of input.
        rows, verdict = evaluator.evaluate(["sh", "-c", "while read l; do echo no; done; exit 1"],
                                           lines=10, sections=2, proctord=PROCTORD)
        self.assertEqual([ok for *_, ok in rows], [False, False])
        self.assertEqual(verdict.head, "exited 1")


if __name__ == "__main__":
    if not os.access(PROCTORD, os.X_OK):
        sys.exit("%s is not an executable: build proctord first, or set PROCTORD" % PROCTORD)
    # Every temporary file and sandbox of these tests, and of the proctords
    # and programs they start, goes into one directory of our own: never the
    # global /tmp or runtime directory that other users of the machine share.
    top = tempfile.mkdtemp(prefix="proctor-py-tests.")
    os.environ["TMPDIR"] = tempfile.tempdir = top
    os.environ["XDG_RUNTIME_DIR"] = top
    try:
        unittest.main(verbosity=2)
    finally:
        shutil.rmtree(top, ignore_errors=True)
