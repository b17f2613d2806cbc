"""The analysis toolkit behind parse.py: a sweep's logs to a summary table and PDF figures."""

# Modules: load (files), logschema (the logs' JSON schema), stats and percentile (numbers), sweep
# (runs table), summary (table output), runtimes and style (names, colours, number formats: stdlib
# only), plots (one axis each), report (pages), throughput_report (the throughput pages), cli.
