"""Pure statistics of a run: exact percentiles, the shapes the figures draw, throughput rates."""

# Pure statistics on one run's RTT samples (integer nanoseconds): exact percentiles and the
# small shapes the figures draw (ECDF points, histograms, RTT over time); and on a throughput
# run's per-window counts: rates across windows. No I/O, no plotting.
#
# Every percentile is percentile.py's nearest rank, as rtt-core computes the JSON's `rtt_ns`, so
# the table and the logs agree to the nanosecond; throughput percentiles are the same nearest rank,
# taken across a run's measured windows.

from dataclasses import dataclass

import numpy as np

from suite import percentile

from . import uncertainty

# Name → percentile, as in the JSON's rtt_ns, plus the p5–p95 band of the stat figure.
PERCENTILES = {"p5": 5, "p50": 50, "p90": 90, "p95": 95, "p99": 99, "p999": 99.9, "p9999": 99.99}

RAW_TIME_POINTS = 2_000  # runs up to this size are drawn sample by sample over time
TIME_BINS = 250  # at most, and at least 100 samples a bin so that its p99 means something
RATE_PERCENTILES = {"p5": 5, "p50": 50, "p95": 95}  # of msg/s and Gb/s across windows
WITHIN_RUN = {"p50": 0.5, "p99": 0.99, "p999": 0.999}  # quantiles given a one-run interval (…_wlow, …_whigh)
# Open load: percentiles of the latency from the scheduled send (coordinated omission corrected), and
# the one given an interval (latency_p99_wlow, …_whigh).
LATENCY_PERCENTILES = {"latency_p50": 50, "latency_p99": 99, "latency_p999": 99.9}
LATENCY_WITHIN_RUN = {"p99": 0.99}  # named latency_p99_wlow, …_whigh
# Each connection's own p50 and p99 of RTT: their smallest and largest across a run's connections.
CONNECTION_SPREAD = {"p50": 50, "p99": 99}
# A run's samples, sorted, kept for its point's pooled quantiles (quantiles.py): in 4 bytes each where they fit
# (below 4.3 s), so that a sweep of millions of samples stays within tens of MB.
SORTED, LATENCY_SORTED = "sorted_ns", "latency_sorted_ns"
_RTT_BITS = 40  # RTTs below 2**40 ns (18 min) pack under a time-bin index into one int64


def compact(ordered: np.ndarray) -> np.ndarray:
    """Sorted non-negative samples in 4 bytes each where every one fits, else as they are."""
    return ordered.astype(np.uint32) if len(ordered) and 0 <= ordered[0] and ordered[-1] < 2**32 else ordered


def ranks(n: int, percentiles) -> np.ndarray:
    """0-based indices into n sorted samples of the nearest-rank percentiles (n > 0)."""
    return np.array([percentile.index(n, p) for p in percentiles], dtype=np.int64)


def percentiles(sorted_ns: np.ndarray, ps) -> np.ndarray:
    """Nearest-rank percentiles `ps` (in %) of non-empty sorted samples."""
    return sorted_ns[ranks(len(sorted_ns), ps)]


@dataclass
class Shape:
    """What the distribution and time figures need of a run, a few kB whatever its size."""

    ecdf_ns: np.ndarray  # sample values at the ECDF points
    ecdf_p: np.ndarray  # their plotting positions (rank - 0.5) / n, in (0, 1)
    log_edges_ns: np.ndarray  # log-spaced histogram: bin edges, and
    log_density: np.ndarray  # the fraction of samples per decade of RTT
    lin_edges_ns: np.ndarray  # linear histogram up to p99.9: bin edges, and
    lin_density: np.ndarray  # the fraction of samples per µs
    time_s: np.ndarray  # RTT over the run: time since the start, and
    time_p50_ns: np.ndarray  # each sample (small runs) or each time bin's median, and
    time_p99_ns: np.ndarray  # each bin's p99 (empty for small runs)


def describe(rtt_ns: np.ndarray, t_ns: np.ndarray | None = None, conn: np.ndarray | None = None,
             latency_ns: np.ndarray | None = None) -> tuple[dict, Shape | None]:
    """Scalar statistics of a run and its Shape (None when it has no samples).

    The scalars are n, min, mean, stdev (over n − 1, as rtt-core; 0 for one sample), max and every entry of
    PERCENTILES, in ns (NaN without samples); the samples sorted (SORTED); and for each of WITHIN_RUN its
    within-run interval (p50_wlow, p50_whigh…). `t_ns` (send times) gives the RTT-over-time curve, `conn` (each
    reply's connection) the spread across connections, `latency_ns` (open load) the corrected latency's
    percentiles (LATENCY_PERCENTILES, latency_max, latency_p99's bounds)."""
    n = len(rtt_ns)
    scalars = {"n": n, **latency(latency_ns)}
    if n == 0:
        scalars.update(dict.fromkeys(["min", "mean", "stdev", "max", *PERCENTILES, *_within_names(""),
                                      *_spread_names()], np.nan))
        return scalars | {SORTED: np.empty(0, np.uint32)}, None
    ordered = np.sort(rtt_ns)
    scalars[SORTED] = compact(ordered)
    values = percentiles(ordered, list(PERCENTILES.values()))
    scalars.update(zip(PERCENTILES, values.tolist(), strict=True))
    scalars.update(min=int(ordered[0]), max=int(ordered[-1]), mean=float(ordered.mean()),
                   stdev=float(ordered.std(ddof=1)) if n > 1 else 0.0)
    scalars.update(_within(ordered, ""))
    scalars.update(connection_spread(rtt_ns, conn) if conn is not None else  # one connection: its own
                   {"connections_seen": 1, **{f"conn_{name}_{end}": scalars[name] for name in CONNECTION_SPREAD
                                              for end in ("min", "max")}})
    shape = Shape(
        *_ecdf(ordered),
        *_log_histogram(ordered),
        *_lin_histogram(ordered, scalars["p999"]),
        *_over_time(rtt_ns, t_ns),
    )
    return scalars, shape


def latency(latency_ns: np.ndarray | None) -> dict:
    """The corrected latency of an open-loop run (scheduled send → echo): its count, percentiles and
    max in ns, and latency_p99's within-run bounds; NaN where there is none (closed loop)."""
    names = ["latency_n", *LATENCY_PERCENTILES, "latency_max", *_within_names("latency_", LATENCY_WITHIN_RUN)]
    if latency_ns is None or len(latency_ns) == 0:
        return (dict.fromkeys(names, np.nan) | ({"latency_n": 0} if latency_ns is not None else {})
                | {LATENCY_SORTED: np.empty(0, np.uint32)})
    ordered = np.sort(latency_ns)
    values = percentiles(ordered, list(LATENCY_PERCENTILES.values()))
    return {"latency_n": len(ordered), LATENCY_SORTED: compact(ordered),
            **dict(zip(LATENCY_PERCENTILES, values.tolist(), strict=True)),
            "latency_max": int(ordered[-1]),
            **_within(ordered, "latency_", which=LATENCY_WITHIN_RUN)}


def _spread_names() -> list[str]:
    return ["connections_seen", *(f"conn_{name}_{end}" for name in CONNECTION_SPREAD for end in ("min", "max"))]


def connection_spread(rtt_ns: np.ndarray, conn: np.ndarray) -> dict:
    """How a run's connections differ: each connection's own nearest-rank p50 and p99 of RTT, and their
    smallest and largest across the connections that got replies (conn_p50_min, conn_p50_max…), and how
    many did (connections_seen). One sort of (connection, RTT) keys, as _over_time does for time bins."""
    if len(rtt_ns) == 0:
        return dict.fromkeys(_spread_names(), np.nan)
    mask = (1 << _RTT_BITS) - 1
    keys = np.sort((conn.astype(np.int64) << _RTT_BITS) | np.minimum(rtt_ns, mask))
    ids = keys >> _RTT_BITS
    first = np.flatnonzero(np.concatenate([[True], ids[1:] != ids[:-1]]))
    size = np.diff(np.append(first, len(keys)))
    out = {"connections_seen": len(first)}
    for name, p in CONNECTION_SPREAD.items():
        values = keys[first + percentile.index(size, p)] & mask
        out[f"conn_{name}_min"], out[f"conn_{name}_max"] = int(values.min()), int(values.max())
    return out


def _within_names(prefix: str, which=WITHIN_RUN) -> list[str]:
    return [f"{prefix}{name}_{end}" for name in which for end in ("wlow", "whigh")]


def _within(ordered: np.ndarray, prefix: str, scale: float = 1.0, which=WITHIN_RUN) -> dict:
    """Bounds of the within-run intervals of the quantiles `which` of sorted values (× scale)."""
    out = {}
    for name, q in which.items():
        estimate = uncertainty.within_run_quantile(ordered, q)
        out[f"{prefix}{name}_wlow"], out[f"{prefix}{name}_whigh"] = estimate.low * scale, estimate.high * scale
    return out


def _ecdf(ordered: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every sample of a small run; for a big one ~600 ranks, dense in both tails (a PDF
    page's cost grows with the points drawn, and more would not show)."""
    n = len(ordered)
    if n <= 600:
        idx = np.arange(n)
    else:
        tail = np.geomspace(1, n, 200)
        idx = np.unique(np.concatenate([np.linspace(0, n - 1, 200), tail - 1, n - tail]).astype(np.int64))
    return ordered[idx], (idx + 0.5) / n


def _bins(n: int) -> int:
    return int(np.clip(np.sqrt(n), 10, 200))


def _counts(ordered: np.ndarray, edges: np.ndarray) -> np.ndarray:
    # The samples are sorted, so a histogram is a binary search per edge, not a pass over them.
    # The outer edges are the extremes, which 10 ** log10(x) may miss by a rounding error.
    positions = np.searchsorted(ordered, edges, side="left")
    positions[0], positions[-1] = 0, len(ordered)
    return np.diff(positions)


def _log_histogram(ordered: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    low = np.log10(max(ordered[0], 1))
    high = max(np.log10(max(ordered[-1], 1)), low + 0.01)
    edges = np.logspace(low, high, _bins(len(ordered)) + 1)
    density = _counts(ordered, edges) / len(ordered) / np.diff(np.log10(edges))
    return edges, density


def _lin_histogram(ordered: np.ndarray, p999: int) -> tuple[np.ndarray, np.ndarray]:
    low, high = float(ordered[0]), float(max(p999, ordered[0] + 1))
    edges = np.linspace(low, high, _bins(len(ordered)) + 1)
    counts = _counts(ordered, edges)
    counts[-1] -= len(ordered) - np.searchsorted(ordered, high, side="right")  # above p99.9
    return edges, counts / len(ordered) / (np.diff(edges) / 1e3)


def _over_time(rtt_ns: np.ndarray, t_ns: np.ndarray | None) -> tuple[np.ndarray, ...]:
    """Per-sample (small runs) or per-time-bin median and p99 (big runs) against time."""
    empty = np.empty(0)
    if t_ns is None or len(t_ns) != len(rtt_ns):
        return empty, empty, empty
    n = len(rtt_ns)
    if n <= RAW_TIME_POINTS:
        return t_ns / 1e9, rtt_ns.astype(np.float64), empty
    count = min(TIME_BINS, n // 100)
    start, stop = int(t_ns.min()), int(t_ns.max())
    width = max((stop - start) / count, 1.0)
    bins = np.minimum(((t_ns - start) / width).astype(np.int64), count - 1)
    # One sort of (bin, rtt) keys orders the samples by bin, then by RTT within each bin.
    keys = np.sort((bins << _RTT_BITS) | np.minimum(rtt_ns, (1 << _RTT_BITS) - 1))
    bounds = np.searchsorted(keys, np.arange(count + 1, dtype=np.int64) << _RTT_BITS)
    counts = np.diff(bounds)
    used = np.flatnonzero(counts)
    first, size = bounds[:-1][used], counts[used]
    mask = (1 << _RTT_BITS) - 1
    p50 = keys[first + percentile.index(size, 50)] & mask
    p99 = keys[first + percentile.index(size, 99)] & mask
    centres = (start + (used + 0.5) * width) / 1e9
    return centres, p50.astype(np.float64), p99.astype(np.float64)


@dataclass
class Windows:
    """A throughput run over time: each measured window's start and its rates."""

    time_s: np.ndarray
    msg_per_s: np.ndarray
    gbit_per_s: np.ndarray


def window_rates(t_ns: np.ndarray, messages: np.ndarray, size: np.ndarray,
                 window_s: float) -> tuple[dict, Windows | None]:
    """Throughput of a run from the messages and bytes received in each measured window.

    The scalars are windows, received (messages), received_bytes, and for msg_per_s and
    gbit_per_s the mean and RATE_PERCENTILES across windows (e.g. msg_per_s_p50), and the bounds
    of the p50's within-run interval (msg_per_s_p50_wlow…); NaN without windows. A window's rate is its count × (1 / window_s), and × 8 / 1e9 for bytes to Gb/s,
    as rtt-core scales them, so the table and the JSON agree.
    """
    n = len(messages)
    per_second = 1.0 / window_s
    scales = {"msg_per_s": per_second, "gbit_per_s": per_second * 8.0 / 1e9}
    scalars = {"windows": n, "received": int(messages.sum()), "received_bytes": int(size.sum())}
    names = ["mean", *RATE_PERCENTILES]
    if n == 0:
        scalars.update({f"{q}_{name}": np.nan for q in scales for name in [*names, "p50_wlow", "p50_whigh"]})
        return scalars, None
    ranked = ranks(n, list(RATE_PERCENTILES.values()))
    for quantity, counts in (("msg_per_s", messages), ("gbit_per_s", size)):
        scale = scales[quantity]
        values = [counts.sum() / n * scale, *(np.sort(counts)[ranked] * scale).tolist()]
        scalars.update({f"{quantity}_{name}": float(v) for name, v in zip(names, values, strict=True)})
        scalars.update(_within(np.sort(counts), f"{quantity}_", scale, {"p50": 0.5}))
    return scalars, Windows(t_ns / 1e9, messages * scales["msg_per_s"], size * scales["gbit_per_s"])
