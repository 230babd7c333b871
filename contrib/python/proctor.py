# SPDX-License-Identifier: ISC
"""Client for the proctor wait protocol (proto/PROTOCOL.md): make wait calls on a proctord sandbox directory without ever hanging."""

import argparse
import dataclasses
import errno
import fcntl
import json
import os
import re
import select
import stat
import sys
import time
from typing import Optional

__all__ = [
    "Result", "wait", "stop", "parse", "answer_json", "size",
    "ProctorError", "NoSandbox", "DaemonGone", "Timeout", "NotExited", "MalformedAnswer",
    "ProctorOSError", "KINDS", "KILL_REASONS", "FAILURE_STAGES",
]

# The protocol's vocabulary (PROTOCOL.md section 6; the C side's table is
# src/common/proto.c, and tests/unit/vocabulary.py checks that they agree).
# Result.kind is one of KINDS. A reason or stage not listed here (a later
# version's) is still parsed: read it as a generic "killed" or "failed".
KINDS = ("running", "exited", "signaled", "killed", "failed", "invalid")
KILL_REASONS = ("cpu-time", "wall-time", "memory", "output", "file-size", "terminate",
                "syscall", "pids")
FAILURE_STAGES = ("setup", "limits", "stdin", "stdout", "stderr", "chdir", "exec")

# Default deadlines of the client spec: 5 s for "1"; for "0", 5 s plus the
# grace period, which the caller knows and we do not (10 s covers proctord's
# default of 50 ms with plenty to spare).
TIMEOUT_CONTINUE = 5.0
TIMEOUT_TERMINATE = 10.0

# proctord keeps an answer under 1024 bytes and any server under PIPE_BUF;
# anything far beyond that is not an answer, and must not eat our memory.
_MAX_ANSWER = 65536

# While it waits for an answer, the client looks this often whether proctord
# still holds its lifetime lock on DIR (flock LOCK_EX, PROTOCOL.md section 9).
_ALIVE_CHECK = 0.020


# Sizes as proctord reads them (proctord(8), UNITS): a number with its unit,
# only 0 bare, KB..TB refused. size() spells a size for proctord's command
# line or proctor.conf the same way, so that a script fails where proctord
# would, not with another size than it meant.
_SIZE_RE = re.compile(r"\s*(\d+(?:\.\d+)?|\.\d+)\s*([A-Za-z]*)\s*\Z")
_SIZE_UNITS = ("b", "k", "kib", "m", "mib", "g", "gib", "t", "tib")
_SIZE_BARE = ("a size needs its unit: B (bytes), KiB (isolate's unit), MiB, GiB, or K, M, G, T; "
              "only 0 may be bare")
_SIZE_DECIMAL = ("KB, MB, GB and TB are 1000^n bytes to some and 1024^n to others (Docker): "
                 "write KiB, MiB, GiB, TiB (1024^n), or the bytes with B")


def size(value) -> str:
    """A size for proctord: an int is bytes ("262144B"; 0 is "0"); a str is
    checked as proctord checks it and returned as it is ("256MiB",
    "unlimited"). Raises ValueError with proctord's words for a bare number
    other than 0 (isolate counts KiB: write "262144KiB") and for KB..TB."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise TypeError("size() takes an int (bytes) or a str such as \"256MiB\"")
    if isinstance(value, int):
        if value < 0:
            raise ValueError("negative values are not accepted")
        return "%dB" % value if value else "0"
    if value.strip().lower() == "unlimited":
        return value
    m = _SIZE_RE.match(value)
    if not m:
        raise ValueError("%r: expected a number with its unit, such as 256MiB" % value)
    number, unit = m.group(1), m.group(2).lower()
    if unit in ("kb", "mb", "gb", "tb"):
        raise ValueError("%r: %s" % (value, _SIZE_DECIMAL))
    if unit == "" and number.strip("0.") != "":
        raise ValueError("%r: %s" % (value, _SIZE_BARE))
    if unit not in _SIZE_UNITS + ("",):
        raise ValueError("%r: unknown size unit (use B, KiB, MiB, GiB, TiB, or K, M, G, T)" % value)
    return value


class ProctorError(Exception):
    """Base of every error a wait call raises."""


class NoSandbox(ProctorError):
    """DIR is not (or no longer) a sandbox: its lock or wait FIFO is missing."""


class DaemonGone(ProctorError):
    """The sandbox's files are there but its proctord is gone (died, or nobody reads DIR/wait)."""


class Timeout(ProctorError):
    """The deadline passed before the answer came (lock held, server stuck or ending)."""


class NotExited(ProctorError):
    """The terminating wait got its answer (.result), but proctord had not
    removed its files and exited by the deadline."""

    def __init__(self, message: str, result: "Result"):
        super().__init__(message)
        self.result = result


class MalformedAnswer(ProctorError):
    """The server's answer is not three well-formed lines."""

    def __init__(self, message: str, answer: bytes):
        super().__init__(message)
        self.answer = answer


class ProctorOSError(ProctorError, OSError):
    """Any other system error (permissions, descriptors, ...), with its errno."""


@dataclasses.dataclass(frozen=True)
class Result:
    """One parsed answer."""

    cpu_us: int                 # CPU of the whole tree, microseconds, monotonic
    memory_bytes: int           # resident memory of the live tree now; 0 once ended
    kind: str                   # running, exited, signaled, killed, failed or invalid
    exit_code: Optional[int]    # for "exited"
    signal: Optional[str]       # for "signaled", e.g. "SIGSEGV"
    reason: Optional[str]       # for "killed" (cpu-time, ...) and "failed" (the stage)
    head: str                   # the status line up to the first ':'
    text: str                   # after ': ', for people only; may change between versions
    status: str                 # the whole status line
    syscall: Optional[str] = None  # for "killed syscall": the denied call, e.g. "keyctl"

    @property
    def final(self) -> bool:
        # "invalid" says nothing about the program, so it is not final either.
        return self.kind in ("exited", "signaled", "killed", "failed")


def _escape(data: bytes, limit: int = 120) -> str:
    # Error messages must stay one printable line whatever the server sent.
    out = "".join(chr(b) if 0x20 <= b < 0x7F and b != 0x5C else "\\x%02x" % b for b in data[:limit])
    return out + ("..." if len(data) > limit else "")


# Bytes regexes, not int(): int() would also take "+1", " 1", "1_0" and non-ASCII digits.
_DIGITS = re.compile(rb"[0-9]+\Z")
_EXIT = re.compile(r"exited (0|[1-9][0-9]{0,2})\Z")
_SIGNALED = re.compile(r"signaled (SIG[A-Z0-9]+(?:[+-][0-9]+)?)\Z")
_WORD = re.compile(r"(killed|failed) ([a-z][a-z0-9-]*)\Z")
_SYSCALL = re.compile(r"[a-z0-9_]+")


def parse(answer: bytes) -> Result:
    """Parse one answer (the bytes read from DIR/status up to end of file)."""

    def bad(why: str) -> MalformedAnswer:
        return MalformedAnswer("malformed answer (%s): %s" % (why, _escape(answer)), answer)

    if not isinstance(answer, (bytes, bytearray)):
        raise TypeError("parse() takes bytes")
    answer = bytes(answer)
    if not answer.endswith(b"\n") or answer.count(b"\n") != 3:
        raise bad("not three lines")
    cpu, mem, line = answer[:-1].split(b"\n")
    if not _DIGITS.match(cpu) or not _DIGITS.match(mem):
        raise bad("figures are not decimal integers")
    if not line or b"\r" in line or b"\0" in line:
        raise bad("bad status line")
    # The text may hold any byte (file names); surrogateescape keeps it
    # round-trippable to the exact bytes with .encode(errors="surrogateescape").
    status = line.decode("utf-8", errors="surrogateescape")
    head, colon, text = status.partition(":")
    if colon and text.startswith(" "):
        text = text[1:]
    exit_code = sig = reason = None
    if head in ("running", "invalid"):
        kind = head
    elif head.startswith("exited "):
        m = _EXIT.match(head)
        if not m or int(m.group(1)) > 255:
            raise bad("bad exit code")
        kind, exit_code = "exited", int(m.group(1))
    elif head.startswith("signaled "):
        m = _SIGNALED.match(head)
        if not m:
            raise bad("bad signal name")
        kind, sig = "signaled", m.group(1)
    else:
        # An unknown killed reason or failed stage is kept as it is: the
        # protocol tells clients to treat it as a generic "killed"/"failed".
        m = _WORD.match(head)
        if not m:
            raise bad("unknown head")
        kind, reason = m.group(1), m.group(2)
    syscall = None
    if head == "killed syscall":
        # The text starts with the name of the call.
        m = _SYSCALL.match(text)
        if not m:
            raise bad("killed syscall without the call's name")
        syscall = m.group(0)
    return Result(int(cpu), int(mem), kind, exit_code, sig, reason, head, text, status, syscall)


def _left(deadline: float) -> float:
    return deadline - time.monotonic()


def _oserror(e: OSError, what: str) -> ProctorOSError:
    return ProctorOSError(e.errno, "%s: %s" % (what, os.strerror(e.errno or 0)))


def _open_dir(directory: str) -> Optional[int]:
    # For proctord's lifetime lock; None when we may not read DIR (mode
    # 0711, say): calls still work then, without that check.
    try:
        return os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        if e.errno in (errno.ENOENT, errno.ENOTDIR):
            raise NoSandbox("no sandbox at %s" % directory) from e
        return None


def _server_gone(dirfd: Optional[int]) -> bool:
    """True when no proctord holds its lock on DIR, so none is alive there."""
    if dirfd is None:
        return False
    try:
        fcntl.flock(dirfd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return False
    fcntl.flock(dirfd, fcntl.LOCK_UN)
    return True


def _lock(directory: str, deadline: float) -> int:
    path = os.path.join(directory, "lock")
    try:
        # No O_CREAT: a missing lock file means the sandbox has ended.
        # Never blocking, and only a regular file: a FIFO there would hang.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as e:
        if e.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
            raise NoSandbox("no sandbox at %s" % directory) from e
        raise _oserror(e, path) from e
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise NoSandbox("no sandbox at %s (its lock is not a regular file)" % directory)
    # LOCK_NB in a loop rather than a blocking flock: a blocking one could
    # only be bounded with signals, which a library must not take over.
    pause = 0.001
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except OSError as e:
            if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                os.close(fd)
                raise _oserror(e, path) from e
        left = _left(deadline)
        if left <= 0:
            os.close(fd)
            raise Timeout("timed out waiting for the lock of %s" % directory)
        time.sleep(min(pause, left))
        pause = min(pause * 2, 0.020)


def _send(directory: str, request: bytes, deadline: float) -> None:
    path = os.path.join(directory, "wait")
    gone = NoSandbox("no sandbox at %s" % directory)
    try:
        # The sandbox may have ended while we waited for the lock; and a
        # non-FIFO here is not a sandbox we should write to.
        if not stat.S_ISFIFO(os.stat(path).st_mode):
            raise gone
        # O_NONBLOCK: a blocking open would wait for ever for a dead server;
        # this one fails at once with ENXIO instead.
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        if e.errno in (errno.ENOENT, errno.ENOTDIR):
            raise gone from e
        if e.errno == errno.ENXIO:
            raise DaemonGone("proctord is gone (nobody reads %s)" % path) from e
        raise _oserror(e, path) from e
    try:
        while True:
            try:
                # One write, so a request (< PIPE_BUF) is never interleaved.
                n = os.write(fd, request)
                if n != len(request):
                    raise ProctorOSError(errno.EIO, "%s: short write" % path)
                return
            except BlockingIOError:
                # A full FIFO means a stuck server: retry only until the deadline.
                if _left(deadline) <= 0:
                    raise Timeout("timed out writing to %s" % path) from None
                time.sleep(0.001)
            except BrokenPipeError as e:
                raise DaemonGone("proctord is gone (nobody reads %s)" % path) from e
            except OSError as e:
                raise _oserror(e, path) from e
    finally:
        os.close(fd)


def _receive(directory: str, deadline: float, dirfd: Optional[int] = None) -> bytes:
    path = os.path.join(directory, "status")
    try:
        # O_NONBLOCK so that the open never blocks; the wait is in poll(),
        # where the deadline holds. A FIFO reader that has never seen a
        # writer gets no POLLHUP on Linux, so poll() waits for proctord.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        if e.errno in (errno.ENOENT, errno.ENOTDIR):
            raise NoSandbox("no sandbox at %s" % directory) from e
        raise _oserror(e, path) from e
    if not stat.S_ISFIFO(os.fstat(fd).st_mode):
        os.close(fd)
        raise NoSandbox("no sandbox at %s (its status is not a FIFO)" % directory)
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        data = b""
        gone = False
        while True:
            left = _left(deadline)
            if left <= 0 and not gone:
                raise Timeout("timed out waiting for the answer on %s" % path)
            events = poller.poll(0 if gone else max(1, int(min(left, _ALIVE_CHECK) * 1000 + 0.999)))
            if not events:
                if gone:
                    raise DaemonGone("proctord is gone (it died without answering)")
                # A dead proctord never answers: say so at once rather than
                # at the deadline. It may have written its answer just before
                # it went, hence one more look at the FIFO.
                gone = _server_gone(dirfd)
                continue
            # Read only once poll() has seen the writer: before that a read()
            # on a writerless FIFO returns 0 and would pass for end of file.
            try:
                chunk = os.read(fd, 4096)
            except BlockingIOError:
                continue
            except OSError as e:
                raise _oserror(e, path) from e
            if not chunk:
                # End of file after the writer closed: the whole answer.
                # Reading to here (not to the third newline) is what keeps the
                # next call from finding the previous answer's writer.
                return data
            data += chunk
            if len(data) > _MAX_ANSWER:
                raise MalformedAnswer("malformed answer (too long): %s" % _escape(data), data)
    finally:
        os.close(fd)


def _await_exit(dirfd: Optional[int], deadline: float) -> bool:
    # After the terminating answer: proctord releases its lock on DIR once
    # it has removed its files, just before it exits.
    if dirfd is None:
        return True
    pause = 0.001
    while not _server_gone(dirfd):
        left = _left(deadline)
        if left <= 0:
            return False
        time.sleep(min(pause, left))
        pause = min(pause * 2, 0.010)
    return True


def _call(directory: str, request: bytes, timeout: float, await_exit: bool = False) -> bytes:
    """One wait call with a raw request; returns the raw answer (for tests and tools).

    With await_exit, returns only once proctord has released DIR (after a
    terminating request); raises NotExited, with the parsed answer, otherwise."""
    deadline = time.monotonic() + timeout
    dirfd = _open_dir(directory)
    try:
        lock = _lock(directory, deadline)
        try:
            if _server_gone(dirfd):
                raise DaemonGone("proctord is gone (it no longer holds %s)" % directory)
            _send(directory, request, deadline)
            answer = _receive(directory, deadline, dirfd)
        finally:
            # Closing the descriptor releases the lock, after the answer is read:
            # the lock must cover the write and the read together.
            os.close(lock)
        if await_exit and not _await_exit(dirfd, deadline):
            raise NotExited("proctord answered but did not exit within the timeout", parse(answer))
        return answer
    finally:
        if dirfd is not None:
            os.close(dirfd)


def wait(directory, terminate: bool = False, timeout: Optional[float] = None) -> Result:
    """Make one wait call: "1" (continue) or, with terminate, the final "0".

    Every step is bounded by one deadline, now + timeout (default 5 s for
    "1", 10 s for "0"; pass the grace period + 5 s if it is longer). A
    proctord that dies before or during the call raises DaemonGone within
    some 20 ms. With terminate, it is stop(): it returns once proctord has
    removed its files and exited.
    Raises NoSandbox, DaemonGone, Timeout, NotExited, MalformedAnswer or
    ProctorOSError.
    """
    if timeout is None:
        timeout = TIMEOUT_TERMINATE if terminate else TIMEOUT_CONTINUE
    directory = os.fsdecode(directory)
    if terminate:
        return parse(_call(directory, b"0\n", timeout, await_exit=True))
    return parse(_call(directory, b"1\n", timeout))


def stop(directory, timeout: Optional[float] = None) -> Result:
    """The terminating wait ("0"), as `proctor stop`: the program gets the
    grace period, then the tree is killed; returns the final answer once
    proctord has removed its files and exited, so that DIR can serve a new
    proctord at once. Default timeout 10 s (pass the grace period + 5 s if
    it is longer). Raises NotExited (its .result holds the final answer)
    when proctord has not exited by then, and what wait() raises.
    """
    return wait(directory, terminate=True, timeout=timeout)


def _main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="proctor.py", description="Make one wait call on a proctord sandbox.")
    ap.add_argument("command", choices=("wait", "stop"), help='wait: send "1"; stop: send the terminating "0"')
    ap.add_argument("dir", help="the sandbox directory")
    ap.add_argument("--json", action="store_true", help="print the answer as proctor wait --json does")
    ap.add_argument("--timeout", type=float, default=None, help="seconds (default 5 for wait, 10 for stop)")
    args = ap.parse_args(argv)
    error = None
    try:
        r = stop(args.dir, timeout=args.timeout) if args.command == "stop" else wait(args.dir, timeout=args.timeout)
    except NotExited as e:
        # The final answer came all the same: print it, then the error.
        r, error = e.result, e
    except ProctorError as e:
        print("proctor: %s" % e, file=sys.stderr)
        return 1
    _print(r, args.json)
    if error is not None:
        print("proctor: %s" % error, file=sys.stderr)
        return 1
    return 0


def answer_json(r: Result) -> dict:
    """The answer as proctor wait --json prints it: a document of type
    "answer" of proto/report.schema.json (proctor-report(5))."""
    reason = r.reason if r.kind == "killed" else None
    return {
        "version": 2, "type": "answer", "cpu_us": r.cpu_us, "memory_bytes": r.memory_bytes,
        "status": {
            "line": r.status, "head": r.head, "kind": r.kind, "text": r.text or None,
            "exit_code": r.exit_code, "signal": r.signal if r.kind == "signaled" else None,
            "reason": reason,
            "limit": reason if reason in KILL_REASONS and reason not in ("terminate", "syscall") else None,
            "stage": r.reason if r.kind == "failed" else None, "syscall": r.syscall or None,
        },
    }


def _print(r: Result, as_json: bool) -> None:
    if as_json:
        print(json.dumps(answer_json(r), sort_keys=True, separators=(",", ":")))
    else:
        # The status line goes out as the exact bytes the server sent.
        out = sys.stdout.buffer
        out.write(b"%d\n%d\n" % (r.cpu_us, r.memory_bytes))
        out.write(r.status.encode("utf-8", errors="surrogateescape") + b"\n")
        out.flush()


if __name__ == "__main__":
    sys.exit(_main())
