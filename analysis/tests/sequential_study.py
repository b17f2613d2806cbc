"""How the sequential design (STOP=decided) calls its comparisons against the fixed one: on synthetic sweeps with a
known Δ (A/A, one and three times the fixed design's MDE), and on the rounds of real sweeps' A/A lines resampled.
Prints Markdown tables; a few minutes on 2 CPUs:
python3 -m analysis.tests.sequential_study [--replays N] [--replay SWEEP_DIR ...]"""

import argparse
import json
import math
import multiprocessing
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from suite import sequential, signed_rank, tdist
from suite.runtimes import BASELINE

from . import synthetic

REPEATS = 80  # the default sweep's
SIZE = 100  # samples a run: 1 k msg/s over the default 0.1 s window
SEED = 49
CHUNK = 50
# The VM of the issue: a Δp50's MDE of about 3 % at 80 rounds (paired rounds share most of their drift), and a
# harder one, synthetic.VM as it is (a paired Δ's MDE of about 4.6 %).
MODELS = {"VM, MDE ≈ 3 %": replace(synthetic.VM, shared=0.88), "VM, MDE ≈ 4.6 %": synthetic.VM}
EFFECTS = (0.0, 1.0, 3.0)  # the planted Δ, in MDEs: the sequential design's, as its rows print it


@dataclass(frozen=True)
class Cell:
    model: str
    effect: float  # in MDEs
    replays: int


def p50s(runs: list[np.ndarray]) -> np.ndarray:
    """Each run's nearest-rank p50 (its samples are sorted)."""
    return np.array([r[max(1, math.ceil(0.5 * len(r))) - 1] for r in runs], dtype=np.float64)


def taken(design: sequential.Design) -> list[sequential.Look]:
    """Every look of a design taken in turn (its boundaries depend on no data: computed once a process)."""
    looks = sequential.Looks(design)
    for r in design.rounds():
        looks.add(r, design.maximum, final=r == design.maximum)
    return looks.taken


DECIDED, FIXED = sequential.plan("decided", REPEATS), sequential.plan("fixed", REPEATS)
LOOKS = {"decided": taken(DECIDED), "fixed": taken(FIXED)}


def printed_mde(mine: np.ndarray, theirs: np.ndarray, look: sequential.Look) -> float:
    """The MDE a row prints for a comparison that ran to `look` (uncertainty.detectable of its signed-rank
    interval), as a share of theirs' median."""
    diffs = list(mine[:look.round] - theirs[:look.round])
    _, low, high = signed_rank.hodges_lehmann(diffs, look.confidence)
    factor = tdist.detectable_factor(len(diffs) - 1, look.confidence)
    return (high - low) / 2 * factor / float(np.median(theirs[:look.round]))


def verdicts(mine: np.ndarray, theirs: np.ndarray) -> tuple[str, int, str, float, float]:
    """(sequential verdict, rounds it ran, fixed design's verdict, the MDE each design's row prints had it run to
    its last round) of one replay's rounds. decide scans the looks in turn and stops at the first that decides:
    what the sweep does, the later rounds unread."""
    values = {r + 1: float(v) for r, v in enumerate(mine)}, {r + 1: float(v) for r, v in enumerate(theirs)}
    found = sequential.decide(*values, LOOKS["decided"], margin=DECIDED.margin, floor=DECIDED.floor, over=True)
    first = {r: v for r, v in values[0].items() if r <= REPEATS}, {r: v for r, v in values[1].items() if r <= REPEATS}
    plain = sequential.decide(*first, LOOKS["fixed"], margin=FIXED.margin, floor=FIXED.floor, over=True)
    rounds = found.look.round if found.decided_at else DECIDED.maximum
    mdes = printed_mde(mine, theirs, LOOKS["decided"][-1]), printed_mde(mine, theirs, LOOKS["fixed"][-1])
    return found.verdict, rounds, plain.verdict, *mdes


def _synthetic_task(task: tuple[Cell, float, int]) -> list[tuple[str, int, str]]:
    cell, shift, start = task
    rng = np.random.default_rng([SEED, int(100 * cell.effect), start, len(cell.model)])
    model = MODELS[cell.model]
    out = []
    for _ in range(min(CHUNK, cell.replays - start)):
        a, b = synthetic.paired(model, rng, sequential.plan("decided", REPEATS).maximum, SIZE)
        out.append(verdicts(p50s(a) * (1 + shift), p50s(b)))
    return out


def summarise(found: list[tuple[str, int, str]], planted: float) -> dict:
    """The shares called (the right way, the wrong way), the same, undecided; mean rounds; the fixed design's."""
    def shares(said: list[str]) -> dict:
        right = "slower" if planted > 0 else None
        called = [v for v in said if v in ("slower", "faster")]
        return {"called": len(called) / len(said), "wrong": sum(v != right for v in called) / len(said),
                "same": said.count("same") / len(said), "undecided": said.count("undecided") / len(said)}

    return {"sequential": shares([f[0] for f in found]), "rounds": float(np.mean([f[1] for f in found])),
            "fixed": shares([f[2] for f in found]), "replays": len(found)}


def synthetic_study(replays: int, pool) -> list[str]:
    """Each model's A/A cell first: the median MDE its rows print (each design's, had it run to its last round) is the
    unit of the planted Δ of the others, the sequential design's (larger: its last boundary is wider)."""
    lines = ["| model | planted Δ | called: sequential (fixed) | wrong way or A/A called | same | undecided | "
             "mean rounds (fixed: 80) | MDE printed: sequential (fixed) |", "|---|---|---|---|---|---|---|---|"]
    for name in MODELS:
        mde = math.nan
        for effect in EFFECTS:
            cell = Cell(name, effect, replays)
            tasks = [(cell, effect * mde if effect else 0.0, start) for start in range(0, replays, CHUNK)]
            found = [f for chunk in pool.map(_synthetic_task, tasks) for f in chunk]
            if not effect:
                mde, fixed_mde = float(np.median([f[3] for f in found])), float(np.median([f[4] for f in found]))
            s, shift = summarise(found, effect), effect * mde
            q, f = s["sequential"], s["fixed"]
            lines.append(f"| {name} | {effect:g} MDE ({100 * shift:.1f} %) | {q['called']:.3f} ({f['called']:.3f}) "
                         f"| {q['wrong']:.3f} ({f['wrong']:.3f}) | {q['same']:.3f} ({f['same']:.3f}) | "
                         f"{q['undecided']:.3f} ({f['undecided']:.3f}) | {s['rounds']:.1f} | "
                         f"{100 * mde:.2f} % ({100 * fixed_mde:.2f} %) |")
    return lines


def aa_pairs(folder: Path) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each A/A line's p50 and std's, round by round, of a STOP=fixed sweep: (line, std) per setting. An A/A
    line is a variant of std with `--delay-ns 0` (sweep.json variants)."""
    doc = json.loads((folder / "sweep.json").read_text())
    aa = {v["label"] for v in doc.get("variants") or () if v.get("base") == BASELINE and v.get("args") == ["--delay-ns", "0"]}
    points = {p["stem"]: p for p in doc["points"]}
    by: dict[tuple, dict[int, float]] = {}
    for run in doc["runs"]:
        p = points[run["point"]]
        if run["status"] == "ok" and run.get("p50_ns"):
            setting = (p["transport"], p.get("interval_s"))
            by.setdefault((p["framework"], setting), {})[run["round"]] = float(run["p50_ns"])
    out = []
    for (line, setting), rounds in by.items():
        std = by.get((BASELINE, setting), {})
        common = sorted(set(rounds) & set(std))
        if line in aa and len(common) >= REPEATS // 2:
            out.append((np.array([rounds[r] for r in common]), np.array([std[r] for r in common])))
    return out


def _replay_task(task: tuple[np.ndarray, np.ndarray, int, int]) -> list[tuple[str, int, str]]:
    """Replays of one A/A pair: rounds drawn with replacement, each round's two lines swapped half the time (with
    no difference either order is as likely: what ORDER=blocks' shuffle assures)."""
    line, std, count, seed = task
    rng = np.random.default_rng([SEED, seed])
    rounds = sequential.plan("decided", REPEATS).maximum
    out = []
    for _ in range(count):
        pick = rng.integers(0, len(line), rounds)
        swap = rng.random(rounds) < 0.5
        a, b = np.where(swap, std[pick], line[pick]), np.where(swap, line[pick], std[pick])
        out.append(verdicts(a, b))
    return out


def replay_study(folders: list[Path], replays: int, pool) -> list[str]:
    pairs = [pair for folder in folders for pair in aa_pairs(folder)]
    if not pairs:
        return [f"no A/A lines with {REPEATS // 2} rounds or more in {', '.join(map(str, folders))}"]
    tasks = [(line, std, replays, i) for i, (line, std) in enumerate(pairs)]
    s = summarise([f for chunk in pool.map(_replay_task, tasks) for f in chunk], 0.0)
    q, f = s["sequential"], s["fixed"]
    return ["| A/A pairs | replays | called: sequential (fixed) | same | undecided | mean rounds |",
            "|---|---|---|---|---|---|",
            f"| {len(pairs)} | {s['replays']} | {q['called']:.3f} ({f['called']:.3f}) | {q['same']:.3f} ({f['same']:.3f}) "
            f"| {q['undecided']:.3f} ({f['undecided']:.3f}) | {s['rounds']:.1f} |"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--replays", type=int, default=1000, help="replays a synthetic cell (default 1000)")
    parser.add_argument("--replay", type=Path, nargs="*", default=[], help="STOP=fixed sweep folders with A/A lines")
    parser.add_argument("--per-pair", type=int, default=200, help="replays of each recorded A/A pair (default 200)")
    args = parser.parse_args(argv)
    with multiprocessing.Pool(2) as pool:
        lines = synthetic_study(args.replays, pool) if args.replays else []
        if args.replay:
            lines += ["", *replay_study(args.replay, args.per_pair, pool)]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
