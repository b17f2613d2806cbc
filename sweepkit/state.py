"""sweep.json, the sweep's one state file: its layout, atomic rewrites, machine facts, a ping's outcome."""

# Rewritten as runs end (how often: sweepkit/runner.py's REWRITE_SHARE) and at the end, so an interrupted
# sweep still says how far it got.

import json
import math
import os
import re
import time
from pathlib import Path

SCHEMA = "rtt-sweep/2"
# Of a run; empty: its binary ended well but its window held no sample, after its retries (sweepkit/retry.py).
STATUSES = ("ok", "empty", "failed", "skipped", "interrupted", "planned")
# Of a point, from its runs: every repeat ok; some ok, not all; none ok, as the runs say.
POINT_STATUSES = ("ok", "partial", "empty", "failed", "skipped", "interrupted", "planned")
# The order of sweep.json's keys; keys not listed (none today) would follow the scalars.
ORDER = ("schema", "status", "kind", "mode", "command", "target", "remote", "remote_dir", "frameworks",
         "variants", "repeats", "seed", "pinning", "nice", "started_at", "estimated_s", "finished_at", "wall_s", "measured_s",
         "warmup_total_s", "overhead_per_run_s")
LAST = ("knobs", "knobs_given", "hosts", "counts", "point_counts", "points", "runs")
ONE_LINE_EACH = ("points", "runs")  # their entries, a line each (dumps)
# A ping killed by `timeout` (124), or by its -k KILL (137).
TIMED_OUT = (124, 137)
# What an io_uring runtime's ping or pong prints, then exits 1, when the kernel refuses io_uring
# (io_uring_disabled, seccomp, an old kernel): the run is skipped with that line, not failed.
UNAVAILABLE = re.compile(r"io_uring is unavailable: .*")
# What a ping's watchdog prints when the runtime under test never ran the measurement to its end (rtt-net's
# ping.rs; std with 1 000 timer threads on 2 CPUs): a finding about the point, not a fault of the sweep.
UNFINISHED = re.compile(r"the run did not end within ([0-9]+) s: the runtime under test never ran the measurement")


def load(path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def tally(doc: dict) -> None:
    """Each point's status, repeats_ok and empty (its runs whose windows held no sample) from its runs. A point with
    no run was skipped by the plan and keeps its reason; otherwise its message says how many repeats it has when that
    is not all, and how many of the others held no sample."""
    by_point: dict[str, list[dict]] = {}
    for run in doc.get("runs", []):
        by_point.setdefault(run["point"], []).append(run)
    for point in doc.get("points", []):
        runs = by_point.get(point["stem"])
        if not runs:
            continue
        statuses = [r["status"] for r in runs]
        ok, empty = statuses.count("ok"), statuses.count("empty")
        point["repeats_ok"], point["empty"] = ok, empty
        if ok == len(runs):
            point["status"], point["message"] = "ok", None
            continue
        if ok:
            point["status"] = "partial"
        else:
            point["status"] = next((s for s in ("failed", "interrupted", "empty", "planned") if s in statuses),
                                   "skipped")
        if point["status"] == "skipped":
            point["message"] = runs[0]["message"]
        elif point["status"] == "planned":
            point["message"] = None
        elif point["status"] == "empty" and empty == len(runs):
            point["message"] = f"all {empty} runs held no sample; the first: {runs[0]['message']}"
        else:
            held = f" ({empty} held no sample)" if empty else ""
            point["message"] = f"{ok} of {len(runs)} repeats{held}"


def save(path, doc: dict) -> None:
    """Writes the whole document to a temporary file, then renames it over `path`: a reader (or a
    Ctrl-C) never sees half a file. The points' statuses and the counts are recomputed from the runs."""
    doc["schema"] = SCHEMA
    tally(doc)
    doc["counts"] = {s: sum(r["status"] == s for r in doc.get("runs", [])) for s in STATUSES}
    doc["point_counts"] = {s: sum(p["status"] == s for p in doc.get("points", [])) for s in POINT_STATUSES}
    keys = [k for k in ORDER if k in doc] + [k for k in doc if k not in ORDER and k not in LAST]
    ordered = {k: doc[k] for k in keys + [k for k in LAST if k in doc]}
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(dumps(ordered) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError:  # e.g. a full disk: the last whole sweep.json stays, and no half one beside it
        tmp.unlink(missing_ok=True)
        raise


def dumps(doc: dict) -> str:
    """The document as indented JSON, but each point and each run on one line: a rewrite of the default
    sweep's 3 520 runs takes 30 ms so, against 98 ms indented whole, and a run reads and diffs as a line."""
    def item(key, value):
        if key in ONE_LINE_EACH and value:
            lines = ",\n".join(f"    {json.dumps(entry, ensure_ascii=False)}" for entry in value)
            return f"  {json.dumps(key)}: [\n{lines}\n  ]"
        return f"  {json.dumps(key)}: " + json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  ")
    return "{\n" + ",\n".join(item(k, v) for k, v in doc.items()) + "\n}"


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def parse_tsv(text: str) -> dict[str, str]:
    """Key/value pairs of `key<TAB>value` lines (sweepkit/hostfacts.py's); a later key wins."""
    pairs = {}
    for line in text.splitlines():
        key, _, value = line.partition("\t")
        if key:
            pairs[key] = value
    return pairs


def host_facts(pairs: dict[str, str]) -> dict:
    """Machine facts from sweepkit/hostfacts.py, with the binaries' versions gathered into one object."""
    facts, versions = {}, {}
    for key, value in pairs.items():
        if key.startswith("version:"):
            versions[key.split(":", 1)[1]] = value
        elif key in {"cpus_online", "cpus_usable"}:
            facts[key] = int(value) if value.isdigit() else None
        else:
            facts[key] = value or None
    if versions:
        facts["binaries"] = versions
    return facts


def hosts(roles: dict[str, dict[str, str]]) -> dict:
    """Host name → facts for each role's hostfacts.py pairs; two namespaces of one machine share a host
    name, so the second gets its role in brackets."""
    found = {}
    for role, pairs in roles.items():
        facts = host_facts(pairs) | {"role": role}
        name = facts.get("host") or role
        if name in found:
            name = f"{name} ({role})"
        found[name] = facts
    return found


def ping_outcome(exit_code: int, limit_s: str, stem: Path) -> tuple[str, str | None]:
    """ok or failed, and why, from a runtime ping's exit status and the logs it wrote. A failed
    ping's empty log files (killed before it wrote them) are removed; what it did write stays."""
    logs = [stem.with_name(f"{stem.name}.json"), stem.with_name(f"{stem.name}.csv")]
    if exit_code in TIMED_OUT:
        status, message = "failed", f"ping timed out after {limit_s} s"
    elif exit_code != 0:
        status, message = "failed", f"ping exited with status {exit_code}"
    elif not all(log.is_file() and log.stat().st_size > 0 for log in logs):
        status, message = "failed", f"ping wrote no {stem}.json/.csv"
    else:
        return "ok", None
    for log in logs:
        if log.is_file() and log.stat().st_size == 0:
            log.unlink()
    return status, message


def unavailable(stderr_files) -> str | None:
    """The line saying io_uring is unavailable (from that phrase on), from the first stderr file
    that has one; None when none does."""
    for path in map(Path, stderr_files):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        found = UNAVAILABLE.search(text)
        if found:
            return found[0].strip()
    return None


def skip_unavailable(status: str, message: str | None, stderr_files, stem: Path) -> tuple[str, str | None]:
    """A failed run whose ping or pong said io_uring is unavailable is skipped, with that line; the
    logs of such a ping, which measured nothing, are removed. Any other outcome stays."""
    reason = unavailable(stderr_files) if status == "failed" else None
    if reason is None:
        return status, message
    for log in (stem.with_name(f"{stem.name}.json"), stem.with_name(f"{stem.name}.csv")):
        log.unlink(missing_ok=True)
    return "skipped", reason


def unfinished(status: str, stderr_files) -> str | None:
    """Why a failed run is the point's own finding: its ping's watchdog ended it, the runtime never having run the
    measurement to its end; None for any other outcome."""
    if status != "failed":
        return None
    for path in map(Path, stderr_files):
        try:
            found = UNFINISHED.search(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
        if found:
            return (f"unfinished: the runtime never ran the measurement to its end within the ping's {found[1]} s "
                    "(its watchdog ended it)")
    return None


def micro_outcome(exit_code: int, limit_s: str, stem: Path) -> tuple[str, str | None]:
    """ok, failed or skipped, and why, from a micro benchmark binary's exit status and its log: a log
    that says `not_run` (std above its thread cap) is a skipped run, with the binary's reason. An empty
    log (killed before it wrote it) is removed; what it did write stays."""
    log = stem.with_name(f"{stem.name}.json")
    status, message = "ok", None
    if exit_code in TIMED_OUT:
        status, message = "failed", f"timed out after {limit_s} s"
    elif exit_code != 0:
        status, message = "failed", f"exited with status {exit_code}"
    elif not (log.is_file() and log.stat().st_size > 0):
        status, message = "failed", f"wrote no {stem}.json"
    else:
        try:
            reason = load(log).get("not_run")
        except (OSError, ValueError, AttributeError):
            return "failed", f"wrote an unreadable {stem}.json"
        if reason:
            return "skipped", f"not run: {reason}"
    if log.is_file() and log.stat().st_size == 0:
        log.unlink()
    return status, message


def settle(run: dict, status: str, message: str | None, wall_s: float, figures: dict | None = None,
           starved: int | None = None) -> None:
    """Records a run's end: its status, why (unless ok), its wall time, its figures by name (its mode's:
    p50 RTT and achieved rate; throughput: p50 msg/s and Gb/s; micro: the median ns per operation and
    operations per second), and for an RTT run how many of its connections starved."""
    run["status"] = status
    run["wall_s"] = round(wall_s, 2) if math.isfinite(wall_s) else None
    run.update(figures or {})
    if "starved" in run:
        run["starved"] = starved
    run["message"] = message
