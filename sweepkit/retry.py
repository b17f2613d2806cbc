"""A run that does not count is measured again, at the same place in its round, a bounded number of times: one whose
window held no sample, and a two-host sweep's run whose connection to host B dropped (or the sweep stops in one
line that names --continue)."""

# A window with no sample (the ping's log has no round trip, or a throughput run counted nothing) measured nothing:
# it is measured again at once, at most RETRIES times, each attempt named in sweep.json's `retries`; if every
# attempt stays empty, the run's status is `empty` with the reason its counters give (sweepkit/empty.py).
# Only the pongs started over ssh (sweepkit.pongs.RemotePongs) say when their connection was lost: ssh failed
# to connect, or ended while the run went on. Such a run, and a run whose ping failed on such a sweep (a link
# that drops mid-run fails the ping first), does not count: once B answers over ssh again, it is measured
# again, at most RETRIES times. When B does not answer within WAIT_S, or the retries are spent, the sweep stops
# as at a signal, its finished runs kept, and `--continue` picks it up.


from . import disturbance, modes, signals, state, table

RETRIES = 2
WAIT_S = 20  # for B to answer over ssh before a retry


class Dropped(signals.Stop):
    """The connection to host B is gone: the sweep stops, to be continued (exit status 1)."""

    def __init__(self, why: str):
        BaseException.__init__(self, why)
        self.name, self.said, self.code = "", why, 1


def measure(sweep, run):
    """The run measured by its mode, and again while its window held no sample or its connection to B dropped (see
    above): its Outcome, whose `empty` says why when its last attempt held no sample either."""
    mode, pongs = modes.of(run.point.kind), sweep.pongs
    for attempt in range(1, RETRIES + 2):
        outcome = mode.measure(sweep, run)
        lost = _lost(pongs, outcome)
        empty = _empty(sweep, run, mode, outcome) if lost is None else None
        if lost is None and (empty is None or attempt > RETRIES):
            outcome.empty = empty
            return outcome
        _discard(sweep, run)
        if lost is None:
            print(f"  {run.stem}: empty: {empty}: measured again (retry {attempt} of {RETRIES})", flush=True)
        elif attempt > RETRIES:
            raise _stopped(sweep, f"{lost}, and {RETRIES} retries of {run.stem} did no better")
        else:
            print(f"  {run.stem}: {lost}: measured again once {pongs.remote} answers (retry {attempt} of {RETRIES})",
                  flush=True)
            if not pongs.answers(WAIT_S):
                raise _stopped(sweep, f"{lost}, and {pongs.remote} has not answered over ssh for {WAIT_S} s")
        sweep.doc.setdefault("retries", []).append({"run": run.stem, "why": lost or f"empty: {empty}", "at": state.utc_now()})
        sweep.run_start = (sweep.clock(), disturbance.snapshot())
    raise AssertionError("unreachable")


def _discard(sweep, run) -> None:
    """This attempt does not count: its logs go, and the run is current again."""
    index = sweep.pending.index if sweep.pending else sweep.current
    sweep.pending, sweep.current = None, index
    sweep.remove_logs(run.stem)


def _empty(sweep, run, mode, outcome) -> str | None:
    """Why the run's window held no sample, when its binary ended well and its log says so (its mode's rule)."""
    if outcome.exit_code not in (None, 0) or outcome.status not in (None, "ok") or sweep.pending is None:
        return None
    log = table.read(sweep.folder / f"{run.stem}.json")
    return mode.empty(log) if log is not None else None


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
