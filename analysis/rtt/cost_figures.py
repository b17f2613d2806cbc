"""The figures of what each end costs per message: a round trip's mean as both ends' CPU and the rest, and the
Δ vs std in those parts beside the measured Δp50 (rows of costs.breakdown, ns)."""

# A panel is one setting (transport, rate, …), a horizontal bar per runtime, so that a page reads down the
# runtimes; the parts are told apart by colour and the runtimes by their tick labels.

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ..plots import PLAIN

# Each part of costs.breakdown: its label and colour (not a runtime's: the runtimes are the rows).
PARTS = {"ping_cpu": ("ping CPU / msg", "#4c72b0"), "pong_cpu": ("pong CPU / msg", "#dd8452"),
         "rest": ("the rest: network\npath, waiting", "0.8")}
MEASURED = ("Δp50, measured", "0.2")
BAR = 0.8


def _runtimes(ax, rows) -> np.ndarray:
    """One row per runtime, the suite's order top down; their y positions."""
    y = np.arange(len(rows))[::-1].astype(float)
    ax.set_yticks(y, list(rows["framework"]), fontsize=8)
    ax.xaxis.set_major_formatter(PLAIN)
    ax.grid(True, axis="x", alpha=0.3)
    return y


def where(ax, rows) -> None:
    """A stacked bar per runtime: ping CPU, pong CPU and the rest of the mean RTT; a tick at the mean and a
    note where the two ends' CPU passes it (work off the round trip's path: a timer, a second thread)."""
    y = _runtimes(ax, rows)
    left = np.zeros(len(rows))
    for part, (label, colour) in PARTS.items():
        width = rows[part].to_numpy(dtype=float) / 1e3
        ax.barh(y, width, BAR, left=left, color=colour, label=label, zorder=2)
        left += width
    mean = rows["mean"].to_numpy(dtype=float) / 1e3
    ax.scatter(mean, y, marker="|", s=260, color="black", zorder=3)
    limit = _limit(np.maximum(left, mean))
    for yi, total, over in zip(y, left, rows["over"].to_numpy(dtype=float) / 1e3, strict=True):
        if total > limit:
            _beyond(ax, limit, yi, total)
        elif over > 0:
            ax.annotate(f"+{over:.0f} µs off the path", (total, yi), xytext=(3, 0), textcoords="offset points",
                        va="center", fontsize=7)
    ax.set_xlim(0, limit)
    ax.set_xlabel("µs")


def _limit(values: np.ndarray) -> float:
    """The axis's end: room for a note beside the longest bar, but for a bar over 10 times the median (glommio's
    100 ms under decoys), which would flatten every other: it is cut at the edge and its figure written there."""
    values = values[np.isfinite(values)]
    if not len(values):
        return 1.0
    kept = values[values <= 10 * max(np.median(np.abs(values)), 1e-9)]
    return 1.5 * float(kept.max() if len(kept) and kept.max() > 0 else values.max())


def _beyond(ax, limit: float, y: float, value: float) -> None:
    ax.annotate(f"{value:,.0f} µs →", (limit, y), xytext=(-3, 0), textcoords="offset points", ha="right",
                va="center", fontsize=7, bbox={"boxstyle": "square,pad=0.1", "fc": "white", "lw": 0})


def deltas(ax, rows) -> None:
    """Per runtime, its Δ vs std in parts: each end's CPU per message, beside the Δp50 measured, each with its
    95 % interval paired by round; std itself has none and is left out."""
    rows = rows[rows["verdict"] != ""]
    y = _runtimes(ax, rows)
    ax.axvline(0, color="0.5", lw=1, zorder=1)
    shown = [("delta_ping_cpu", *PARTS["ping_cpu"]), ("delta_pong_cpu", *PARTS["pong_cpu"]),
             ("delta_p50", *MEASURED)]
    height, drawn = BAR / len(shown), []
    for k, (column, label, colour) in enumerate(shown):
        at = y + BAR / 2 - height * (k + 0.5)
        value = rows[column].to_numpy(dtype=float) / 1e3
        ax.barh(at, value, height, color=colour, label=label, zorder=2)
        low, high = (rows[f"{column}{s}"].to_numpy(dtype=float) / 1e3 for s in ("_low", "_high"))
        known = np.isfinite(low) & np.isfinite(high)
        ax.errorbar(value[known], at[known], xerr=np.vstack([value - low, high - value])[:, known].clip(0),
                    fmt="none", ecolor="black", elinewidth=0.8, capsize=2, zorder=3)
        drawn.append(value)
    values = np.concatenate(drawn) if drawn else np.zeros(1)
    limit = _limit(np.abs(values))
    for (k, value) in enumerate(drawn):
        for yi, v in zip(y + BAR / 2 - height * (k + 0.5), value, strict=True):
            if abs(v) > limit:
                _beyond(ax, limit if v > 0 else -limit, yi, v)
    finite = values[np.isfinite(values) & (np.abs(values) <= limit)]
    ax.set_xlim(min(0.0, 1.2 * float(finite.min(initial=0.0))), limit)
    ax.set_xlabel("µs")


def handles() -> list:
    return [*(Patch(color=c, label=label) for label, c in PARTS.values()),
            Line2D([], [], color="black", ls="", marker="|", ms=10, label="mean RTT"),
            Patch(color=MEASURED[1], label=MEASURED[0]),
            Line2D([], [], color="black", ls="", marker="|", ms=6, label="95 % interval,\npaired by round")]
