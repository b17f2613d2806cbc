"""The figure kit: what the kinds' figures share, tick formats, 95 % interval bars and legend entries."""

# Each kind's figures (analysis/rtt/figures.py, throughput/pages.py, micro/figures.py) draw onto an axis
# they are given and return nothing; colours and line styles come from the Palette they are passed.

import math

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter

from suite import fmt
from suite.palette import NO_VARIANTS
from suite.palette import TRANSPORT_ORDER, VARIANT_STYLES, Palette, is_reference, order_key

PLAIN = FuncFormatter(lambda v, _: fmt.plain(v))
SI = FuncFormatter(lambda v, _: fmt.si(v))


def minor_labels(axis, write=fmt.plain) -> FuncFormatter:
    """Labels the 2× and 5× minor ticks of a log axis that spans at most about two decades (else a
    panel may show a single labelled tick), written by `write`."""
    def label(value: float, _) -> str:
        low, high = sorted(axis.get_view_interval())
        if value <= 0 or low <= 0 or math.log10(high / low) > 2.2:
            return ""
        lead = round(value / 10 ** math.floor(math.log10(value) + 1e-9), 6)
        return write(value) if lead in (2, 5) else ""
    return FuncFormatter(label)


def error_bars(ax, x, y, low, high, colour: str) -> None:
    """The 95 % interval of each point as a vertical bar with caps; none where it is unknown."""
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    known = np.isfinite(low) & np.isfinite(high)
    if known.any():
        y = np.asarray(y, dtype=float)[known]
        ax.errorbar(np.asarray(x)[known], y, yerr=np.vstack([y - low[known], high[known] - y]).clip(0),
                    fmt="none", ecolor=colour, elinewidth=1, capsize=2.5, zorder=4)


def framework_handles(frameworks, transport: str = "tcp", palette: Palette = NO_VARIANTS) -> list:
    """Legend entries: one colour per framework, in the suite's order; a variant (in its shade of its
    base's colour) with its line style for `transport`, right after its base."""
    names = sorted(set(frameworks), key=lambda f: (palette.series_rank([f]), f))
    return [Line2D([], [], color=palette.colour(f), lw=1.2 if is_reference(f) else 2,
                   ls=palette.linestyle(transport, f), marker="s" if is_reference(f) else "", ms=3, label=f)
            for f in names]


def style_handles(transports=(), band=False, missed=False, percentiles=(), ci=False, series=(),
                  spread: str | None = None, palette: Palette = NO_VARIANTS) -> list:
    """Legend entries for what line styles and marks mean; with a variant among `series`, the
    variants' line style of each transport too; `spread` labels the pale bars of a spread."""
    order = sorted(set(transports), key=lambda t: (order_key([t], TRANSPORT_ORDER), t))
    handles = [Line2D([], [], color="0.3", ls=palette.linestyle(t), label=t.upper()) for t in order]
    if any(palette.is_variant(f) for f in series):
        handles += [Line2D([], [], color="0.3", ls=VARIANT_STYLES[t], label=f"{t.upper()}, a variant")
                    for t in order if t in VARIANT_STYLES]
    for label, ls, marker in percentiles:
        handles.append(Line2D([], [], color="0.3", ls=ls, marker=marker, ms=4, label=label))
    if band:
        handles.append(Patch(color="0.3", alpha=0.15, label="p5–p95 band"))
    if spread:
        handles.append(Line2D([], [], color="0.3", alpha=0.3, lw=5, label=spread))
    if ci:
        handles.append(Line2D([], [], color="0.3", ls="", marker="|", ms=9, label="95 % interval\nof the median"))
    if missed:
        handles.append(Line2D([], [], ls="", marker="o", ms=10, mfc="none", mec="#D55E00", mew=1.6,
                              label="achieved rate\n> 5 % off target"))
    return handles
