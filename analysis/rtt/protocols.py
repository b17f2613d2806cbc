"""What the protocol stack costs beside what the runtime costs: each runtime's TCP and HTTP echo side by side, per rate.

Per runtime and setting (payload, rate, decoys, connections, load) swept over both TCP and HTTP: the p50 of
each with its 95 % interval, their difference HTTP − TCP (what HTTP/1.1 adds on that runtime: hyper's or
std's parse and the service, the headers on the wire, the same TCP underneath) and beside it each
transport's Δ vs std (what the runtime adds over plain threads). Tables only: the pages are
rtt/pages.py's (protocol_pages), drawn by rtt/figures.py (stack_cost).
"""

# No drawing here: `parse.py protocols` prints this table without matplotlib.

import io
import math

import pandas as pd

from suite import fmt

from .. import quantiles
from .. import uncertainty as u
from ..summary import aligned, has_shape, integers, interval, markdown_table, signed
from .runs import KEYS, SHAPE, samples_by_round

BASE = "tcp"  # the stack underneath
OVER = "http"  # the one on top of it
_SETTING = [k for k in KEYS if k != "transport"]  # framework, payload, interval_s, and the dimensions
CSV_COLUMNS = ["framework", "payload", "interval_s", "target_rate", "tasks", "connections", "load",
               "tcp_p50_ns", "tcp_p50_low_ns", "tcp_p50_high_ns", "http_p50_ns", "http_p50_low_ns",
               "http_p50_high_ns", "http_minus_tcp_ns", "http_minus_tcp_low_ns", "http_minus_tcp_high_ns",
               "pairs", "tcp_delta_p50_ns", "tcp_delta_p50_low_ns", "tcp_delta_p50_high_ns",
               "http_delta_p50_ns", "http_delta_p50_low_ns", "http_delta_p50_high_ns", "repeats",
               "http_head_bytes", "http_not_2xx"]
NOTES = (
    "HTTP − TCP: what the protocol costs on that runtime (HTTP/1.1 POST /echo against the TCP echo, the same "
    "payload, the same TCP underneath): the request's and response's parse and the service, and their heads on "
    "the wire; HTTP p50 − TCP p50 over the rounds both ran, each the p50 of its runs' samples pooled, with the 95 % "
    "interval paired by round",
    "Δ vs std: what the runtime costs, over each transport (its std: plain threads, a small blocking HTTP/1.1 "
    "server); paired by round as in the summary table. A runtime whose HTTP − TCP exceeds std's pays for its "
    "HTTP stack (hyper on its sockets) beyond what std's costs",
    "∞ = back-to-back; p50: of all the point's samples pooled, each repeat weighing the same",
)


def both(points: pd.DataFrame) -> bool:
    """Whether some runtime ran a setting over both TCP and HTTP: then there is a row."""
    return not pairs(points).empty


def pairs(points: pd.DataFrame) -> pd.DataFrame:
    """The TCP and HTTP points of one runtime and setting, side by side (columns NAME_tcp, NAME_http)."""
    tcp, http = (points[points["transport"] == t].drop(columns="transport") for t in (BASE, OVER))
    return tcp.merge(http, on=_SETTING, suffixes=(f"_{BASE}", f"_{OVER}"), sort=False)


def stack_cost(points: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """A row per runtime and setting swept over both: each p50 with its interval, HTTP − TCP paired by round,
    and each transport's Δ vs std, in the points' order (runtimes, then rates ascending)."""
    table = pairs(points)
    rounds = samples_by_round(runs)
    found = {c: [] for c in ("cost", "cost_low", "cost_high", "pairs")}
    for key in table[_SETTING].itertuples(index=False, name=None):  # a loop over points
        over, base = (rounds.get((key[0], t, *key[1:]), {}) for t in (OVER, BASE))
        common = [r for r in over if r in base]
        change = quantiles.paired_deltas([over[r] for r in common], [base[r] for r in common],
                                             {"p50": 0.5}).get("p50") if common else None
        change = change if isinstance(change, u.Estimate) else None
        found["cost"].append(change.value if change else math.nan)
        found["cost_low"].append(change.low if change else math.nan)
        found["cost_high"].append(change.high if change else math.nan)
        found["pairs"].append(change.repeats if change else 0)  # the rounds both measured with samples
    return table.copy().assign(**found)  # a copy: the merge left it in many blocks


def cells(table: pd.DataFrame) -> tuple[list[str], list[list[str]], list[str]]:
    """Headers, a row per runtime and setting, the notes; the shape's columns where a sweep varied it."""
    shown = [n for n in ("tasks", *SHAPE) if n in table and (n == "tasks" and table[n].nunique() > 1
                                                             or n != "tasks" and has_shape(table, [n]))]
    headers = ["framework", "size B", "target msg/s", *shown, "TCP p50 µs [95 % CI]", "HTTP p50 µs [95 % CI]",
               "HTTP − TCP µs [95 % CI]", "Δp50 vs std, TCP µs", "Δp50 vs std, HTTP µs", "repeats"]
    body = []
    for p in table.itertuples():  # a loop over rows, not samples
        body.append([p.framework, str(p.payload), fmt.rate_label(p.interval_s), *(str(getattr(p, n)) for n in shown),
                     interval(p.p50_tcp, p.p50_low_tcp, p.p50_high_tcp),
                     interval(p.p50_http, p.p50_low_http, p.p50_high_http),
                     interval(p.cost, p.cost_low, p.cost_high, signed),
                     _delta(p.verdict_tcp, p.delta_p50_tcp, p.delta_p50_low_tcp, p.delta_p50_high_tcp),
                     _delta(p.verdict_http, p.delta_p50_http, p.delta_p50_low_http, p.delta_p50_high_http),
                     f"{p.repeats_tcp}/{p.repeats_http}"])
    notes = list(NOTES)
    heads = table["http_head_bytes_http"].dropna() if "http_head_bytes_http" in table else pd.Series(dtype=float)
    if len(heads):
        span = {fmt.count(heads.min()), fmt.count(heads.max())}
        notes.append(f"HTTP heads on the wire: {'–'.join(sorted(span, key=float))} B a round trip "
                     "(request and response, from the logs), beside the payload both carry")
    refused = pd.to_numeric(table.get("http_not_2xx_http", pd.Series(dtype=float)), errors="coerce").fillna(0)
    if (refused > 0).any():
        notes.append(f"! {int(refused.sum())} HTTP replies were not 2xx (logs' http.statuses): not samples")
    notes.append("repeats: TCP/HTTP")
    return headers, body, notes


def _delta(verdict, value, low, high) -> str:
    """A Δ vs std with its interval; "std" for std itself, empty where there is none."""
    return "" if not verdict else interval(value, low, high, signed)


def text(table: pd.DataFrame) -> str:
    return aligned(*cells(table), left=1)


def markdown(table: pd.DataFrame) -> str:
    return markdown_table(*cells(table), left=1)


def csv(table: pd.DataFrame) -> str:
    """Machine-readable: integer ns, empty where unknown."""
    finite = table["target_rate_tcp"].where(table["target_rate_tcp"].map(math.isfinite))
    out = pd.DataFrame({"framework": table["framework"], "payload": table["payload"],
                        "interval_s": table["interval_s"].map(fmt.plain),
                        "target_rate": finite.map(lambda r: "" if pd.isna(r) else fmt.plain(r)),
                        "tasks": table["tasks"], "connections": table["connections"], "load": table["load"],
                        "pairs": table["pairs"], "repeats": table["repeats_http"]})
    for t in (BASE, OVER):
        for name in ("p50", "p50_low", "p50_high", "delta_p50", "delta_p50_low", "delta_p50_high"):
            out[f"{t}_{name}_ns"] = integers(table, f"{name}_{t}")
    for name, column in (("http_minus_tcp", "cost"), ("http_minus_tcp_low", "cost_low"),
                         ("http_minus_tcp_high", "cost_high")):
        out[f"{name}_ns"] = integers(table, column)
    for name in ("http_head_bytes", "http_not_2xx"):
        out[name] = integers(table, f"{name}_http") if f"{name}_http" in table else pd.NA
    buffer = io.StringIO()
    out.to_csv(buffer, index=False, columns=CSV_COLUMNS, lineterminator="\n")
    return buffer.getvalue()


FORMS = {"text": text, "csv": csv, "markdown": markdown}
