"""The table kit: cells with their 95 % intervals, footnotes every kind shares, aligned text and Markdown."""

# Each kind lays out its own table (analysis/rtt/table.py, throughput.py, micro/); these are the
# pieces they share. Formatting only.

import math

import pandas as pd

from suite import dimensions, fmt

_LEFT = 2  # the first columns are words, left-aligned; the rest numbers, right-aligned
METHOD_NOTE = ("[low–high]: 95 % interval, Student t across repeats (each a fresh process; Kalibera & Jones 2013)\n"
               "1 (within-run): one repeat, its interval from the order statistics of its own samples, "
               "blind to run-to-run spread")


def signed(value_ns: float) -> str:
    """A latency in µs with a sign; − (U+2212) so that it never reads as the range's dash."""
    text = fmt.us(abs(value_ns))
    return text if text == "–" else ("−" if value_ns < 0 else "+") + text


def interval(value, low, high, write=fmt.us) -> str:
    """`value [low–high]`; `value [–]` without an interval (an open one: NaN, or NULL from the history)."""
    if value is None or not math.isfinite(value):
        return "–"
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return f"{write(value)} [–]"
    bound = (lambda v: signed(v).lstrip("+")) if write is signed else write
    return f"{write(value)} [{bound(low)}–{bound(high)}]"


def repeats(point) -> str:
    return f"{point.repeats} (within-run)" if point.repeats == 1 else str(point.repeats)


def has_shape(points: pd.DataFrame, names) -> bool:
    """Whether any point has one of these dimensions (suite/dimensions.py) at another value than its
    default: RTT's connections and load, more than one connection per ping or an open load."""
    return any(name in points and bool((points[name] != dimensions.by_name(name).value).any()) for name in names)


def _config(points: pd.DataFrame, label: str) -> dict | None:
    """The runtime_config its log gave a series (the first of its points that has one)."""
    configs = [c for c in points.loc[points["framework"] == label, "runtime_config"] if isinstance(c, dict)]
    return configs[0] if configs else None


def _version(points: pd.DataFrame, label: str) -> str | None:
    """The framework_version its logs gave a series (a version variant's: the release or checkout it ran)."""
    found = [d.get("framework_version") for d in points.loc[points["framework"] == label, "details"]
             if isinstance(d, dict)] if "details" in points else []
    return found[0] if found else None


def variant_notes(points: pd.DataFrame) -> list[str]:
    """A footnote per variant: its base runtime (with the version it ran where the base's line ran another: a
    version variant) and the runtime_config entries that differ from the base's in this table (all
    of them when the base was not measured)."""
    if "variant" not in points:
        return []
    notes = []
    for label, base in points.loc[points["variant"].notna(), ["framework", "base"]].drop_duplicates().itertuples(
            index=False):
        mine, theirs = _config(points, label), _config(points, base)
        version, base_version = _version(points, label), _version(points, base)
        versions = version and base_version and version != base_version  # a version variant beside its base
        if versions:
            base = f"{base} {version} (the {base} line's: {base_version})"
        one_end = points.loc[points["framework"] == label, "one_end"].dropna() if "one_end" in points else ()
        if len(one_end):
            notes.append(f"{label}: {base} with {one_end.iloc[0]} (that end only)")
            continue
        if mine is None:
            notes.append(f"{label}: a variant of {base}")
            continue
        differ = {k: v for k, v in mine.items() if theirs is None or theirs.get(k) != v}
        if not differ and versions:
            notes.append(f"{label}: {base}, with the same runtime_config")
            continue
        than = f"differs from {base}'s" if theirs is not None else f"{base}'s not measured here"
        notes.append(f"{label}: {base} with {fmt.settings(differ) or 'the same runtime_config'} "
                     f"(runtime_config; {than})")
    return notes


def host_notes(points: pd.DataFrame) -> list[str]:
    """The system check's warnings as the sweeps of these points started, if any: settings of a host known
    to hurt latency (sweep.json hosts[].warnings), each with what to do."""
    if "host_warnings" not in points:
        return []
    lines = list(dict.fromkeys(line for text in points["host_warnings"].dropna() for line in text.split("\n")))
    return ["system check as the sweep started (sweep.json hosts[].warnings):", *(f"  {line}" for line in lines)] \
        if lines else []


def aligned(headers: list[str], body: list[list[str]], notes: list[str], left: int = _LEFT) -> str:
    """An aligned plain-text table with its footnotes."""
    table = [headers, *body]
    widths = [max(len(r[i]) for r in table) for i in range(len(headers))]
    out = []
    for r in table:
        cells = [c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))]
        out.append("  ".join(cells).rstrip())
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join([*out, "", *notes]) + "\n"


def markdown_table(headers: list[str], body: list[list[str]], notes: list[str], left: int = _LEFT) -> str:
    align = [":--" if i < left else "--:" for i in range(len(headers))]
    lines = ["| " + " | ".join(r) + " |" for r in (headers, align, *body)]
    return "\n".join(lines + [""] + [f"{n}  " for n in notes]) + "\n"


def integers(points: pd.DataFrame, column: str) -> pd.Series:
    """A column as integers, <NA> where unknown (means over repeats rounded)."""
    return pd.to_numeric(points[column], errors="coerce").astype("Float64").round().astype("Int64")


def unmeasured(headers: list[str], points: pd.DataFrame, cells: dict) -> tuple[list[list[str]], list[str]]:
    """A row per point its sweep planned and measured no run of (sweep.collect's `unmeasured`), marked ×: the
    `cells` it has (header → a function of sweep.json's point record), "–" in the others; and a note per point
    saying why."""
    found = points.attrs.get("unmeasured") or []
    rows = [[cells[h](p) if h in cells else "–" for h in headers] for p in found]
    return rows, [f"× {p['stem']}: not measured: {p['message']}" for p in found]
