"""SIGINT, SIGTERM and SIGHUP as an exception (Stop), held back while sweep.json or a run's record is written."""

# The handler raises Stop where the sweep waits (a child, a pong's line), so every wait ends at once
# and the `finally` blocks stop the children. Inside `held()` it only notes the signal, which is
# raised as the block ends: a signal never leaves half a record. A second signal while stopping is
# ignored, as the bash sweep's `trap '' INT TERM` did.

import os
import signal
from contextlib import contextmanager

CAUGHT = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Stop(BaseException):
    """A signal stopped the sweep: not an Exception, so that no `except Exception` swallows it."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.name = signal.Signals(signum).name.removeprefix("SIG")  # INT, TERM, HUP
        self.said = f"SIG{self.name}"  # what stopped it, in sweep.json's message of the run it cut off
        self.code = 128 + signum  # the shell's exit status after such a signal: 130, 143, 129


_held = 0
_pending: Stop | None = None
_prog = "sweep"


def _caught(signum, _frame):
    global _pending
    for sig in CAUGHT:  # one stop is enough
        signal.signal(sig, signal.SIG_IGN)
    stop = Stop(signum)
    os.write(2, f"\n{_prog}: caught SIG{stop.name}: stopping\n".encode())  # unbuffered: safe inside any print
    if _held:
        _pending = stop
        return
    raise stop


def install(prog: str) -> None:
    """From now on a signal raises Stop; `prog` names the script in the line that says so."""
    global _prog
    _prog = prog
    for sig in CAUGHT:
        signal.signal(sig, _caught)


@contextmanager
def held():
    """Runs the block whole; a signal caught meanwhile is raised as it ends."""
    global _held, _pending
    _held += 1
    try:
        yield
    finally:
        _held -= 1
    if not _held and _pending is not None:
        stop, _pending = _pending, None
        raise stop
