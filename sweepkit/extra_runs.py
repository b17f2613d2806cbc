"""The runs after the rounds (PROBED's probed runs, TRACE's traced ones): their points, their order, each a fresh pong
and ping whose own logs go to the scratch folder, and the one line each says."""

# Both kinds are runs of the plan's points outside every estimate: what they keep is an entry in sweep.json
# (`probed`, `traces`), never the ping's logs. They run in rounds ordered as the measured ones (each setting's
# frameworks back to back under ORDER=blocks), so that a runtime's extra run and std's of one round pair up as
# their measured runs do. Each kind draws its order from a seed of its own (SEED + SEED_OFFSET[kind]): still fixed
# by SEED, but not the first measured rounds' order again, and TRACE's order is the same with PROBED or without.

from pathlib import Path

from . import plan

SEED_OFFSET = {"traced": 1, "probed": 2}


def points(sweep, wanted) -> tuple[list, list[str]]:
    """The plan's points that `wanted(point)` takes, each once in the plan's order, and the stems of those left out
    as given up (a point whose runs the ping's watchdog ended: another run would only be ended again)."""
    chosen = [p for p in {run.point.stem: run.point for run in sweep.runs}.values() if wanted(p)]
    return [p for p in chosen if p.stem not in sweep.given_up], [p.stem for p in chosen if p.stem in sweep.given_up]


def order(kind: str, points: list, count: int, spec) -> list[plan.Run]:
    """`count` rounds of `points`, as plan.runs orders the measured ones, from this kind's seed."""
    return plan.runs(points, count, spec.seed + SEED_OFFSET[kind], spec.order)


def logs(stem: Path) -> tuple[Path, Path]:
    """STEM.json and STEM.csv (a stem such as std-tcp-64B-0.001s-0t has dots of its own: no with_suffix)."""
    return stem.parent / f"{stem.name}.json", stem.parent / f"{stem.name}.csv"


def one(sweep, point, stem: Path, entry: dict, measure, failing: str, errors=(OSError,)) -> dict:
    """`entry` after a fresh pong of `point` and `measure(target)`, which returns what to add to it; the pong is
    stopped and the ping's logs at STEM removed whatever happens. A pong not ready, or an error of `errors`
    (said after `failing`, e.g. "not traced"), leaves the entry as it was, with its message."""
    try:
        target, why = sweep.pongs.start(point.binary, point.transport, point.end_args("pong"), point.port,
                                        sweep.tmp / "pong.err", point.bin_dir)
        if target is None:
            return entry | {"message": f"pong not ready: {why}"}
        return entry | measure(target)
    except errors as error:
        return entry | {"message": f"{failing}: {error}"}
    finally:
        sweep.pongs.stop()
        for path in logs(stem):
            path.unlink(missing_ok=True)


def said(kind: str, entry: dict) -> None:
    """The entry's one line: `  probed STEM (round K): ok`, with its message when it has one."""
    print(f"  {kind} {entry['point']} (round {entry['round']}): {entry['status']}"
          + (f" ({entry['message']})" if entry["message"] else ""), flush=True)


def left_out(knob: str, given_up: list[str]) -> None:
    """One line naming the points given up, which get no run of this kind."""
    if given_up:
        print(f"{knob}: not run for {', '.join(given_up)}: given up in the rounds (their runs were unfinished)",
              flush=True)
