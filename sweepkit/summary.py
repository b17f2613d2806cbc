"""The closing table: parse.py's when the analysis toolkit is installed, else a plain one, a table per kind of log."""

# parse.py needs the analysis packages; the plain table needs none (its rows are each kind's mode's).

import json
import subprocess
import sys
from pathlib import Path

from . import modes, table
from .defaults import SUITE_DIR

ANALYSIS_LIMIT_S = 600  # the closing table of a sweep of millions of samples takes seconds; a hung one must end


def figures(log: dict) -> tuple:
    """A log's two figures, as its kind's run records them (p50 RTT and achieved rate; throughput: p50
    msg/s and Gb/s; micro: the median ns per operation and operations per second)."""
    return modes.of_log(log).figures(log)


def log_figures(path) -> tuple:
    """`figures` of a log file; unknown ones when it cannot be read."""
    log = table.read(path)
    return (None, None) if log is None else figures(log)


def summary(sweep_dir) -> list[str]:
    """A table per kind of log found (a sweep holds one kind, unless logs were copied in), a row per
    run, the repeats of a point together."""
    rows: dict[str, list] = {kind: [] for kind in modes.LOG_KINDS}
    for path in sorted(Path(sweep_dir).glob("*.json"), key=table.by_point_and_repeat):
        if path.name == "sweep.json":
            continue
        try:
            log = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            print(f"{path}: unreadable ({error})", file=sys.stderr)
            continue
        named = table.REPEAT.fullmatch(path.stem)
        mode = modes.of_log(log)
        rows[mode.kind].append(mode.row(log, f"r{named[2]}" if named else table.UNKNOWN))
    lines = []
    for kind, found in rows.items():
        if found:
            lines += ([""] if lines else []) + table.render(modes.of(kind).header, found)
    return lines or [f"no logs in {sweep_dir}"]


def summary_table(sweep_dir: Path, mode: str, pr: bool = False) -> list[str]:
    """parse.py's table when the analysis toolkit is installed (a PR check's: its comment, which it writes as
    pr-comment.md), else the plain one."""
    lines, command = [], ["pr"] if pr else modes.of(mode).closing_command()
    if (SUITE_DIR / "parse.py").is_file():
        try:
            run = subprocess.run([sys.executable, "parse.py", *command, "-d", str(sweep_dir)], cwd=SUITE_DIR,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=ANALYSIS_LIMIT_S)
        except subprocess.TimeoutExpired:
            return [f"(parse.py {' '.join(command)} did not end within {ANALYSIS_LIMIT_S} s)", *summary(sweep_dir)]
        out = run.stdout.rstrip("\n")
        if run.returncode == 0:
            return [out]
        last = out.splitlines()[-1] if out else ""
        lines.append(f"(parse.py {' '.join(command)} failed with status {run.returncode}: {last})")
    return lines + summary(sweep_dir)
