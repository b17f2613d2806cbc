"""The analysis toolkit behind parse.py: a sweep's logs to a summary table and PDF figures."""

# One package per kind of log (rtt, throughput, micro), each a class implementing Kind (kind.py): its
# point keys, metrics, tables and figure table. What they share: load (files), sweep and points (runs and
# points of any kind), stats and uncertainty (numbers), summary (the table kit), compare and
# compare_pages (two sweeps), plots (the figure kit), pages (the page kit, the one place that saves),
# cli (the entry: a cmd_<name> per command, main), request (what a command asks, resolved once), options
# (the options several commands share), legacy (the old flags as aliases of the commands). The facts
# the sweep shares (runtimes, point dimensions, log schema, percentile, number formats, colours) are
# the suite package's, at the repository's root. Import rules: pyproject.toml's [tool.importlinter]
# contracts.
