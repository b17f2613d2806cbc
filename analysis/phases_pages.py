"""`parse.py phases -o`: a stacked bar of each traced point's phases, then a few of its round trips one by one."""

import numpy as np

from . import pages, phases


def bars(table: list[dict], ax) -> None:
    """A stacked bar per traced point: its phases' means (µs), bottom to top in the round trip's order."""
    labels = [r["point"] for r in table]
    bottom = np.zeros(len(table))
    for j, name in enumerate(phases.PHASES):
        values = np.nan_to_num(np.array([r["phases"][j].value for r in table], dtype=float)) / 1000
        ax.barh(labels, values, left=bottom, label=name)
        bottom += values
    ax.scatter([r["run_p50_ns"] / 1000 for r in table], labels, marker="|", s=200, color="black",
               label="the traced runs' p50", zorder=3)
    ax.set_xlabel("µs per round trip (phase means over the fastest 90 %, averaged over the traced runs)")
    ax.invert_yaxis()
    ax.legend(fontsize="small", loc="lower right")


def timeline(t: phases.Traced, ax, count: int = 5) -> None:
    """`count` consecutive complete round trips from the middle of a traced run, each a row from its own send (µs):
    one round trip's phases as they happened, where the bars give their means."""
    s = t.split
    if not s.complete:
        ax.text(0.5, 0.5, "no complete round trip", ha="center", transform=ax.transAxes)
        return
    first = max(0, min(s.complete - count, s.complete // 2))
    chosen = range(first, min(first + count, s.complete))
    for row, i in enumerate(chosen):
        at = 0.0
        for j, width in enumerate(s.phases[i] / 1000):
            ax.broken_barh([(at, width)], (row - 0.4, 0.8), color=f"C{j}", label=phases.PHASES[j] if row == 0 else None)
            at += width
    ax.set_yticks(range(len(chosen)), [f"#{i + 1}" for i in chosen], fontsize="small")
    ax.invert_yaxis()


def pages_of(table: list[dict], where: str) -> list:
    """The bars on a page of their own, then a page of timelines (each point's first traced run), six a page."""
    fig, (ax,) = pages.new_page("Where a round trip's time goes (traced runs)", where)
    fig.subplots_adjust(left=0.3)  # the points' names
    bars(table, ax)
    out = [fig]
    for start in range(0, len(table), 6):
        chunk = table[start:start + 6]
        fig, axes = pages.new_page("Round trips from the middle of each traced run, phase by phase (µs from "
                                   "the ping's send)", where, len(chunk), 2)
        fig.subplots_adjust(hspace=0.45)
        for r, ax in zip(chunk, axes, strict=True):
            timeline(r["traced"][0], ax)
            pages.panel_title(ax, r["point"])
        fig.legend(*axes[0].get_legend_handles_labels(), loc="center right", fontsize="small")  # in the margin
        out.append(fig)
    return out
