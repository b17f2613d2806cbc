"""A run that ended, recorded: what its exit says (judge), what the sweep learns of its point (learn), its line (report)."""

from dataclasses import dataclass

from . import modes, noise, progress, retry, space, state
from .outcome import Outcome

# A point whose runs the ping's watchdog ended this often is not run again: each such run costs its 15 s, and
# what it shows (the runtime never ran the measurement to its end) two runs have shown.
GIVE_UP_AFTER = 2


@dataclass(frozen=True)
class Ended:
    """A run whose binary is over, its record not written yet: its index, outcome, and its start (the wall clock
    and disturbance.snapshot())."""

    index: int
    outcome: Outcome
    started: float
    snapshot: tuple


def judge(sweep, ended: Ended, run: dict, took_s: float) -> tuple[str, str | None]:
    """The run's status and message from its exit (its mode's rule); a write error it hit stops the sweep
    (raised, its logs removed and its record failed)."""
    outcome, point = ended.outcome, sweep.runs[ended.index].point
    status, message = outcome.status, outcome.message
    stem = sweep.folder / run["stem"]
    if outcome.exit_code is not None:
        fault = space.said(outcome.tails) if outcome.exit_code != 0 else None
        if fault is not None:  # the sweep stops: Sweep.faulted says so
            sweep.remove_logs(run["stem"])
            state.settle(run, "failed", f"cannot write {fault.path}: {fault.reason}", took_s)
            raise fault
        mode = modes.of(point.kind)
        status, message = mode.judge(outcome.exit_code, progress.seconds(mode.limit_s(sweep.spec, point)), stem)
    if status == "ok" and outcome.empty:  # measured again and still nothing: its logs hold no estimate
        sweep.remove_logs(run["stem"])
        return "empty", f"{outcome.empty} (and in its {retry.RETRIES} retries)"
    return state.skip_unavailable(status, message, outcome.tails, stem)


def learn(sweep, point_stem: str, status: str, message: str | None, tails) -> tuple[str, str | None]:
    """A run the ping's watchdog ended is the point's own finding (std with 1 000 timer threads), not a fault of
    the sweep: skipped, counted, and after GIVE_UP_AFTER of them its later rounds are not run."""
    unfinished = state.unfinished(status, tails)
    if not unfinished:
        return status, message
    sweep.unfinished[point_stem] = sweep.unfinished.get(point_stem, 0) + 1
    if sweep.unfinished[point_stem] == GIVE_UP_AFTER:
        unfinished += f"; after {GIVE_UP_AFTER} such runs its later rounds are not run"
        sweep.given_up[point_stem] = f"{GIVE_UP_AFTER} of its runs were unfinished"
        sweep.costs.drop(point_stem)
    return "skipped", unfinished


def report(sweep, index: int, status: str, outcome: Outcome, elapsed_s: float) -> list[str]:
    """The run's progress line with the ETA its points' costs give; a failure's output; after the first rounds,
    the machine's noise if loud."""
    left = [r.point.stem for r, record in zip(sweep.runs[index + 1:], sweep.doc["runs"][index + 1:])
            if record["status"] == "planned"]
    eta = sweep.costs.left_s(left) if sweep.costs.seen else None  # else the plan's constant (Mode.eta_s)
    kind = sweep.runs[index].point.kind
    lines = [progress.progress_line(sweep.doc, index, elapsed_s, sweep.spec, kind, eta)]
    if status == "failed":
        lines += progress.tails(outcome.tails)
    if noise.due(sweep.runs, index):  # the first rounds measured the machine's noise: name it if loud
        round_s = sweep.costs.left_s(dict.fromkeys(r.point.stem for r in sweep.runs))
        lines += filter(None, [noise.line(sweep.runs, sweep.doc["runs"], sweep.doc["repeats"], round_s)])
    return lines
