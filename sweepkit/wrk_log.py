"""wrk's report as a log the analysis reads (MODE=wrk): its figures, errors and flags, and the raw text, as JSON.

wrk 4 (`--latency`) prints its figures for people, in units it picks (us, ms, s; k, M): `parse` reads them
back into ns and counts, `log` builds the JSON that sits beside the suite's ping logs of the same sweep
(STEM.json of a point whose stem ends -wrk). Standard library only, as the rest of the sweep.
"""

import json
import os
import re
import subprocess
from functools import cache
from pathlib import Path

SCHEMA = "wrk-log/1"
KIND = "wrk"
_NS = {"us": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9}  # wrk's time units (units.c)
_NUMBER = r"([0-9]+(?:\.[0-9]*)?)"
_TIME = rf"{_NUMBER}(us|ms|s|m|h)"
LATENCY = re.compile(rf"\s*Latency\s+{_TIME}\s+{_TIME}\s+{_TIME}\b")
PERCENTILE = re.compile(rf"\s*(50|75|90|99)%\s+{_TIME}\s*")
REQUESTS = re.compile(rf"\s*([0-9]+) requests in {_TIME},")
SOCKET_ERRORS = re.compile(r"\s*Socket errors: connect ([0-9]+), read ([0-9]+), write ([0-9]+), timeout ([0-9]+)\s*")
NON_2XX = re.compile(r"\s*Non-2xx or 3xx responses: ([0-9]+)\s*")
REQ_PER_S = re.compile(rf"Requests/sec:\s+{_NUMBER}\s*")


class Unreadable(ValueError):
    """wrk's output lacks a line the log needs; the message names it."""


def _ns(value: str, unit: str) -> float:
    return round(float(value) * _NS[unit], 3)


def parse(text: str) -> dict:
    """The figures of a wrk --latency report: requests, elapsed_s, req_per_s, latency_ns (mean, stdev, max, p50,
    p75, p90, p99) and errors (connect, read, write, timeout, non_2xx; wrk leaves out the lines of zero counts)."""
    found: dict = {"latency_ns": {}, "errors": dict.fromkeys(("connect", "read", "write", "timeout", "non_2xx"), 0)}
    for line in text.splitlines():
        if m := LATENCY.match(line):
            found["latency_ns"] |= {"mean": _ns(m[1], m[2]), "stdev": _ns(m[3], m[4]), "max": _ns(m[5], m[6])}
        elif m := PERCENTILE.fullmatch(line):
            found["latency_ns"][f"p{m[1]}"] = _ns(m[2], m[3])
        elif m := REQUESTS.match(line):
            found["requests"], found["elapsed_s"] = int(m[1]), _ns(m[2], m[3]) / 1e9
        elif m := SOCKET_ERRORS.fullmatch(line):
            found["errors"] |= dict(zip(("connect", "read", "write", "timeout"), map(int, m.groups())))
        elif m := NON_2XX.fullmatch(line):
            found["errors"]["non_2xx"] = int(m[1])
        elif m := REQ_PER_S.fullmatch(line):
            found["req_per_s"] = float(m[1])
    needed = {"Requests/sec": "req_per_s", "N requests in": "requests"}
    missing = [line for line, key in needed.items() if key not in found]
    missing += [f"{p}% (--latency)" for p in (50, 75, 90, 99) if f"p{p}" not in found["latency_ns"]]
    if "mean" not in found["latency_ns"]:
        missing.append("Latency (Thread Stats)")
    if missing:
        raise Unreadable(f"wrk's report has no {', '.join(missing)} line")
    return found


def flags(errors: dict) -> list[str]:
    """Why a run's figures are suspect: socket errors or replies other than 2xx/3xx (wrk counts them together)."""
    said = []
    sockets = {k: errors[k] for k in ("connect", "read", "write", "timeout") if errors[k]}
    if sockets:
        said.append(f"{sum(sockets.values())} socket errors ({', '.join(f'{k} {n}' for k, n in sockets.items())})")
    if errors["non_2xx"]:
        said.append(f"{errors['non_2xx']} non-2xx or 3xx responses")
    return said


def log(text: str, exit_status: int, facts: dict) -> dict:
    """The wrk log of one run: `facts` (framework, variant, address, url, the request, wrk's options, started_at,
    command, client_version), its exit status, its figures, whether it is flagged and why, and the raw text.
    A run whose wrk failed or whose report cannot be read is `complete: false` with the reason in `error`."""
    document = {"schema": SCHEMA, "kind": KIND, "client": "wrk", **facts, "exit_status": exit_status,
                "complete": False, "error": None, "requests": None, "elapsed_s": None, "req_per_s": None,
                "latency_ns": None, "errors": None, "flagged": False, "flags": []}
    try:
        document |= parse(text)
    except Unreadable as problem:
        document["error"] = str(problem)
    if exit_status != 0:
        last = [line.strip() for line in text.splitlines() if line.strip()]
        document["error"] = f"wrk exited with status {exit_status}" + (f": {last[-1]}" if last else "")
    elif document["error"] is None and not document["requests"]:
        document["error"] = "wrk completed no request"
    document["complete"] = document["error"] is None
    if document["errors"] is not None:
        document["flags"] = flags(document["errors"])
        document["flagged"] = bool(document["flags"])
    return document | {"raw": text}


def write(path: Path, document: dict) -> None:
    """Writes the log whole or not at all (a temporary file renamed over it); an OSError is the caller's."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


@cache
def version(wrk: str) -> str:
    """wrk's version line (`wrk -v` prints it, then its usage, and exits 1), or "" when it says none in 5 s."""
    try:
        done = subprocess.run([wrk, "-v"], capture_output=True, text=True, timeout=5, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    lines = (done.stdout + done.stderr).splitlines()
    return lines[0].strip() if lines and lines[0].startswith("wrk ") else ""
