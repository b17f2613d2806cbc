"""Before anything runs, once the spec is parsed: the binaries the sweep runs, and the plan of its points and runs."""

import sys

from suite import runtimes
from suite.fmt import duration

from . import modes, plan as plan_mod, pr, progress, variants
from .checks import MAX_REPEATS
from .knobs import Checked
from .selection import has_pong, pong_entries
from .spec import Spec


def measured_prefixes(checked: Checked, spec: Spec) -> list[str]:
    """The binary prefixes whose binaries the sweep runs: runtimes, references measured by the suite's
    binaries and variants' bases (a version variant's are its own build's), (MODE=micro: every entry left, each with
    a <prefix>-micro), in the list's order."""
    mode = modes.of(spec.mode)
    chosen = {e.label for e in checked.selection if mode.measures_entry(e)} | {v.base for v in checked.variants
                                                                               if not v.version}
    return list(dict.fromkeys(e.binary_prefix for e in runtimes.entries() if e.label in chosen))


def all_prefixes() -> list[str]:
    return list(dict.fromkeys(e.binary_prefix for e in pong_entries()))


def references(checked: Checked) -> list[str]:
    """The references selected that run another program (the system ping)."""
    return [e.label for e in checked.selection if not has_pong(e)]


def runtime_flags(doc: dict, spec: Spec) -> str:
    """The flags that select the entries whose binaries run (MODE=micro: every entry), e.g. -St."""
    mode = modes.of(spec.mode)
    flags = "".join(e.flag for e in map(runtimes.by_label, doc["frameworks"]) if mode.measures_entry(e))
    return f"-{flags}" if flags else ""


def plan(doc: dict, spec: Spec, icmp_unusable: str | None, prog: str) -> tuple[list[plan_mod.Run], Spec, list[str]]:
    """The runs in their order, into `doc` as records, the spec (BUDGET sets REPEATS) and the plan's printout;
    BUDGET that fits fewer than two rounds exits 2."""
    selection = [runtimes.by_label(label) for label in doc["frameworks"]]
    mode = modes.of(spec.mode)
    for point in {p.framework: p for p in mode.references(spec, selection)}.values():
        problem = modes.of(point.kind).problem(spec, icmp_unusable)
        if problem:
            print(f"{prog}: warning: -{runtimes.by_label(point.framework).flag}: {problem}; skipping the "
                  f"{point.transport.upper()} points", file=sys.stderr)
    points = plan_mod.build(spec, selection, icmp_unusable, variants.from_records(doc.get("variants")))
    if spec.budget:
        spec, problem = fit_budget(doc, spec, points)
        if problem:
            print(f"{prog}: {problem}\nNothing was started.", file=sys.stderr)
            raise SystemExit(2)
    runs = plan_mod.runs(points, spec.rounds, spec.seed, spec.order)
    doc |= {"knobs": spec.record(), "repeats": spec.rounds, "seed": spec.seed, "design": spec.design.record(),
            "looks": [], "points": [p.record() for p in points], "runs": [r.record() for r in runs]}
    shown = (pr.plan_lines(doc, progress.total_s(runs, spec)) if doc.get("pr") else []) + \
        progress.plan_lines(doc, runs, spec)
    return runs, spec, shown + (progress.order_lines(runs, spec.order) if spec.dry_run else [])


def fit_budget(doc: dict, spec: Spec, points) -> tuple[Spec, str | None]:
    """BUDGET: sets REPEATS to the rounds whose estimated time fits it, from the plan alone; after each round the
    runner re-plans them from the runs' wall times (sweepkit.costs), never from what they measured, so the rounds
    cannot depend on the results. Or says why not even two fit."""
    first = plan_mod.runs(points, 1, spec.seed)
    one_round = progress.estimate_s(first, spec)
    budget = spec.budget_s - progress.probed_s(first, spec)  # the probed runs after the rounds (PROBED)
    rounds = int(budget // one_round) if one_round > 0 else MAX_REPEATS
    if rounds < 2:
        return spec, (f"BUDGET={spec.budget}: a round of this plan takes about {duration(one_round)}, and two rounds "
                      f"(the fewest that measure a spread) about {duration(2 * one_round)}: raise BUDGET or plan "
                      "fewer points")
    spec = spec.with_knobs(REPEATS=str(min(rounds, MAX_REPEATS)))
    doc["budget"] = {"budget_s": budget, "round_estimate_s": progress.tidy(one_round), "rounds": spec.repeats}
    return spec, None
