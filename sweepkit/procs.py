"""A sweep's child processes: start one, wait for its line or its end with a deadline, stop it by its PID."""

# Every wait has a deadline; a child that outlives it gets SIGTERM (or the signal asked for), then
# SIGKILL. A signal to the sweep (sweepkit.signals.Stop) ends any wait at once, and the callers'
# `finally` blocks stop what they started. Nothing here ever signals a process it did not start.
# And when the sweep itself dies with no chance to stop them (kill -9, the OOM killer), each child is
# killed by the kernel (the parent-death signal, set in the child before it execs): none outlives it.

import ctypes
import os
import re
import select
import signal
import subprocess
import time
from pathlib import Path

from . import signals

TIMED_OUT = 124  # a child stopped at its deadline reads as `timeout`'s status, as the records expect
KILL_AFTER_S = 2  # from the stop signal to SIGKILL, for a child past its deadline
# Descriptors every child inherits: TUNE's open /dev/cpu_dma_latency (sweepkit.local.hold_cpus_awake).
KEEP_FDS: list[int] = []
LIVE: set["Child"] = set()  # started and not reaped: stop_all's, whatever stopped the sweep
PR_SET_PDEATHSIG = 1  # prctl(2)
_LIBC = ctypes.CDLL(None, use_errno=True)


def dies_with_sweep(parent: int | None = None):
    """A Popen preexec_fn: the child gets SIGKILL when the sweep's thread that started it ends, however it ends.
    The setting survives exec (taskset and nice exec the binary) but not a set-user-ID one; a sweep that died
    between the fork and the prctl is seen as a new parent, and the child ends at once."""
    parent = os.getpid() if parent is None else parent

    def preexec():
        _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)
    return preexec


class Child:
    """A started process; with `stdout=subprocess.PIPE`, its output can be read line by line."""

    def __init__(self, argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL):
        out, err = _open(stdout), _open(stderr)
        try:
            with signals.held():  # never a child started and not remembered
                self.proc = subprocess.Popen([str(a) for a in argv], stdin=stdin, stdout=out, stderr=err,
                                             pass_fds=KEEP_FDS, preexec_fn=dies_with_sweep())
                LIVE.add(self)
        finally:
            for f in (out, err):
                if hasattr(f, "close"):
                    f.close()
        self.pid = self.proc.pid
        self._buffer = b""

    def await_line(self, pattern: re.Pattern, timeout_s: float) -> tuple[int, re.Match | None]:
        """Reads lines until one matches: (0, the match); (1, None) at EOF (the writer is gone); (2, None)
        once `timeout_s` has passed."""
        deadline = time.monotonic() + timeout_s
        fd = self.proc.stdout.fileno()
        while True:
            while b"\n" in self._buffer:
                line, self._buffer = self._buffer.split(b"\n", 1)
                found = pattern.fullmatch(line.decode(errors="replace").rstrip("\r"))
                if found:
                    return 0, found
            left = deadline - time.monotonic()
            if left <= 0:
                return 2, None
            if not select.select([fd], [], [], left)[0]:
                return 2, None
            chunk = os.read(fd, 4096)
            if not chunk:
                return 1, None
            self._buffer += chunk

    def wait(self, timeout_s: float) -> int | None:
        """Its exit status, or None if it still runs after `timeout_s`. Woken by the kernel the moment it
        exits (a pidfd), where Popen.wait(timeout) polls, up to 50 ms late: a run waits for two children."""
        if self.proc.poll() is not None:
            return self.proc.returncode
        try:
            pidfd = os.pidfd_open(self.pid)
        except (AttributeError, OSError):  # before Linux 5.3
            try:
                return self.proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                return None
        try:
            ended = select.select([pidfd], [], [], max(0.0, timeout_s))[0]
        finally:
            os.close(pidfd)
        return self.proc.wait() if ended else None

    def stop(self, grace_s: float = 5, sig: int = signal.SIGTERM) -> int:
        """Sends `sig` unless it has ended, then `finish`."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.finish(grace_s)

    def finish(self, grace_s: float) -> int:
        """Waits up to `grace_s` for it to end, then SIGKILL; reaps it and closes its pipes."""
        if self.wait(grace_s) is None:
            self.proc.kill()
            self.proc.wait()
        LIVE.discard(self)
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:  # a remote end gone: its stdin cannot be flushed
                    pass
        return self.proc.returncode


def stop_all() -> None:
    """Stops every child still running: the last step of every way the sweep ends."""
    for child in list(LIVE):
        child.stop()


def _open(target):
    """A path opens as a file for the child's output; anything else is passed to Popen as it is."""
    if isinstance(target, (str, Path)):
        return open(target, "wb")
    return target


def run(argv, stdout, stderr, limit_s: float, sig: int = signal.SIGTERM, at: tuple | None = None) -> int:
    """Runs a command to its end, within `limit_s` seconds: its exit status, or TIMED_OUT when it had to
    be stopped (with `sig`, then SIGKILL after KILL_AFTER_S). `at`: (seconds, call): call(pid) once that
    long after the start, if the command still runs then."""
    child = Child(argv, stdout=stdout, stderr=stderr)
    try:
        code, waited = None, 0.0
        if at is not None and at[0] < limit_s:
            code, waited = child.wait(at[0]), at[0]
            if code is None:
                at[1](child.pid)
        if code is None:
            code = child.wait(limit_s - waited)
        if code is not None:
            return code
        child.stop(KILL_AFTER_S, sig)
        return TIMED_OUT
    finally:
        child.stop()


def output(argv, timeout_s: float = 5) -> str:
    """The first line a short command prints (e.g. a binary's --version), or "" if it fails or hangs."""
    try:
        done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout_s,
                              stdin=subprocess.DEVNULL, pass_fds=KEEP_FDS, preexec_fn=dies_with_sweep())
    except (OSError, subprocess.TimeoutExpired):
        return ""
    lines = done.stdout.splitlines()
    return lines[0].strip() if done.returncode == 0 and lines else ""
