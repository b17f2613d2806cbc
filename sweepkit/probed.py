"""PROBED=N: after the rounds, N more runs of each RTT point that also count system calls and wake-ups, kept in
sweep.json's `probed`, outside every estimate."""

# A measured run counts what the kernel keeps anyway (COUNTERS=1: CPU time, switches, migrations, faults), which
# costs nothing. System calls and wake-ups need the kernel's tracepoints (--all-counters), whose probes run in
# every call and wake-up of both ends and raise std's back-to-back p50 by a fifth (docs/sweeps.md, "Counters"):
# so they are counted in runs of their own, whose RTTs never enter an estimate. Their ping writes its logs to the
# sweep's scratch folder; only the counters, the messages they are divided by and the run's status are kept.
# `parse.py costs` takes a point's system calls and wake-ups from them where its measured runs did not count
# those, paired with std's by probed round as the measured runs are by round.

import contextlib
import json
import re
import subprocess
from pathlib import Path

from . import commands, extra_runs, procs

HOLDER = "hold-kernel-events"  # crates/rtt-counters/src/bin: keeps the counted tracepoints registered
HOLDER_READY_S = 10
# What a probed run costs beyond a measured run of its point: counting every counter, and without the holder the
# wait for the kernel to unregister the tracepoints (kernel_events_held), with a margin (docs/sweeps.md, "Counters").
EXTRA_S, UNHELD_EXTRA_S = 0.1, 0.7


def reserve_s(costs, points, spec) -> float:
    """What BUDGET keeps for the probed runs after the rounds: PROBED runs of each point they probe, each what its
    measured runs cost (sweepkit.costs) and EXTRA_S more; a point given up (it costs nothing now) gets none."""
    extra = EXTRA_S if (spec.bin_dir / HOLDER).exists() else UNHELD_EXTRA_S
    probing = [costs.of(p.stem) for p in points if p.mode.probeable(p) and costs.of(p.stem) > 0]
    return spec.probed_rounds * sum(cost + extra for cost in probing)


def run_all(sweep) -> None:
    """N probed runs of each RTT point not given up, in rounds ordered as the measured ones, each said in one line."""
    spec = sweep.spec
    knob = f"PROBED={spec.probed}"
    if not spec.probed_rounds:
        why = "every run counted them already" if spec.counters == "all" else "COUNTERS=0 counts nothing"
        print(f"{knob}: no probed runs: {why}", flush=True)
        return
    points, given_up = extra_runs.points(sweep, lambda p: p.mode.probeable(p))
    extra_runs.left_out(knob, given_up)
    if not points:
        return
    print(f"{knob}: {spec.probed} run(s) of each of {len(points)} points that also count system calls and wake-ups, "
          "outside the estimates (sweep.json's probed)", flush=True)
    probing = spec.with_knobs(COUNTERS="all")
    sweep.doc["probed"] = []
    with kernel_events_held(spec.bin_dir):
        for run in extra_runs.order("probed", points, spec.probed, spec):
            sweep.doc["probed"].append(probe_one(sweep, probing, run.point, run.round))
    sweep.save()


@contextlib.contextmanager
def kernel_events_held(bin_dir: Path):
    """Keeps the tracepoints the probed runs count registered while the block runs (BIN_DIR's hold-kernel-events,
    stopped after it). Without, each run's counters are the last to close and wait for the kernel to unregister
    them: 0.6 s a run here, against 0.2 s for the run itself. A missing or failing holder only costs that time."""
    holder = None
    if (bin_dir / HOLDER).exists():
        holder = procs.Child([bin_dir / HOLDER], stdout=subprocess.PIPE, stdin=subprocess.PIPE)
        if holder.await_line(re.compile("held"), HOLDER_READY_S)[0] != 0:
            holder.stop()
            holder = None
    if holder is None:
        print(f"  ({HOLDER} is not running from {bin_dir}: each probed run waits for the kernel to unregister its "
              "tracepoints, 0.6 s a run here; `make` builds it)", flush=True)
    try:
        yield
    finally:
        if holder is not None:
            holder.stop()


def probe_one(sweep, probing, point, round_: int) -> dict:
    """A fresh pong and ping of `point` counting every counter, in probed round `round_`: its entry in sweep.json's
    `probed`."""
    stem = sweep.tmp / f"probed-{point.stem}"

    def measure(target: str) -> dict:
        argv = commands.ping(probing, point, target, stem, sweep.ends.prefix["ping"], sweep.pongs.pid())
        code = procs.run(argv, sweep.tmp / "ping.out", sweep.tmp / "ping.err", point.mode.limit_s(probing, point))
        data = json.loads(extra_runs.logs(stem)[0].read_text()) if code == 0 else {}
        return {"status": "ok" if code == 0 else "failed", "message": None if code == 0 else f"the ping exited {code}",
                "sent": data.get("sent"), "counters": data.get("counters")}

    entry = {"point": point.stem, "round": round_, "status": "failed", "message": None, "sent": None, "counters": None}
    entry = extra_runs.one(sweep, point, stem, entry, measure, "not counted", (OSError, ValueError))
    extra_runs.said("probed", entry)
    return entry
