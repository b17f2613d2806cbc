"""Before anything runs: check the flags and knobs (every problem, then exit), then plan the points and runs."""

import sys
from pathlib import Path

from suite import runtimes

from . import knobs as knobs_mod
from . import micro, plan as plan_mod, progress, variants
from .knobs import SUITE_DIR, Checked
from .selection import binary_ends, has_pong, missing_binaries, pong_entries
from suite.fmt import duration


def check(environ, flags: str, context: str, ends: list[str], prog: str) -> tuple[Checked, dict]:
    """The knobs and the sweep's document so far; a problem ends the sweep here: flags and knobs exit 2
    ("Try -h", "Nothing was started."), missing binaries exit 1. `ends`: the binaries this host runs."""
    checked = knobs_mod.check(environ, flags, context)
    if checked.usage is None:
        for problem in checked.errors:
            print(f"{prog}: {problem}", file=sys.stderr)
        if checked.errors:
            print("Nothing was started.", file=sys.stderr)
            raise SystemExit(2)
    for warning in checked.warnings:
        print(f"{prog}: warning: {warning}", file=sys.stderr)
    if checked.usage is not None:
        print(f"{prog}: {checked.usage}\nTry {prog} -h.", file=sys.stderr)
        raise SystemExit(2)
    if checked.knobs["MODE"] == "micro":  # a reference `make` left out (no go, no java): the others run
        for entry in list(checked.selection):
            why = micro.not_built(entry, checked.knobs)
            if why and len(checked.selection) > 1:
                checked.selection.remove(entry)
                print(f"{prog}: warning: -{entry.flag}: {why}; skipped", file=sys.stderr)
    missing = missing_binaries(checked.knobs, checked.selection + [v.entry for v in checked.variants], ends)
    if missing:
        print(f"{prog}: missing binaries:", *(f"  {path}" for path in missing), sep="\n", file=sys.stderr)
        print(f'Build them first: run "make" (or "cargo build --release --workspace --bins") in {SUITE_DIR}',
              file=sys.stderr)
        raise SystemExit(1)
    refused = variants.refusals(checked.variants, Path(checked.knobs["BIN_DIR"]),
                                binary_ends(checked.knobs, ends), checked.knobs["MODE"])
    if refused:
        print(*(f"{prog}: {problem}" for problem in refused), "Nothing was started.", sep="\n", file=sys.stderr)
        raise SystemExit(2)
    doc = {"frameworks": [e.label for e in checked.selection], "variants": [v.record() for v in checked.variants],
           "knobs": checked.knobs, "knobs_given": checked.given, "points": []}
    return checked, doc


def measured_prefixes(checked: Checked) -> list[str]:
    """The binary prefixes whose binaries the sweep runs: runtimes, references measured by the suite's
    binaries and variants' bases (MODE=micro: every entry left, each with a <prefix>-micro)."""
    chosen = checked.selection if checked.knobs["MODE"] == "micro" else checked.measured
    return list(dict.fromkeys(e.binary_prefix for e in chosen))


def all_prefixes() -> list[str]:
    return list(dict.fromkeys(e.binary_prefix for e in pong_entries()))


def references(checked: Checked) -> list[str]:
    """The references selected that run another program (the system ping)."""
    return [e.label for e in checked.selection if not has_pong(e)]


def runtime_flags(doc: dict) -> str:
    """The flags that select the runtimes with pongs (MODE=micro: every entry), e.g. -St."""
    entries = [runtimes.by_label(label) for label in doc["frameworks"]]
    if doc["knobs"]["MODE"] != "micro":
        entries = [e for e in entries if has_pong(e)]
    flags = "".join(e.flag for e in entries)
    return f"-{flags}" if flags else ""


def plan(doc: dict, icmp_unusable: str | None, prog: str) -> tuple[list[plan_mod.Run], list[str]]:
    """The runs in their order, into `doc` as records, and the plan's printout; BUDGET that fits fewer than
    two rounds exits 2."""
    k = doc["knobs"]
    selection = [runtimes.by_label(label) for label in doc["frameworks"]]
    problem = plan_mod.reference_problem(k, icmp_unusable)
    for reference in [e for e in selection if not has_pong(e)] if problem and k["MODE"] == "rtt" else []:
        print(f"{prog}: warning: -{reference.flag}: {problem}; skipping the {reference.transport.upper()} points",
              file=sys.stderr)
    points = plan_mod.build(k, selection, icmp_unusable, variants.from_records(doc.get("variants")))
    if k.get("BUDGET"):
        problem = fit_budget(doc, points)
        if problem:
            print(f"{prog}: {problem}\nNothing was started.", file=sys.stderr)
            raise SystemExit(2)
    runs = plan_mod.runs(points, int(k["REPEATS"]), int(k["SEED"]), k["ORDER"])
    doc |= {"repeats": int(k["REPEATS"]), "seed": int(k["SEED"]), "points": [p.record() for p in points],
            "runs": [r.record() for r in runs]}
    shown = progress.plan_lines(doc)
    return runs, shown + (progress.order_lines(runs, k["ORDER"]) if k["DRY_RUN"] == "1" else [])


def fit_budget(doc: dict, points) -> str | None:
    """BUDGET: sets REPEATS to the rounds whose estimated time fits it, from the plan alone (never from
    results, so the rounds cannot depend on what they measure); or says why not even two fit."""
    k = doc["knobs"]
    one_round = progress.estimate_s(doc | {"points": [p.record() for p in points],
                                           "runs": [r.record() for r in plan_mod.runs(points, 1, int(k["SEED"]))]})
    budget = knobs_mod.budget_s(k["BUDGET"])
    rounds = int(budget // one_round) if one_round > 0 else knobs_mod.MAX_REPEATS
    if rounds < 2:
        return (f"BUDGET={k['BUDGET']}: a round of this plan takes about {duration(one_round)}, and two rounds (the "
                f"fewest that measure a spread) about {duration(2 * one_round)}: raise BUDGET or plan fewer points")
    k["REPEATS"] = str(min(rounds, knobs_mod.MAX_REPEATS))
    doc["budget"] = {"budget_s": budget, "round_estimate_s": progress.tidy(one_round), "rounds": int(k["REPEATS"])}
    return None
