"""The README's first answer: runs its short sweep and pastes what it prints into README.md's first-answer block.

    python3 -m findings.first_answer              # the sweep (a few minutes), then the block
    python3 -m findings.first_answer --no-sweep   # the block again from the newest folder of that sweep
"""

# The block holds the command, the sweep's plan line and the table `parse.py table` prints for that folder; the
# first-answer-row block, the table's header and tokio's back-to-back TCP row, for "How to read a row":
# tests/test_docs.py checks that its command still plans the same runs and that its table has today's columns
# and notes. After `make`.

import argparse
import json
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

from suite.fmt import duration

from . import page

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
BLOCK = "first-answer"
ROW = "first-answer-row"  # the row "How to read a row" reads, from the block
KNOBS = (("INTERVALS", "0.001 0"),)  # two rates: 1 k msg/s and back-to-back
FLAGS = "-St"  # std and tokio, over TCP and UDP (the default PROTOCOLS)
DEADLINE_S = 20 * 60  # the sweep's plan says about 3 min on a 2-vCPU VM


def command() -> str:
    return " ".join([*(f"{k}={shlex.quote(v)}" for k, v in KNOBS), "./run-localhost.sh", FLAGS])


def run(out_dir: Path) -> str | None:
    """Runs the sweep, its output shown as it comes; returns its plan line, or None when it failed."""
    env = {**os.environ, **dict(KNOBS), "OUT_DIR": str(out_dir)}
    proc = subprocess.Popen(["./run-localhost.sh", FLAGS], cwd=REPO, env=env, stdout=subprocess.PIPE, text=True)
    plan = None
    try:
        for line in proc.stdout:
            sys.stderr.write(line)
            if plan is None and line.startswith("Plan:"):
                plan = line.rstrip("\n")
        status = proc.wait(timeout=DEADLINE_S)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)  # as Ctrl-C: the sweep stops its own ends and keeps its runs
        status = proc.wait(timeout=60)
    return plan if status == 0 else None


def newest(out_dir: Path) -> Path | None:
    folders = sorted(p for p in out_dir.glob("localhost-*") if (p / "sweep.json").is_file())
    return folders[-1] if folders else None


def body(folder: Path, plan: str) -> str:
    """The block: the command and its plan line, the table, and where and when it was taken."""
    table = subprocess.run([sys.executable, str(REPO / "parse.py"), "table", "-d", str(folder)], cwd=REPO,
                           capture_output=True, text=True, check=True).stdout
    facts = json.loads((folder / "sweep.json").read_text())
    wall = facts.get("wall_s")
    took = f", in {duration(wall)}" if isinstance(wall, (int, float)) else ""
    return (f"```console\n$ {command()}\n{plan}\n…\n{table.rstrip()}\n```\n\n"
            f"*Taken from `{folder.relative_to(REPO) if folder.is_relative_to(REPO) else folder}`{took}, on the "
            f"2-vCPU VM the findings come from, shared with other work; `python3 -m findings.first_answer` "
            f"takes it again.*\n")


def row(block: str) -> str:
    """The README's row to read: the table's header and tokio's back-to-back TCP row, as the block shows them."""
    lines = block.splitlines()
    header = next(line for line in lines if line.startswith("framework"))
    tokio = next(line for line in lines if line.split()[:1] == ["tokio"] and " tcp " in line and " ∞ " in line)
    return f"```\n{header}\n{tokio}\n```\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m findings.first_answer", description=__doc__.split("\n\n")[0])
    p.add_argument("--no-sweep", action="store_true", help="run nothing: the block from the newest folder")
    p.add_argument("--out-dir", type=Path, default=REPO / "latency-logs" / "first-answer")
    ns = p.parse_args(argv)
    plan = None
    if not ns.no_sweep:
        plan = run(ns.out_dir)
        if plan is None:
            print("findings.first_answer: the sweep failed: the README is left as it was", file=sys.stderr)
            return 1
    folder = newest(ns.out_dir)
    if folder is None:
        print(f"findings.first_answer: no sweep in {ns.out_dir}: run it first (without --no-sweep)", file=sys.stderr)
        return 1
    if plan is None:  # the plan line again, as the sweep printed it: DRY_RUN with the sweep's own seed
        seed = json.loads((folder / "sweep.json").read_text()).get("seed")
        env = {**os.environ, **dict(KNOBS), "DRY_RUN": "1", **({"SEED": str(seed)} if seed is not None else {})}
        dry = subprocess.run(["./run-localhost.sh", FLAGS], cwd=REPO, env=env, capture_output=True, text=True)
        plan = next((line for line in dry.stdout.splitlines() if line.startswith("Plan:")), "")
    block = body(folder, plan)
    README.write_text(page.rewrite(README.read_text(), {BLOCK: block, ROW: row(block)}))
    print(f"findings.first_answer: rewrote {README.name}'s {BLOCK} block from {folder}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
