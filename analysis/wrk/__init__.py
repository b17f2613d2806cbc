"""The wrk cross-check (parse.py wrk): wrk's HTTP figures beside the suite's own ping's, per runtime, from a MODE=wrk sweep.

A MODE=wrk sweep holds, per runtime and round, a wrk log (`"schema": "wrk-log/1"`: sweepkit/wrk_log.py) and
the suite's ping's rtt log against the same kind of pong. Each side's figure per runtime is the median of its
repeats with its order-statistic interval (uncertainty.median_interval); the ratio suite/wrk of requests per
second is taken round by round, and its median likewise.
"""

import io
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from suite import fmt, logschema
from suite.palette import Palette

from .. import load
from ..summary import aligned, interval, markdown_table
from ..sweep import NothingUsable
from ..uncertainty import median_interval

SCHEMA = "wrk-log/1"
TOLERANCE = 0.15  # suite/wrk within ±15 %: the two clients agree
KEYS = ("framework", "payload", "connections")  # a runtime's line: both clients with one body size, one client count
FIGURES = {"req_per_s": "req/s", "p50_ns": "p50", "p99_ns": "p99"}
SIDES = ("wrk", "suite")
HEADERS = ["framework", "repeats", "wrk req/s [95 % CI]", "wrk p50 µs", "wrk p99 µs", "suite req/s [95 % CI]",
           "suite p50 µs", "suite p99 µs", "suite/wrk req/s", "within ±15 %", "rank wrk", "rank suite"]


def _wrk_run(path: Path, data: dict, warn) -> dict | None:
    """A wrk log's row: its series, round, the request's shape and wrk's figures; None (said) when unusable."""
    if not data.get("complete"):
        warn(path, f"wrk did not complete ({data.get('error') or 'no reason given'})")
        return None
    latency = data.get("latency_ns") or {}
    return {"framework": data.get("variant") or data["framework"], "base": data["framework"],
            "round": load.round_of(path.stem), "payload": int(data["body_bytes"]),
            "connections": int(data["connections"]), "wrk_req_per_s": float(data["req_per_s"]),
            "wrk_p50_ns": latency.get("p50"), "wrk_p99_ns": latency.get("p99"), "wrk_mean_ns": latency.get("mean"),
            "wrk_flags": "; ".join(data.get("flags") or ()), "wrk_source": str(path)}


def _suite_run(path: Path, data: dict, warn) -> dict | None:
    """An rtt log of the suite's ping over http, back-to-back in a closed loop: its row; None when it is another
    kind of run (not said) or unusable (said)."""
    if data.get("kind", "rtt") != "rtt" or data.get("transport") != "http":
        return None
    try:
        data = logschema.schema().blank("rtt") | data
        logschema.schema().validate(data)
    except logschema.Invalid as problem:
        warn(path, str(problem))
        return None
    if data["interval_s"] != 0 or (data.get("load") or "closed") != "closed":
        return None
    if not data["complete"]:
        warn(path, f"the ping did not complete ({data.get('error') or 'no reason given'})")
        return None
    statuses = (data.get("http") or {}).get("statuses") or {}
    others = {code: n for code, n in statuses.items() if not str(code).startswith("2") and n}
    rtt = data["rtt_ns"] or {}
    return {**{k: v for k, v in load.series(data).items() if k in ("framework", "base")},
            "round": load.round_of(path.stem), "payload": int(data["payload"]),
            "connections": int(data.get("connections") or 1), "suite_req_per_s": data["achieved_rate"],
            "suite_p50_ns": rtt.get("p50"), "suite_p99_ns": rtt.get("p99"),
            "suite_flags": "; ".join(f"{n} replies {code}" for code, n in sorted(others.items())),
            "suite_source": str(path)}


def runs(folder: Path, frameworks=(), warn=lambda path, reason: None) -> pd.DataFrame:
    """A row per runtime and round: wrk's figures and the suite's, side by side (NaN where one client's run is
    missing or unusable). The suite's http runs whose body size and connections no wrk log shares are not read:
    they are another sweep's points. Raises NothingUsable when no wrk log is there."""
    wrk, suite = [], []
    for path in sorted(folder.rglob("*.json")):
        if path.name == load.SWEEP_INFO:
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            continue  # the rtt analysis names a damaged log; a wrk sweep's own are written whole
        if not isinstance(data, dict):
            continue
        row = (_wrk_run if data.get("schema") == SCHEMA else _suite_run)(path, data, warn)
        if row is not None and (not frameworks or row["framework"] in frameworks):
            (wrk if data.get("schema") == SCHEMA else suite).append(row)
    if not wrk:
        raise NothingUsable(f"no usable wrk log in {folder}: run a cross-check first (MODE=wrk ./run-localhost.sh -St)"
                            + (f" or drop -f {','.join(frameworks)}" if frameworks else ""))
    keys = ["framework", "base", "round", "payload", "connections"]
    both = pd.DataFrame(wrk).merge(pd.DataFrame(suite, columns=[*keys, "suite_req_per_s", "suite_p50_ns",
                                                                "suite_p99_ns", "suite_flags", "suite_source"]),
                                   on=keys, how="left")
    twice = both.duplicated(["framework", "round", "payload", "connections"], keep=False)
    for source in both.loc[twice, "wrk_source"].drop_duplicates():  # a loop over runs, not samples
        warn(Path(source), "another run has the same runtime, round and request; both are used")
    missing = both["suite_req_per_s"].isna()
    for source in both.loc[missing, "wrk_source"]:
        warn(Path(source), "no usable log of the suite's ping of its round beside it: its round has no ratio")
    return both


def _median(values: pd.Series) -> tuple[float, float, float]:
    """The median of a point's repeats and its order-statistic 95 % interval (NaN bounds below 6 repeats)."""
    known = np.sort(pd.to_numeric(values, errors="coerce").dropna().to_numpy(dtype=float))
    if not len(known):
        return math.nan, math.nan, math.nan
    estimate = median_interval(known)
    return estimate.value, estimate.low, estimate.high


def within(value: float, low: float, high: float, tolerance: float = TOLERANCE) -> str:
    """yes when the ratio's interval lies inside 1 ± tolerance, no when wholly outside, unclear when it straddles
    a bound; without an interval (under 6 repeats), the median alone says yes or no."""
    if not math.isfinite(value):
        return "–"
    inside = lambda x: 1 - tolerance <= x <= 1 + tolerance  # noqa: E731
    if not (math.isfinite(low) and math.isfinite(high)):
        return "yes" if inside(value) else "no"
    if inside(low) and inside(high):
        return "yes"
    if high < 1 - tolerance or low > 1 + tolerance:
        return "no"
    return "unclear"


def points(both: pd.DataFrame) -> pd.DataFrame:
    """A row per runtime line: each side's medians with intervals, the ratio suite/wrk of req/s (per round, then
    its median), whether it is within ±15 %, each side's rank by median req/s (1: the most), and the flags."""
    rows = []
    for key, group in both.groupby(list(KEYS), sort=False):  # a loop over runtimes, not samples
        row = dict(zip(KEYS, key)) | {"base": group["base"].iloc[0], "repeats": len(group),
                                      "paired": int(group["suite_req_per_s"].notna().sum())}
        for side in SIDES:
            for figure in FIGURES:
                row[f"{side}_{figure}"], row[f"{side}_{figure}_low"], row[f"{side}_{figure}_high"] = _median(
                    group[f"{side}_{figure}"])
        ratio = group["suite_req_per_s"] / group["wrk_req_per_s"]
        row["ratio"], row["ratio_low"], row["ratio_high"] = _median(ratio)
        row["within"] = within(row["ratio"], row["ratio_low"], row["ratio_high"])
        row["wrk_flagged"] = int((group["wrk_flags"] != "").sum())
        row["suite_flagged"] = int(group["suite_flags"].fillna("").ne("").sum())
        row["flags"] = "; ".join(dict.fromkeys(f"{side}: {text}" for side in SIDES
                                               for text in group[f"{side}_flags"].dropna() if text))
        rows.append(row)
    table = pd.DataFrame(rows)
    palette = Palette(dict(zip(table["framework"], table["base"])))
    table = table.assign(order=palette.series_rank(table["framework"])).sort_values(
        ["order", "framework", "payload", "connections"], kind="stable").drop(columns="order").reset_index(drop=True)
    for side in SIDES:  # within each request shape, 1 is the runtime that served the most requests a second
        table[f"{side}_rank"] = table.groupby(["payload", "connections"])[f"{side}_req_per_s"].rank(
            ascending=False, method="min").astype("Int64")
    shapes = table.groupby(["payload", "connections"])
    agree = shapes[["wrk_rank", "suite_rank"]].apply(
        lambda g: bool(g["wrk_rank"].fillna(0).eq(g["suite_rank"].fillna(0)).all()))
    table["same_order"] = [bool(agree[shape]) for shape in zip(table["payload"], table["connections"])]
    return table


def _si(value: float) -> str:
    return fmt.si(value) if math.isfinite(value) else "–"


def _ratio(value: float) -> str:
    return f"{value:.3f}" if math.isfinite(value) else "–"


def _rank(value) -> str:
    return "–" if pd.isna(value) else str(int(value))


def rows(table: pd.DataFrame) -> tuple[list[list[str]], list[str]]:
    """The table for people, a row per runtime line; and its footnotes (the method, the order, the flags)."""
    body = []
    for p in table.itertuples():  # a loop over runtimes, not samples
        name = p.framework + (" ‡" if p.flags else "") + (f" ({p.payload} B, {p.connections} conns)"
                                                           if table[["payload", "connections"]].drop_duplicates().shape[0] > 1
                                                           else "")
        cells = [name, str(p.repeats) if p.paired == p.repeats else f"{p.repeats} ({p.paired} paired)"]
        for side in SIDES:
            cells += [interval(getattr(p, f"{side}_req_per_s"), getattr(p, f"{side}_req_per_s_low"),
                               getattr(p, f"{side}_req_per_s_high"), _si),
                      interval(getattr(p, f"{side}_p50_ns"), getattr(p, f"{side}_p50_ns_low"),
                               getattr(p, f"{side}_p50_ns_high")),
                      interval(getattr(p, f"{side}_p99_ns"), getattr(p, f"{side}_p99_ns_low"),
                               getattr(p, f"{side}_p99_ns_high"))]
        cells += [interval(p.ratio, p.ratio_low, p.ratio_high, _ratio), p.within, _rank(p.wrk_rank),
                  _rank(p.suite_rank)]
        body.append(cells)
    same = table.drop_duplicates(["payload", "connections"])["same_order"].all()
    notes = [f"wrk: wrk -t1 -c{', '.join(map(str, sorted(set(table['connections']))))} --latency, POST /echo with a "
             f"{', '.join(map(str, sorted(set(table['payload']))))}-byte body (sweepkit/wrk_echo.lua); suite: the "
             "runtime's own ping, --protocol http, closed loop, back-to-back, the same connections; each against a "
             "fresh pong of the runtime",
             "req/s: wrk's Requests/sec; the suite's achieved_rate (requests a second across its connections); "
             "p50, p99: wrk's latency distribution, the suite's rtt_ns",
             "[low–high]: 95 % interval of the median over repeats (exact order statistics; none under 6 repeats)",
             "suite/wrk: the ratio of req/s, round by round (both clients of one round), its median; within ±15 %: "
             "yes when its interval lies inside 0.85–1.15, no when wholly outside, unclear when it straddles",
             f"rank: by median req/s, 1 the most; both clients rank the servers the same way: {'yes' if same else 'no'}"]
    flagged = table.loc[table["flags"] != "", ["framework", "flags"]]
    notes += [f"‡ {name}: flagged runs, {flags}" for name, flags in flagged.itertuples(index=False)]
    return body, notes


def text(table: pd.DataFrame) -> str:
    return aligned(HEADERS, *rows(table), left=1)


def markdown(table: pd.DataFrame) -> str:
    return markdown_table(HEADERS, *rows(table), left=1)


CSV_COLUMNS = ["framework", "payload", "connections", "repeats", "paired",
               *(f"{side}_{figure}{bound}" for side in SIDES for figure in FIGURES for bound in ("", "_low", "_high")),
               "ratio", "ratio_low", "ratio_high", "within", "wrk_rank", "suite_rank", "same_order", "wrk_flagged",
               "suite_flagged"]


def csv(table: pd.DataFrame) -> str:
    """req/s to 0.1, latencies in whole ns, the ratio to 1e-4; empty cells for what is unknown."""
    out = table.reindex(columns=CSV_COLUMNS).copy()
    for column in CSV_COLUMNS:
        if column.endswith(("_ns", "_ns_low", "_ns_high")):
            out[column] = out[column].astype(float).round().astype("Int64")
        elif "req_per_s" in column:
            out[column] = out[column].astype(float).round(1)
        elif column.startswith("ratio"):
            out[column] = out[column].astype(float).round(4)
    buffer = io.StringIO()
    out.to_csv(buffer, index=False, lineterminator="\n")
    return buffer.getvalue()


TABLES = {"text": text, "markdown": markdown, "csv": csv}
