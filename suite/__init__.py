"""What the sweep and the analysis share: the runtime list, the point dimensions, the log schema, the percentile, number formats, colours."""

# Standard library only: the sweep runs on a bare python3, before the analysis packages are installed.
# Modules: runtimes (runtimes.json), dimensions (what a point is swept over), logschema (the logs' JSON
# schema and CSV headers), percentile (nearest rank), fmt (every number and time as people read it), palette (colours, line styles, order).
# Nothing here imports the analysis (pyproject.toml's import-linter contracts check it).
