"""How a run ended, as a mode's `measure` returns it to the runner: an exit status to judge, or a status and why."""

from dataclasses import dataclass


@dataclass
class Outcome:
    """How a run ended: a binary's exit status, judged with its logs by its mode; or a status and why."""

    exit_code: int | None = None
    status: str | None = None  # ok, failed or skipped, when there is no exit status to judge
    message: str | None = None
    tails: tuple = ()  # stderr files, shown when the run failed
    ends: dict | None = None  # each local end's threads late in the run (disturbance.threads), by end
    empty: str | None = None  # why its window held no sample, every retry's too (sweepkit/retry.py)
