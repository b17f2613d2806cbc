"""STOP=decided: the sweep's comparisons, their verdicts at each planned look, and the lines that leave the rotation."""

# A comparison pairs a line's p50 with std's (or a variant's with its base's) by round, as the analysis does, with
# suite/sequential.py's decide on the same values: the runs' p50 that their logs hold and sweep.json records (and
# under STOP_ON=p50,p99 their p99 too, a comparison of its own with MARGIN_P99). A line
# whose comparisons at a setting are all decided runs there no more; std runs while any comparison of its setting
# is open; a reference without a comparison (ICMP, busy polling) leaves after the first look. And no point leaves
# before its runs' samples carry the quantiles the table prints for it (p50; p99 too under STOP_ON=p50,p99): a
# comparison decided at round 10 of runs of one message each would leave the line's own p50 unprinted. Which runs
# are left out depends on what was measured, so it is recorded: sweep.json `looks` and `retired`.

from dataclasses import dataclass

from suite import percentile, sequential
from suite.fmt import duration
from suite.palette import is_reference
from suite.runtimes import BASELINE

from . import carry


@dataclass(frozen=True)
class Comparison:
    """A line against another at one setting: line − against."""

    line: str
    against: str
    setting: tuple
    figure: str = "p50"  # the runs' figure compared (sequential.FIGURES)

    def label(self) -> str:
        transport, _payload, interval, *rest = self.setting
        rate = "b2b" if float(interval) == 0 else f"{1 / float(interval):g}/s"
        tail = f" {self.figure}" if self.figure != "p50" else ""
        return f"{self.line}−{self.against} {transport} {rate}" + "".join(f" {v}" for v in rest[:1] if v) + tail


def pairs(pr: dict | None, variants) -> tuple[dict[str, str], bool]:
    """What a sweep compares, as Rotation takes it: a PR check (sweep.json `pr`) its head against its base alone;
    any other sweep every variant against its base (`variants`: sweepkit.variants.Variant) and every line against std."""
    if pr:
        return {pr["head"]["label"]: pr["base"]["label"]}, False
    return {v.label: v.base for v in variants}, True


def comparisons(points, bases: dict[str, str], figures: tuple[str, ...] = ("p50",),
                against_std: bool = True) -> list[Comparison]:
    """Every line against std at its setting (unless not `against_std`), and every variant against its base
    (`bases`: label → base), for each of `figures`."""
    at: dict[tuple, set[str]] = {}
    for point in points:
        if not point.skipped:
            at.setdefault(point.setting, set()).add(point.framework)
    found = []
    for setting, lines in at.items():
        for line in sorted(lines):
            for figure in figures:
                if against_std and BASELINE in lines and line != BASELINE and not is_reference(line):
                    found.append(Comparison(line, BASELINE, setting, figure))
                if bases.get(line) in lines and bases[line] != BASELINE:
                    found.append(Comparison(line, bases[line], setting, figure))
    return found


def samples_by_point(runs, records) -> dict[str, list[int]]:
    """Point stem → the samples of each of its runs that ended ok (sweep.json runs[].samples)."""
    found: dict[str, list[int]] = {}
    for run, record in zip(runs, records):
        if record["status"] == "ok" and isinstance(record.get("samples"), int):
            found.setdefault(run.point.stem, []).append(record["samples"])
    return found


def values_by_round(runs, records, figure: str = "p50") -> dict[tuple, dict[int, float]]:
    """(framework, setting) → {round: the run's `figure` (its p50, p99)} of the runs that ended ok."""
    found: dict[tuple, dict[int, float]] = {}
    for run, record in zip(runs, records):
        value = record.get(f"{figure}_ns")
        if record["status"] == "ok" and isinstance(value, (int, float)):
            found.setdefault((run.point.framework, run.point.setting), {})[run.round] = float(value)
    return found


class Rotation:
    """The comparisons of a STOP=decided sweep, decided look by look, and the points that have left."""

    def __init__(self, design: sequential.Design, points, bases: dict[str, str], against_std: bool = True):
        self.looks = sequential.Looks(design)
        self.points = [p for p in points if not p.skipped]
        self.comparisons = comparisons(self.points, bases, design.stop_on, against_std)
        self.decisions: dict[Comparison, sequential.Decision] = {}
        self.retired: dict[str, int] = {}  # point stem → the round after which it runs no more

    def due(self, design: sequential.Design, done: int) -> bool:
        """Whether round `done` is a look of the design (as the spec holds it now: BUDGET may move its end)."""
        return design.sequential and done in design.rounds()

    def look(self, design: sequential.Design, done: int, runs, records) -> sequential.Look:
        """The look after round `done`: every open comparison decided or not, and the points that leave."""
        look = self.looks.add(done, design.maximum, final=done >= design.maximum)
        values = {figure: values_by_round(runs, records, figure) for figure in design.stop_on}
        over = done >= design.maximum
        for c in self.comparisons:
            if c in self.decisions and self.decisions[c].verdict != sequential.OPEN:
                continue
            mine, theirs = (values[c.figure].get((name, c.setting), {}) for name in (c.line, c.against))
            self.decisions[c] = sequential.decide(mine, theirs, self.looks.taken, margin=design.margin_of(c.figure),
                                                  floor=design.floor, over=over)
        open_, samples = set(self.open()), samples_by_point(runs, records)
        for point in self.points:
            carried = all(percentile.carried(samples.get(point.stem, ()), carry.QUANTILE_OF[f]) for f in design.stop_on)
            if point.stem not in self.retired and carried and self._settled(point, open_):
                self.retired[point.stem] = done
        return look

    def resume(self, doc: dict, runs) -> None:
        """The looks a sweep took before it was interrupted (sweep.json `looks`, `retired`), taken again, and each
        comparison's verdict decided again from the runs' records: --continue goes on from there."""
        self.looks.replay(doc.get("looks") or [])
        self.retired = {str(stem): int(r) for stem, r in (doc.get("retired") or {}).items()}
        if not self.looks.taken:
            return
        design, last = self.looks.design, self.looks.taken[-1].round
        values = {figure: values_by_round(runs, doc["runs"], figure) for figure in design.stop_on}
        for c in self.comparisons:
            mine, theirs = (values[c.figure].get((name, c.setting), {}) for name in (c.line, c.against))
            self.decisions[c] = sequential.decide({r: v for r, v in mine.items() if r <= last},
                                                  {r: v for r, v in theirs.items() if r <= last}, self.looks.taken,
                                                  margin=design.margin_of(c.figure), floor=design.floor, over=False)

    def open(self) -> list[Comparison]:
        return [c for c in self.comparisons if self.decisions.get(c) is None or
                self.decisions[c].verdict == sequential.OPEN]

    def _settled(self, point, open_: set) -> bool:
        """Whether no open comparison needs the point: it takes part in none open (std: none open at its setting),
        and a reference with no comparison leaves at the first look."""
        mine = [c for c in self.comparisons if c.setting == point.setting and
                (point.framework in (c.line, c.against) or point.framework == BASELINE)]
        if not mine:
            return is_reference(point.framework)
        return not open_.intersection(mine)

    def keeps(self, run) -> bool:
        """Whether a planned run still runs: its point has not left before its round."""
        left = self.retired.get(run.point.stem)
        return left is None or run.round <= left

    def record(self) -> dict:
        """sweep.json's `looks` and `retired`, and each comparison's verdict so far."""
        return {"looks": [look.record() for look in self.looks.taken], "retired": dict(self.retired),
                "decisions": [{"line": c.line, "against": c.against, "setting": list(c.setting), "figure": c.figure,
                               "verdict": d.verdict, "decided_at": d.decided_at, "pairs": d.pairs}
                              for c, d in self.decisions.items()]}

    def line(self, look: sequential.Look, maximum: int, eta_s: float | None) -> str:
        """What a look found, in one line: how many decided (and how), which are open, the ETA to the most rounds."""
        verdicts = [d.verdict for d in self.decisions.values()]
        decided = {v: verdicts.count(v) for v in (sequential.SLOWER, sequential.FASTER, sequential.SAME)}
        open_ = self.open()
        said = ", ".join(f"{n} {v}" for v, n in decided.items() if n)
        shown = ", ".join(c.label() for c in open_[:4]) + (f" and {len(open_) - 4} more" if len(open_) > 4 else "")
        left = len(self.points) - len(self.retired)
        eta = f"; ETA to round {maximum}: {duration(eta_s)}" if eta_s is not None and open_ else ""
        return (f"Look after round {look.round} (intervals at {100 * look.confidence:.2f} %): {sum(decided.values())} of "
                f"{len(self.comparisons)} comparisons decided" + (f" ({said})" if said else "")
                + (f"; open: {shown}" if open_ else "") + f"; {left} of {len(self.points)} points still run{eta}")
