"""The analysis toolkit behind parse.py: a sweep's logs to a summary table and PDF figures."""

# Analysis toolkit for the RTT suite: reads a sweep's RTT or throughput logs, prints a summary
# table and draws the figures (``python3 parse.py -h``). Modules: load (files), stats (numbers),
# sweep (runs table), summary (table output), style, plots (one axis each), report (pages),
# throughput_report (the throughput pages), cli.
