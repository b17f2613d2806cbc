"""Room for the logs: the bytes a sweep will write, estimated before its first run, and a write error, named."""

# The estimate is samples × a CSV row's bytes, plus each run's JSON, as each kind's mode guesses them
# (run_bytes: each run's point carries its mode). Warm-up samples are counted too: what the ping writes, not
# what is analysed.

import os
import re
from pathlib import Path

# How a ping or a micro binary says it could not write a log (rtt-core's output.rs, then `{name}: error: …`).
WRITE_ERROR = re.compile(r".*: error: (?:writing|creating) (.+?)(?: \(check --out\))?: (.*)")


def estimate_bytes(runs, spec) -> int:
    """What the whole plan writes (each run's its mode's `run_bytes`), sweep.json included (a few hundred
    bytes a run, twice while it is rewritten)."""
    return sum(r.point.mode.run_bytes(r.point, spec) for r in runs) + 2 * 600 * len(runs)


def free_bytes(directory: Path) -> int:
    """The bytes an unprivileged writer may still use on the file system of `directory` (or its nearest
    existing parent)."""
    directory = Path(directory).absolute()
    while not directory.exists():
        directory = directory.parent
    stat = os.statvfs(directory)
    return stat.f_bavail * stat.f_frsize


def size(n: int) -> str:
    """Bytes for people: 512 B, 3.4 MB, 1.2 GB."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def lacking(runs, spec) -> str | None:
    """Why OUT_DIR cannot hold the sweep's logs, in one line; None when it can."""
    out_dir = spec.out_dir
    need, free = estimate_bytes(runs, spec), free_bytes(out_dir)
    if need <= free:
        return None
    return (f"OUT_DIR={out_dir} has {size(free)} free, and this sweep writes about {size(need)}: free some space, "
            "point OUT_DIR elsewhere or plan fewer or shorter runs")


class WriteFault(Exception):
    """A log or sweep.json could not be written: the sweep stops."""

    def __init__(self, path, reason: str):
        super().__init__(f"cannot write {path}: {reason}")
        self.path, self.reason = Path(path), reason


def from_os_error(path, error: OSError) -> WriteFault:
    return WriteFault(path, os.strerror(error.errno) if error.errno else str(error))


def said(stderr_files) -> WriteFault | None:
    """The write error a ping or micro binary printed, from the first stderr file that has one."""
    for path in map(Path, stderr_files):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            found = WRITE_ERROR.fullmatch(line)
            if found:
                return WriteFault(found[1], found[2])
    return None
