"""How often the pooled quantiles' 95 % intervals cover the truth on synthetic sweeps (analysis/tests/synthetic.py),
how often they are printed, what the old estimator (the mean of the runs' own quantiles) gave instead, and how the
paired Δp99 behaves on A/A pairs and on a planted rare delay. Prints Markdown tables; a few minutes on 2 CPUs:
python3 -m analysis.tests.coverage [--points N]"""

import argparse
import math
import multiprocessing
from dataclasses import dataclass

import numpy as np

from analysis import quantiles, uncertainty
from suite import percentile

from . import synthetic

QUANTILES = {"p50": 0.5, "p99": 0.99, "p999": 0.999}
SIZES = (1, 10, 100, 1_000, 10_000)  # samples a run: 10 msg/s … 100 k msg/s in a 0.1 s window
ROUNDS = (80, 14)  # the default sweep's rounds; the throughput and two-host sweeps'
POINTS = 1_000
CHUNK = 50  # points a task: small enough that both CPUs stay busy to the end
SEED = 39
VERDICTS = {"slower": 1.0, "faster": -1.0, "same": 0.0, "undecided": 0.0}  # a call: 1 or −1


@dataclass(frozen=True)
class Cell:
    model: synthetic.Model
    rounds: int
    size: int
    points: int = POINTS


def _seed(cell: Cell, kind: int, start: int) -> np.random.Generator:
    return np.random.default_rng([SEED, kind, cell.rounds, cell.size, start])


def point_outcomes(runs: list[np.ndarray], truths: np.ndarray) -> np.ndarray:
    """One point's outcome for each quantile, a row of: printed, covered, missed above, covered if printed
    anyway (Woodruff's interval with its ends clipped to the samples), pooled ÷ truth, old ÷ truth, and the plain
    t interval's (without the skewness term): printed, covered."""
    qs = list(QUANTILES.values())
    found = quantiles.estimates(runs, QUANTILES)
    widened, plain = quantiles.woodruff(runs, qs), quantiles.woodruff(runs, qs, skewed=False)
    value, low, high = widened.values, widened.lows, widened.highs
    plain_low, plain_high, plain_inside = plain.lows, plain.highs, plain.inside
    matrix = np.stack(runs)
    old = np.array([matrix[:, percentile.index(matrix.shape[1], 100 * q)].mean() for q in qs])
    out = np.zeros((len(qs), 8))
    for j, name in enumerate(QUANTILES):
        e = found[name]
        printed = isinstance(e, uncertainty.Estimate) and not math.isnan(e.low)
        out[j, :3] = (printed, printed and e.contains(truths[j]), printed and truths[j] > e.high)
        out[j, 3] = low[j] <= truths[j] <= high[j]
        out[j, 4:6] = value[j] / truths[j], old[j] / truths[j]
        plain = isinstance(e, uncertainty.Estimate) and plain_inside[j]
        out[j, 6:] = plain, plain and plain_low[j] <= truths[j] <= plain_high[j]
    return out


def _coverage_task(task: tuple[Cell, int]) -> np.ndarray:
    cell, start = task
    rng = _seed(cell, 0, start)
    truths = np.array([synthetic.truth(cell.model, q) for q in QUANTILES.values()])
    count = min(CHUNK, cell.points - start)
    return np.stack([point_outcomes(synthetic.point(cell.model, rng, cell.rounds, cell.size), truths)
                     for _ in range(count)])


def _difference_task(task: tuple[Cell, int, int]) -> np.ndarray:
    """Per point: A/A Δp50 and Δp99 (printed, the interval excludes 0, the verdict: 1 slower, −1 faster, 0 neither),
    and the same six for the planted delay on the first point's pong; NaN where refused."""
    cell, start, every = task
    rng = _seed(cell, 1, start)
    rows = []
    for _ in range(min(CHUNK, cell.points - start)):
        row = []
        for delay_every, delay_ns in ((0, 0.0), (every, 200_000.0)):
            theirs, mine = synthetic.paired(cell.model, rng, cell.rounds, cell.size,
                                            delay_every=delay_every, delay_ns=delay_ns)
            change = quantiles.paired_deltas(mine, theirs, {"p50": 0.5, "p99": 0.99})
            reference = quantiles.pooled_quantiles(theirs, [0.5, 0.99])
            for j, name in enumerate(("p50", "p99")):
                e = change.get(name)
                if not isinstance(e, uncertainty.Estimate) or math.isnan(e.low):
                    row += [0.0, math.nan, math.nan]
                    continue
                row += [1.0, not e.contains(0.0), VERDICTS[uncertainty.verdict(e, reference[j])]]
        rows.append(row)
    return np.array(rows, dtype=np.float64)


def _run(function, tasks, workers: int) -> list[np.ndarray]:
    if workers == 1:
        return [function(t) for t in tasks]
    with multiprocessing.Pool(workers) as pool:
        return pool.map(function, tasks, chunksize=1)


def coverage(cells: list[Cell], workers: int = 2) -> dict[Cell, np.ndarray]:
    """cell → points × quantiles × point_outcomes' six columns."""
    tasks = [(cell, start) for cell in cells for start in range(0, cell.points, CHUNK)]
    results = _run(_coverage_task, tasks, workers)
    return {cell: np.concatenate([r for (c, _), r in zip(tasks, results) if c == cell]) for cell in cells}


def differences(cells: list[Cell], every: int = 50, workers: int = 2) -> dict[Cell, np.ndarray]:
    tasks = [(cell, start, every) for cell in cells for start in range(0, cell.points, CHUNK)]
    results = _run(_difference_task, tasks, workers)
    return {cell: np.concatenate([r for (c, _, _), r in zip(tasks, results) if c == cell]) for cell in cells}


def _share(flags: np.ndarray) -> str:
    flags = flags[~np.isnan(flags)]
    return f"{flags.mean():.3f}" if len(flags) else "–"


def coverage_table(found: dict[Cell, np.ndarray]) -> str:
    lines = ["| runs | samples a run | quantile | printed | covers (printed) | misses above | "
             "if printed anyway | plain t: printed, covers | pooled ÷ truth | old ÷ truth |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for cell, outcomes in found.items():
        for j, name in enumerate(QUANTILES):
            o = outcomes[:, j, :]
            printed, plain = o[:, 0] > 0, o[:, 6] > 0
            covers = f"**{o[printed, 1].mean():.3f}**" if printed.any() else "–"
            above = f"{o[printed, 2].sum() / max(1, (~o[printed, 1].astype(bool)).sum()):.0%}" if printed.any() else "–"
            if printed.any() and o[printed, 1].all():
                above = "–"
            without = f"{plain.mean():.3f}, {o[plain, 7].mean():.3f}" if plain.any() else "–"
            lines.append(f"| {cell.rounds} | {cell.size:_} | {quantiles.label(name)} | {printed.mean():.3f} | "
                         f"{covers} | {above} | {o[:, 3].mean():.3f} | {without} | {np.median(o[:, 4]):.3f} | "
                         f"{np.median(o[:, 5]):.3f} |".replace("_", " "))
    return "\n".join(lines)


def difference_table(found: dict[Cell, np.ndarray]) -> str:
    lines = ["| runs | samples a run | Δp99 printed | A/A Δp50 excludes 0 | A/A Δp99 excludes 0 | A/A Δp99 called | "
             "delay: Δp99 `slower` | delay: Δp50 called |", "|---|---|---|---|---|---|---|---|"]
    for cell, o in found.items():
        called = np.where(np.isnan(o), np.nan, o != 0)
        slower = np.where(np.isnan(o), np.nan, o == 1)
        lines.append(f"| {cell.rounds} | {cell.size:,} | {_share(o[:, 3])} | {_share(o[:, 1])} | {_share(o[:, 4])} | "
                     f"{_share(called[:, 5])} | {_share(slower[:, 11])} | {_share(called[:, 8])} |".replace(",", " "))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=POINTS, help="points a cell (default %(default)s)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default %(default)s)")
    parser.add_argument("--only", choices=("coverage", "differences"), help="one of the two studies")
    args = parser.parse_args()
    print(f"Quantiles.py's interval at {uncertainty.CONFIDENCE:.0%}, "
          f"uncertainty.TAIL_BEYOND = {uncertainty.TAIL_BEYOND}.\n")
    for model in (synthetic.VM, synthetic.DISTURBED, synthetic.TIMES_THREE) if args.only != "differences" else ():
        rounds = ROUNDS[:1] if model is synthetic.TIMES_THREE else ROUNDS
        points = args.points if model is synthetic.VM else args.points * 3 // 10  # the others: a second look
        print(f"Coverage, {model.name()}; truth: "
              + ", ".join(f"{quantiles.label(n)} {synthetic.truth(model, q) / 1000:.1f} µs" for n, q in QUANTILES.items())
              + "\n")
        print(f"{points} points a cell.\n")
        cells = [Cell(model, r, s, points) for r in rounds for s in SIZES]
        print(coverage_table(coverage(cells, args.workers)) + "\n", flush=True)
    if args.only != "coverage":
        cells = [Cell(synthetic.VM, r, s, args.points * 3 // 20) for r in ROUNDS for s in SIZES[2:]]
        print(f"Paired Δ, {synthetic.VM.name()}, {synthetic.VM.shared:.0%} of the drift shared by a round's two "
              f"points; the delay: +200 µs on one echo in 50; {cells[0].points} points a cell\n")
        print(difference_table(differences(cells, 50, args.workers)))


if __name__ == "__main__":
    main()
