"""Where a sweep keeps its traced runs (TRACE=1) and how such a file starts: what the sweep writes and parse.py reads."""

FOLDER = "traces"  # a sweep folder's subfolder: one STEM.trace per traced point, outside every estimate
SUFFIX = ".trace"
HEADER = "# rtt-trace "  # a .trace file's first line: this, then a JSON object (the point, both PIDs, the run's RTTs)
