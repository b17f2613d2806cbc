"""TRACE=1: after the rounds, one more run of each RTT point with both ends' kernel events recorded (tracing.py),
kept in the sweep folder's traces/, outside every estimate."""

# A traced run is slower than a measured one (each event costs the kernel a little; docs/sweeps.md, "Traced
# runs", gives the figure), so it never enters the RTT estimates: its ping writes its log to the sweep's
# scratch folder, and only the events and a one-line header (the point, both PIDs, the run's own RTTs) are
# kept, as traces/STEM.trace (suite/traces.py). `parse.py phases` splits each round trip into its parts. Only a closed loop on
# one connection has one message in flight, a chain of events the split can follow; and both ends must run
# here.

import json
import os
import platform
from pathlib import Path

from suite import traces

from . import commands, plan, procs
from .pongs import LocalPongs



def run_all(sweep, tracing) -> None:
    """One traced run of each point of the plan that can be traced, in the plan's order, each said in one line;
    `tracing`: the module that records (sweepkit.tracing, or a test's own)."""
    knob = f"TRACE={sweep.spec.trace}"
    if not isinstance(sweep.pongs, LocalPongs):
        print(f"{knob}: no traced runs: both ends must run on this host (the pong runs elsewhere)", flush=True)
        return
    why = tracing.unavailable()
    if why is not None:
        print(f"{knob}: no traced runs: {why}", flush=True)
        return
    points = list({run.point.stem: run.point for run in sweep.runs if run.point.mode.traceable(run.point)}.values())
    (sweep.folder / traces.FOLDER).mkdir(exist_ok=True)
    # In rounds, ordered as the measured ones (each setting's frameworks back to back under ORDER=blocks), so
    # that a runtime's traced run and std's of one round pair up as their measured runs do.
    order = plan.runs(points, sweep.spec.trace, sweep.spec.seed + 1, sweep.spec.order)
    print(f"{knob}: {sweep.spec.trace} traced run(s) of each of {len(points)} points, in rounds, kept apart in "
          f"{sweep.folder / traces.FOLDER}", flush=True)
    sweep.doc["traces"] = []
    for run in order:
        sweep.doc["traces"].append(trace_one(sweep, run.point, run.round, tracing))
    sweep.save()


def trace_one(sweep, point, round_: int, tracing) -> dict:
    """A fresh pong and ping of `point` with both recorded, in traced round `round_`: its entry in sweep.json's
    `traces`."""
    entry = {"point": point.stem, "round": round_, "file": f"{traces.FOLDER}/{traces.name(point.stem, round_)}",
             "status": "failed", "message": None}
    pong_err, ping_err = sweep.tmp / "pong.err", sweep.tmp / "ping.err"
    stem = sweep.tmp / f"traced-{point.stem}"
    try:
        target, why = sweep.pongs.start(point.binary, point.transport, point.end_args("pong"), point.port, pong_err,
                                        point.bin_dir)
        if target is None:
            entry["message"] = f"pong not ready: {why}"
            return entry
        pong_pid = sweep.pongs.pid()
        argv = commands.ping(sweep.spec, point, target, stem, sweep.ends.prefix["ping"])
        with tracing.Capture([pong_pid, os.getpid()]) as capture:  # the ping, our child, is traced from its start
            started: dict = {}
            code = procs.run(argv, sweep.tmp / "ping.out", ping_err, point.mode.limit_s(sweep.spec, point),
                             at=(0.0, lambda pid: started.update(pid=pid)))
            header = {"point": point.stem, "round": round_, "framework": point.framework, "ping_pid": started.get("pid"), "pong_pid": pong_pid,
                      "machine": platform.machine(), "exit_code": code, "rtt_ns": _rtts(stem)}
            lost = capture.stop(sweep.folder / entry["file"], traces.HEADER + json.dumps(header))
    except OSError as error:
        entry["message"] = f"not traced: {error}"
        return entry
    finally:
        sweep.pongs.stop()
        for path in _logs(stem):
            path.unlink(missing_ok=True)
    entry |= {"status": "ok" if code == 0 and lost == 0 else "failed", "lost_events": lost,
              "message": None if code == 0 else f"the ping exited {code}"}
    if lost:
        entry["message"] = f"{lost} events lost to a full buffer: the split of its round trips is not to be trusted"
    print(f"  traced {point.stem} (round {round_}): {entry['status']}" + (f" ({entry['message']})" if entry["message"] else ""),
          flush=True)
    return entry


def _logs(stem: Path) -> tuple[Path, Path]:
    """STEM.json and STEM.csv (a stem such as std-tcp-64B-0.001s-0t has dots of its own: no with_suffix)."""
    return stem.parent / f"{stem.name}.json", stem.parent / f"{stem.name}.csv"


def _rtts(stem: Path) -> dict | None:
    """The traced run's own RTT summary (`rtt_ns` of its log): what the phases are held against."""
    try:
        return json.loads(_logs(stem)[0].read_text()).get("rtt_ns")
    except (OSError, ValueError):
        return None
