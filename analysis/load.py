"""Finds and reads a folder's logs, recursively: this suite's JSON + CSV pairs and the 2022 suite's CSV."""

# This suite's logs are checked against rtt-core's JSON schema (suite/logschema.py), which also gives
# each kind's CSV header. Each log comes out as a metadata dict, made by its kind's `meta` (one
# vocabulary for both formats), and numpy arrays: RTT samples in ns, or a throughput run's per-window
# counts. A micro log (in-process benchmarks) is its JSON alone: its metadata holds its repeats' times.
# Reading only: statistics live in stats.py.

import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from suite import dimensions, logschema

HEADERS = {kind: header for kind in logschema.schema().kinds if (header := logschema.schema().csv_header(kind))}
RTT_HEADER_BEFORE_CONNECTIONS = "seq,t_ns,rtt_ns"  # an RTT CSV of a suite version before --connections
EARLIER_HEADERS = {"rtt": (RTT_HEADER_BEFORE_CONNECTIONS,)}  # kind → CSV headers older suite versions wrote
OLD_HEADER = "framework,transport,test,count,rate,payload,tasks,value,unit"
OLD_KIND = "rtt"  # what the 2022 suite's CSVs hold
SWEEP_INFO = "sweep.json"
_UNIT_NS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9}
_OLD_NAMES = {"async_std": "async-std", "icmp": "ping"}  # 2022 spellings of framework labels
_SWEEP_NAME = re.compile(r"(\d{8}-\d{6})$")
OTHER_LOGS = ("wrk-log/",)  # logs of other programs a sweep keeps beside its own (parse.py wrk reads them)
ROUND = re.compile(r"-r(\d+)$")  # a repeat's stem ends in -r{k}, k its round; older stems: round 1


class LogError(Exception):
    """A file that cannot be used; the message says why, the caller names the path."""


@dataclass
class Found:
    """What a folder holds, before any samples are read."""

    logs: list[tuple[Path, dict]] = field(default_factory=list)  # (STEM.csv, run metadata)
    old_csvs: list[Path] = field(default_factory=list)  # 2022 per-sample CSVs
    infos: dict[Path, dict] = field(default_factory=dict)  # sweep.json files
    other_kinds: dict[str, int] = field(default_factory=dict)  # kind → logs not asked for
    damaged: list[tuple[Path, str]] = field(default_factory=list)  # (log of this kind, what is wrong): left out
    other_logs: dict[str, int] = field(default_factory=dict)  # schema → logs of other programs (OTHER_LOGS)


def newest_sweep(root: Path) -> Path | None:
    """The newest sweep folder under `root` by the timestamp in its name (else its mtime);
    `root` itself when it holds logs but no sub-folders; None when there is nothing."""
    if not root.is_dir():
        return None
    folders = [p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")]
    if not folders:
        return root if any(root.glob("*.csv")) else None

    def age(folder: Path) -> tuple:
        stamp = _SWEEP_NAME.search(folder.name)
        return (stamp.group(1) if stamp else "", folder.stat().st_mtime)

    return max(folders, key=age)


def _first_line(path: Path) -> str:
    with path.open("r", encoding="utf-8", errors="replace") as f:
        return f.readline().strip().lstrip("\ufeff")


def scan(folder: Path, kind, warn) -> Found:
    """Sort the files under `folder` into logs of `kind` (a Kind), 2022 CSVs and sweep.json files.
    Files that are not logs are named through `warn(path, reason)` and skipped; PDFs and the
    like are ignored."""
    found = Found()
    paired = set()
    for path in sorted(folder.rglob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as e:
            csv = path.with_suffix(".csv")
            if not csv.is_file():
                warn(path, f"unreadable JSON ({e})")
                continue
            paired.add(csv)  # its CSV is there: the JSON is what is wrong (written in part, cut short, spoilt)
            if _header_kind(csv) in (kind.name, None):
                found.damaged.append((path, f"its JSON is not valid JSON ({e})"))
            continue
        if path.name == SWEEP_INFO:
            found.infos[path] = data if isinstance(data, dict) else {"sweep.json": data}
            continue
        if isinstance(data, dict) and str(data.get("schema", "")).startswith(OTHER_LOGS):
            found.other_logs[str(data["schema"])] = found.other_logs.get(str(data["schema"]), 0) + 1
            continue  # another client's log beside the pings' (MODE=wrk): its own command reads it
        if not isinstance(data, dict) or not str(data.get("schema", "")).startswith("rtt-log/"):
            warn(path, "not an rtt-log JSON (no \"schema\": \"rtt-log/…\")")
            continue
        paired.add(path.with_suffix(".csv"))
        log_kind = str(data.get("kind", "rtt"))
        if log_kind != kind.name:
            found.other_kinds[log_kind] = found.other_kinds.get(log_kind, 0) + 1
            continue
        try:
            # A field that may be null and is absent was added after the suite version that wrote
            # the log (runtime_config, variant): read it as null, so older sweeps stay comparable.
            data = logschema.schema().blank(log_kind) | data
            logschema.schema().validate(data)
            meta = kind.meta(data)
        except (logschema.Invalid, LogError) as e:
            warn(path, str(e))
            continue
        meta["source"] = str(path.with_suffix(""))
        meta["round"] = round_of(path.stem)
        found.logs.append((path.with_suffix(".csv"), meta))
    for path in sorted(folder.rglob("*.csv")):
        if path in paired:
            continue
        try:
            header = _first_line(path)
        except OSError as e:
            warn(path, f"unreadable ({e.strerror or e})")
            continue
        if header == OLD_HEADER:
            found.old_csvs.append(path)
        elif _kind_of(header) == kind.name:
            warn(path, f"no {path.with_suffix('.json').name} beside it")
        elif _kind_of(header) is None:  # another kind's is not ours to judge
            warn(path, "not an RTT log (unknown CSV header)")
    return found


def _kind_of(header: str) -> str | None:
    """The kind of log a CSV header is of, this suite version's or an earlier one's; None: none."""
    return next((k for k, h in HEADERS.items() if header in (h, *EARLIER_HEADERS.get(k, ()))), None)


def _header_kind(csv: Path) -> str | None:
    try:
        return _kind_of(_first_line(csv))
    except OSError:
        return None


def round_of(stem: str) -> int:
    """The round k of a repeat from its stem's `-r{k}` suffix; 1 for a stem without one."""
    found = ROUND.search(stem)
    return int(found.group(1)) if found else 1


def needed(data: dict, *keys: str) -> None:
    """The schema lets a reference baseline's log (ICMP ping) be null where it has no value; these
    it must have."""
    for key in keys:
        if data[key] is None:
            raise LogError(f"field {key!r} is null")


def series(data: dict) -> dict:
    """The label a log is shown under: its `variant` (a runtime run with other options, VARIANTS) when
    set, else its framework; and what the variant ran (its base runtime and runtime_config)."""
    variant = data.get("variant")
    return {"framework": variant or data["framework"], "base": data["framework"], "variant": variant,
            "runtime_config": data.get("runtime_config")}


def _whole(csv: Path) -> None:
    """A log's CSV ends with its last row's newline: one that does not was cut short (a full disk, a
    copy stopped) and its last value may be a fragment of the number written, still a number."""
    with csv.open("rb") as f:
        if f.seek(0, os.SEEK_END) == 0:
            return
        f.seek(-1, os.SEEK_END)
        if f.read(1) != b"\n":
            raise LogError("its CSV ends in the middle of a line (cut short)")


def read_windows(csv: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Start times (ns since the measurement began), messages and bytes of each window, as int64."""
    try:
        if _first_line(csv) != HEADERS["throughput"]:
            raise LogError(f"its CSV header is not {HEADERS['throughput']!r}")
        _whole(csv)
        frame = pd.read_csv(csv, usecols=["t_ns", "messages", "bytes"], dtype=np.int64, engine="c")
    except FileNotFoundError:
        raise LogError("its CSV is missing") from None
    except (OSError, ValueError, pd.errors.ParserError) as e:
        raise LogError(f"unreadable CSV ({str(e).splitlines()[0]})") from None
    messages, size = frame["messages"].to_numpy(), frame["bytes"].to_numpy()
    if (messages < 0).any() or (size < 0).any():
        raise LogError("negative counts in its CSV")
    return frame["t_ns"].to_numpy(), messages, size


def read_samples(csv: Path, with_time: bool, conn: bool = False, latency: bool = False) -> tuple:
    """RTTs of a STEM.csv as int64 ns, and when asked: send times (ns), each reply's connection (0-based;
    all 0 in a CSV from before --connections) and its latency from the scheduled send (ns; open load
    only: a closed-loop CSV leaves that column empty). What was not asked for is None."""
    try:
        header = _first_line(csv).split(",")
        if latency and "latency_ns" not in header:
            raise LogError("its CSV has no latency_ns column, though its JSON says open load")
        columns = ["rtt_ns", *(["t_ns"] if with_time else []), *(["conn"] if conn and "conn" in header else []),
                   *(["latency_ns"] if latency else [])]
        _whole(csv)
        frame = pd.read_csv(csv, usecols=columns, dtype=np.int64, engine="c")
    except FileNotFoundError:
        raise LogError("its CSV is missing") from None
    except (OSError, ValueError, pd.errors.ParserError) as e:
        raise LogError(f"unreadable CSV ({str(e).splitlines()[0]})") from None
    rtt = frame["rtt_ns"].to_numpy()
    connection = frame["conn"].to_numpy() if "conn" in frame else np.zeros(len(rtt), np.int64) if conn else None
    return (rtt, frame["t_ns"].to_numpy() if with_time else None, connection,
            frame["latency_ns"].to_numpy() if latency else None)


def read_2022(csv: Path, kind: str, with_time: bool) -> list[tuple[dict, np.ndarray, np.ndarray | None]]:
    """The runs of a 2022-suite CSV: one per (framework, transport, rate, payload, tasks).

    That suite slept `rate` seconds after each reply and kept no send times, so the time axis
    is estimated as the running sum of RTT + interval (flagged in the metadata)."""
    dtypes = {"framework": "category", "transport": "category", "test": "category",
              "rate": np.float64, "payload": np.int64, "tasks": np.int64,
              "value": np.float64, "unit": "category"}
    try:
        frame = pd.read_csv(csv, usecols=list(dtypes), dtype=dtypes, engine="c")
    except (OSError, ValueError, pd.errors.ParserError) as e:
        raise LogError(f"unreadable 2022 CSV ({str(e).splitlines()[0]})") from None
    frame = frame[frame["test"] == kind]
    units = frame["unit"].astype(str).str.strip()
    factor = units.map(_UNIT_NS)
    if factor.isna().any():
        raise LogError(f"unknown time unit(s) {sorted(set(units[factor.isna()]))}")
    frame = frame.assign(rtt_ns=np.rint(frame["value"].to_numpy() * factor.to_numpy()).astype(np.int64))
    keys = ["framework", "transport", "rate", "payload", "tasks"]
    runs = []
    for (framework, transport, rate, payload, tasks), group in frame.groupby(keys, observed=True, sort=True):
        rtt = group["rtt_ns"].to_numpy()
        t = None
        if with_time:
            step = rtt + np.int64(round(rate * 1e9))
            t = np.concatenate([[0], np.cumsum(step[:-1])]).astype(np.int64)
        meta = {
            "framework": _OLD_NAMES.get(str(framework), str(framework)), "base": None, "variant": None,
            "runtime_config": None,
            "transport": str(transport), "payload": int(payload), "interval_s": float(rate),
            "target_rate": 1.0 / rate if rate > 0 else math.inf, "achieved_rate": None,
            **dimensions.read(kind, {}), "tasks": int(tasks), "window": None, "starved": None,
            "json_latency_n": None, "lost": None, "complete": True, "pacing": "sleep",
            "started_at": None, "host": None, "address": None, "json_n": None,
            "format": "2022 CSV", "time_estimated": True, "details": {},
            "source": str(csv), "round": 1,
        }
        runs.append((meta, rtt, t))
    return runs
