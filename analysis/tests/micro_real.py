"""Real micro logs: every runtime's <prefix>-micro (and go-micro when it was built) on every benchmark at
small sizes, 7 timed repeats each (enough for a 95 % interval of the median)."""

import subprocess
from pathlib import Path

import pytest

from suite import runtimes

REPO = Path(__file__).resolve().parents[2]
BIN_DIR = REPO / "target" / "release"
REPEAT = 7
STD_CAPPED = 30_000  # notify/oneshot instances above std's thread cap: its log says not_run
# (bench, arguments) of every run; the stem says the sizes as the sweeps name them.
RUNS = [
    ("spawn_many", ["--tasks", "200"]), ("yield_many", ["--tasks", "20", "--yields", "50"]),
    ("ping_pong", ["--tasks", "100"]), ("chained_spawn", ["--tasks", "100"]),
    *[(bench, ["--instances", "100", "--hold-ms", "5"]) for bench in ("notify", "oneshot")],
    *[("channel", ["--event-type", t, "--workers", str(w), "--events", "500", "--queue", "16"])
      for t in ("int", "string") for w in (2, 8)],
]


def _binary(prefix: str) -> Path:
    path = BIN_DIR / f"{prefix}-micro"
    if not path.is_file():  # never a skip: `make test` builds them first
        pytest.fail(f"missing {path}: run `make` first")
    return path


def stem_of(framework: str, bench: str, args: list[str]) -> str:
    named = dict(zip(args[::2], args[1::2], strict=True))
    parts = [framework, bench]
    if bench == "channel":
        parts += [named["--event-type"], f"w{named['--workers']}"]
    elif bench in ("notify", "oneshot"):
        parts.append(f"i{named['--instances']}")
    return "-".join(parts) + "-r1"


def run_one(folder: Path, label: str, prefix: str, bench: str, args: list[str]) -> Path:
    stem = folder / stem_of(label, bench, args)
    done = subprocess.run([_binary(prefix), "--bench", bench, *args, "--repeat", str(REPEAT), "--timeout", "60",
                           "--out", stem], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{stem.name}: {done.stderr}"
    return stem.with_suffix(".json")


def go_built() -> bool:
    return (BIN_DIR / "go-micro").is_file()


def micro_runtimes() -> list:
    """The runtimes with a <prefix>-micro: those of runtimes.json whose modes include micro."""
    return [e for e in runtimes.runtimes() if e.takes_part("micro")]


def run_all(folder: Path) -> list[Path]:
    """Every runtime × RUNS, std's notify and oneshot above its cap too, and go-micro × RUNS when `make`
    built it (it needs go); returns the logs' paths."""
    folder.mkdir(parents=True, exist_ok=True)
    logs = []
    for entry in micro_runtimes():
        for bench, args in RUNS:
            logs.append(run_one(folder, entry.label, entry.binary_prefix, bench, args))
    for bench in ("notify", "oneshot"):
        logs.append(run_one(folder, "std", "std", bench, ["--instances", str(STD_CAPPED)]))
    if go_built():
        go = runtimes.by_label("go")
        logs += [run_one(folder, go.label, go.binary_prefix, bench, args) for bench, args in RUNS]
    return logs
