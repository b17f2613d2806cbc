"""A two-host sweep's run whose connection to host B dropped: measured again a bounded number of times, or the
sweep stopped in one line that names --continue."""

# Only the pongs started over ssh (sweepkit.pongs.RemotePongs) say when their connection was lost: ssh failed
# to connect, or ended while the run went on. Such a run, and a run whose ping failed on such a sweep (a link
# that drops mid-run fails the ping first), does not count: once B answers over ssh again, it is measured
# again, at most RETRIES times. When B does not answer within WAIT_S, or the retries are spent, the sweep stops
# as at a signal, its finished runs kept, and `--continue` picks it up.


from . import disturbance, modes, signals, state

RETRIES = 2
WAIT_S = 20  # for B to answer over ssh before a retry


class Dropped(signals.Stop):
    """The connection to host B is gone: the sweep stops, to be continued (exit status 1)."""

    def __init__(self, why: str):
        BaseException.__init__(self, why)
        self.name, self.said, self.code = "", why, 1


def measure(sweep, run):
    """The run measured by its mode, and again while its connection to B dropped (see above): its Outcome."""
    mode, pongs = modes.of(run.point.kind), sweep.pongs
    for attempt in range(1, RETRIES + 2):
        outcome = mode.measure(sweep, run)
        why = _lost(pongs, outcome)
        if why is None:
            return outcome
        index = sweep.pending.index if sweep.pending else sweep.current
        sweep.pending, sweep.current = None, index  # this attempt does not count
        sweep.remove_logs(run.stem)
        if attempt > RETRIES:
            raise _stopped(sweep, f"{why}, and {RETRIES} retries of {run.stem} did no better")
        print(f"  {run.stem}: {why}: measured again once {pongs.remote} answers (retry {attempt} of {RETRIES})",
              flush=True)
        if not pongs.answers(WAIT_S):
            raise _stopped(sweep, f"{why}, and {pongs.remote} has not answered over ssh for {WAIT_S} s")
        sweep.doc.setdefault("retries", []).append({"run": run.stem, "why": why, "at": state.utc_now()})
        sweep.run_start = (sweep.clock(), disturbance.snapshot())
    raise AssertionError("unreachable")


def _lost(pongs, outcome) -> str | None:
    """Why the run does not count: its connection to B dropped, or its ping failed while B's pong ran over ssh
    (unless the ping said why: io_uring unavailable, or its watchdog); None when it counts."""
    if not hasattr(pongs, "answers"):
        return None
    if pongs.dropped:
        return pongs.dropped
    failed = outcome.exit_code not in (None, 0)
    if failed and not state.unavailable(outcome.tails) and not state.unfinished("failed", outcome.tails):
        return f"the ping failed (status {outcome.exit_code}) against {pongs.remote}'s pong"
    return None


def _stopped(sweep, why: str) -> Dropped:
    """The line that stops the sweep, naming --continue; the exception that stops it."""
    print(f"{sweep.prog}: the connection to {sweep.pongs.remote} dropped: {why}: stopping; finished runs stay in "
          f"{sweep.folder}; when {sweep.pongs.remote} answers again: ./run-network.sh --continue {sweep.folder}",
          flush=True)
    return Dropped(f"a dropped connection to {sweep.pongs.remote}")
