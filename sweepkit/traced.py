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

from . import commands, extra_runs, procs
from .pongs import LocalPongs


def run_all(sweep, tracing) -> None:
    """One traced run of each point of the plan that can be traced and was not given up, in rounds, each said in one
    line; `tracing`: the module that records (sweepkit.tracing, or a test's own)."""
    knob = f"TRACE={sweep.spec.trace}"
    if not isinstance(sweep.pongs, LocalPongs):
        print(f"{knob}: no traced runs: both ends must run on this host (the pong runs elsewhere)", flush=True)
        return
    why = tracing.unavailable()
    if why is not None:
        print(f"{knob}: no traced runs: {why}", flush=True)
        return
    points, given_up = extra_runs.points(sweep, lambda p: p.mode.traceable(p))
    extra_runs.left_out(knob, given_up)
    (sweep.folder / traces.FOLDER).mkdir(exist_ok=True)
    print(f"{knob}: {sweep.spec.trace} traced run(s) of each of {len(points)} points, in rounds, kept apart in "
          f"{sweep.folder / traces.FOLDER}", flush=True)
    sweep.doc["traces"] = []
    for run in extra_runs.order("traced", points, sweep.spec.trace, sweep.spec):
        sweep.doc["traces"].append(trace_one(sweep, run.point, run.round, tracing))
    sweep.save()


def trace_one(sweep, point, round_: int, tracing) -> dict:
    """A fresh pong and ping of `point` with both recorded, in traced round `round_`: its entry in sweep.json's
    `traces`."""
    entry = {"point": point.stem, "round": round_, "file": f"{traces.FOLDER}/{traces.name(point.stem, round_)}",
             "status": "failed", "message": None}
    stem = sweep.tmp / f"traced-{point.stem}"

    def measure(target: str) -> dict:
        pong_pid = sweep.pongs.pid()
        argv = commands.ping(sweep.spec, point, target, stem, sweep.ends.prefix["ping"])
        with tracing.Capture([pong_pid, os.getpid()]) as capture:  # the ping, our child, is traced from its start
            started: dict = {}
            code = procs.run(argv, sweep.tmp / "ping.out", sweep.tmp / "ping.err", point.mode.limit_s(sweep.spec, point),
                             at=(0.0, lambda pid: started.update(pid=pid)))
            header = {"point": point.stem, "round": round_, "framework": point.framework,
                      "ping_pid": started.get("pid"), "pong_pid": pong_pid, "machine": platform.machine(),
                      "exit_code": code, "rtt_ns": _rtts(stem)}
            lost = capture.stop(sweep.folder / entry["file"], traces.HEADER + json.dumps(header))
        done = {"status": "ok" if code == 0 and lost == 0 else "failed", "lost_events": lost,
                "message": None if code == 0 else f"the ping exited {code}"}
        if lost:
            done["message"] = f"{lost} events lost to a full buffer: the split of its round trips is not to be trusted"
        return done

    entry = extra_runs.one(sweep, point, stem, entry, measure, "not traced")
    extra_runs.said("traced", entry)
    return entry


def _rtts(stem: Path) -> dict | None:
    """The traced run's own RTT summary (`rtt_ns` of its log): what the phases are held against."""
    try:
        return json.loads(extra_runs.logs(stem)[0].read_text()).get("rtt_ns")
    except (OSError, ValueError):
        return None
