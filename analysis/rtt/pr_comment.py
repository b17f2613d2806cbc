"""pr-comment.md: a pull-request check's findings as GitHub-flavoured Markdown: a headline that says only what the
data carry, a table of the settings, and every comparison with the machine in a collapsed details section."""

import math
import shlex

from suite import fmt, sequential

from .. import uncertainty as u
from ..summary import markdown_table, signed
from .pr_check import ENDS, FIGURES, Setting, levels

MARKER = "<!-- rtt-pr-check -->"  # what a workflow finds its own comment by, to update it
UNREPEATED = ("PR", "VARIANTS", "SEED", "OUT_DIR", "BIN_DIR")  # the check's own, or named apart, or this machine's
SHOWN = 3  # settings named in the headline, the largest Δs first
HEADERS = ["setting", "std p50 µs", "base p50 µs", "head p50 µs", "Δp50 µs [interval]", "Δp99 µs [interval]",
           "Δ CPU/msg µs ping, pong [95 %]", "verdict"]


def headline(settings: list[Setting], design: sequential.Design | None, status: str) -> str:
    """One line: where head was called slower or faster (the largest Δs, with their intervals); else where each
    figure was the same within its margin, and where this machine could not resolve it (the smallest Δ it could)."""
    n = len(settings)
    called = {v: [s for s in settings if s.verdict == v] for v in (sequential.SLOWER, sequential.FASTER)}
    parts = [f"**{verdict}** at {len(found)} of {n}: " + "; ".join(_named(s, verdict) for s in _largest(found, verdict))
             + (f" and {len(found) - SHOWN} more" if len(found) > SHOWN else "")
             for verdict, found in called.items() if found]
    if not parts:
        design = design or sequential.Design("fixed", 1, 1, 1)
        same = {f: sum(s.compared[f] is not None and s.compared[f].verdict == sequential.SAME for s in settings)
                for f in FIGURES}
        within = ", ".join(f"{f} within ±{100 * design.margin_of(f):g} %" for f in FIGURES)
        if all(count == n for count in same.values()):
            parts = [f"no change found at the {n} settings ({within})"]
        else:
            found = ", ".join(f"{f} the same within ±{100 * design.margin_of(f):g} % at {same[f]} of {n}" for f in FIGURES)
            parts = [f"no change found: {found}; **undecided** elsewhere: this machine could not resolve those margins "
                     f"there{_resolvable(settings)}"]
    unfinished = "" if status == "complete" else f" (the sweep is {status}: these are the rounds it ran)"
    return "; ".join(parts) + unfinished


def _resolvable(settings: list[Setting]) -> str:
    """" (the smallest Δp50 it could call: 4 to 12 %)" over the undecided p50s, or ""."""
    shares = [c.mde_pct for s in settings for c in [s.compared["p50"]] if c is not None and c.verdict ==
              sequential.UNDECIDED and math.isfinite(c.mde_pct)]
    if not shares:
        return ""
    span = f"{min(shares):.0f} %" if round(min(shares)) == round(max(shares)) else \
        f"{min(shares):.0f} to {max(shares):.0f} %"
    return f" (the smallest Δp50 it could call there: {span} of the base's)"


def told(d) -> str:
    """A Δ with its interval: "+3.1 [+2.0 to +4.4]" (µs)."""
    return f"{signed(d.value)} [{signed(d.low)} to {signed(d.high)}]"


def _largest(found: list[Setting], verdict: str) -> list[Setting]:
    return sorted(found, key=lambda s: -max(abs(s.share(f)) for f, _ in s.called(verdict)))[:SHOWN]


def _named(setting: Setting, verdict: str) -> str:
    """"+3.1 [+2.0 to +4.4] µs p50 (+6 %), back-to-back TCP"."""
    said = []
    for figure, c in setting.called(verdict):
        said.append(f"{told(c.delta)} µs {figure} ({100 * setting.share(figure):+.1f} %)")
    return ", ".join(said) + f" at {setting.words}"


def row(s: Setting) -> list[str]:
    """A setting's row: both lines' p50, each Δ with its interval and the look's level, the CPU, the verdict."""
    deltas = []
    for figure in FIGURES:
        c = s.compared.get(figure)
        if c is None or c.delta is None:
            deltas.append(str(c.refused).split(":")[0] + ": too few" if c is not None and c.refused else "–")
            continue
        deltas.append(f"{told(c.delta)} {c.verdict}")
    cpu = ", ".join(told(u.Estimate(d.value * 1e3, d.low * 1e3, d.high * 1e3, d.repeats, d.method)) if d else "–"
                    for d in (s.cpu.get(end) for end in ENDS))
    mark = f" ⚠ {len(s.disturbed)} disturbed" if s.disturbed else ""
    return [s.words, *(fmt.us(line.get("p50", math.nan)) for line in (s.std, s.base, s.head)), *deltas, cpu,
            f"**{s.verdict}**{mark}"]


def comparisons(settings: list[Setting]) -> list[str]:
    """Every comparison of the family, one line each: its Δ, interval, level, pairs, verdict and the deciding look."""
    lines = []
    for s in settings:
        for figure in FIGURES:
            c = s.compared.get(figure)
            if c is None:
                lines.append(f"- {s.words}, {figure}: nothing to pair")
                continue
            at = f", decided after round {c.decided_at}" if c.decided_at is not None else ""
            said = f"{told(c.delta)} µs at {100 * c.confidence:.2f} %" if c.delta else "no Δ"
            lines.append(f"- {s.words}, {figure}: {said}, {c.rounds} rounds paired: {c.verdict or 'refused'}{at}")
    return lines


def document(settings: list[Setting], info: dict, machine: str, suite_version: str) -> str:
    """The whole comment."""
    pr, design = info["pr"], sequential.from_record(info.get("design"))
    low, high = (f"{100 * level:.2f} %" for level in levels(settings))
    family = round(sequential.ALPHA / design.alpha) if design else len(settings) * len(FIGURES)
    notes = [f"head − base, paired by round (each round runs base, head and std back to back). Intervals are the "
             f"sweep's repeated ones at the level of the look that decided each ({low if low == high else f'{low} to {high}'}): "
             f"together the {family} comparisons are wrong at most 5 % of the time (Bonferroni over the looks). "
             "A verdict is given only where the interval decides it; CPU per message is told, not called."]
    sides = " → ".join(f"`{pr[s]['asked']}` ({pr[s]['commit'][:12]})" for s in ("base", "head"))
    shaken = [d for s in settings for d in s.disturbed]
    hosts = (info.get("hosts") or {}).values()
    polls = ", ".join(f"guest_halt_poll_ns {h.get('guest_halt_poll_ns')}" for h in hosts if isinstance(h, dict))
    knobs = info.get("knobs") or {}
    given = " ".join(f"{k}={shlex.quote(knobs[k])}" for k in info.get("knobs_given") or () if k not in UNREPEATED
                     and k in knobs)
    details = ["<details><summary>Every comparison, the machine and how to reproduce</summary>", "",
               *comparisons(settings), "",
               f"- runtime `{pr['runtime']}`: {sides}",
               f"- sweep: {info.get('status', 'unknown')}, {info.get('repeats', '?')} rounds planned, seed "
               f"{info.get('seed')}, started {info.get('started_at', '?')}",
               f"- machine: {machine}" + (f"; {polls}" if polls else ""),
               f"- suite: {suite_version}",
               *(["- disturbed runs (kept):", *(f"  - {d}" for d in shaken)] if shaken else ["- no run disturbed"]),
               f"- reproduce: `SEED={info.get('seed')} {given} ./run-localhost.sh --pr {shlex.quote(pr['spec'])}`".replace("  ", " "),
               "", "</details>"]
    table = markdown_table(HEADERS, [row(s) for s in settings], notes, left=1)
    return "\n".join([MARKER, f"### Runtime check: {headline(settings, design, info.get('status', 'unknown'))}", "",
                      *_unmeasured(info), table, *details]) + "\n"


def _unmeasured(info: dict) -> list[str]:
    """A warning where the two lines were built in another profile than the measured binaries' (VERSION_PROFILE)."""
    profiles = {(v.get("build") or {}).get("profile") for v in info.get("variants") or ()
                if (v.get("build") or {}).get("measured_profile") is False}
    if not profiles:
        return []
    return [f"⚠ Built in cargo's {', '.join(sorted(map(str, profiles)))} profile (VERSION_PROFILE), not the measured "
            "binaries' release: these figures show that the change runs, not how fast.", ""]

