"""Where a sweep keeps its traced runs (TRACE=1) and how such a file starts: what the sweep writes and parse.py reads."""

FOLDER = "traces"  # a sweep folder's subfolder: STEM-tK.trace per traced point and round, outside every estimate
SUFFIX = ".trace"
HEADER = "# rtt-trace "  # a .trace file's first line: this, then a JSON object (the point, both PIDs, the run's RTTs)


def name(point: str, round_: int) -> str:
    """A traced run's file name in FOLDER: its point's stem and its traced round, e.g. std-tcp-64B-0s-0t-t1.trace."""
    return f"{point}-t{round_}{SUFFIX}"
