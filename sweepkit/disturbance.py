"""What else happened on the machine during each run: steal, other processes' CPU time, each end's context
switches and migrations, and which runs stand out."""

# The sweep reads the aggregate `cpu` line of /proc/stat and its own and its reaped children's CPU
# times (os.times) as a run starts and after its pong is stopped. Over that window the machine's
# busy CPU time less what the sweep and the run's processes used (ping, pong, taskset, nice) is
# what something else did on the host; steal is what the hypervisor gave to other guests. Busy
# time here is user, nice and system only: interrupts and softirqs are left out, since loopback's
# packet processing runs there and is the run's own work (at 10 k msg/s it was 0.2–0.5 CPUs
# counted as "other" before). /proc/stat counts in ticks (10 ms), so short runs read coarsely. A run with far more of
# either than its round's other runs is flagged `disturbed` in sweep.json and named at the end,
# never dropped: the reader decides.
#
# Each local end's threads are read too (/proc/PID/task/*: context switches, and CPU migrations where
# the kernel keeps scheduler statistics), late in the measured window (PROBE_AT), while both ends
# still run: so the counts cover the process from its start to there, and miss threads that
# already ended. An involuntary switch is the end's thread preempted: by a decoy, a kernel thread
# or another process on its CPU. A pinned end should not migrate.

import os
import statistics
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
# /proc/stat's cpu line: user nice system idle iowait irq softirq steal guest guest_nice (jiffies).
BUSY = (0, 1, 2)  # user, nice, system
STEAL = 7
# A run is disturbed when its share of other CPU time (or steal) passes both its round's median
# times FACTOR and the median plus MARGIN CPUs: a busy machine raises every run's share alike, and
# on a quiet one this measure still reads up to about 0.2 CPUs in a run at 10 k msg/s (seen here).
FACTOR = 3.0
MARGIN = 0.25
# The same for the ends' involuntary context switches and migrations, summed over ping and pong: a
# quiet default sweep here read 11-78 preemptions (median 40) back-to-back and 2-91 (median 4) at
# 1 k msg/s, and 0-2 migrations: a pinned end's thread moves once, onto its CPU as taskset starts it.
PREEMPTED_MARGIN = 200
MIGRATIONS_MARGIN = 10
# The ends are read this far through the measured window: late, and before a paced ping ends (it
# may stop one interval before the planned end, once its last reply is in).
PROBE_AT = 0.8


def cpu_seconds(stat_line: str) -> tuple[float, float]:
    """(busy, steal) CPU seconds, summed over the CPUs, from /proc/stat's cpu line after its label."""
    fields = [int(x) for x in stat_line.split()]
    busy = sum(fields[i] for i in BUSY if i < len(fields))
    steal = fields[STEAL] if len(fields) > STEAL else 0
    return busy / CLK_TCK, steal / CLK_TCK


def own_seconds() -> float:
    """The sweep's and its reaped children's user + system CPU seconds."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def snapshot() -> tuple[str, float]:
    """/proc/stat's cpu line (after its label) and own_seconds, now."""
    return Path("/proc/stat").read_text().split("\n", 1)[0].split(None, 1)[1], own_seconds()


def measure(stat_before: str, stat_after: str, own_before: float, own_after: float, wall_s: float) -> dict:
    """A run's disturbance: steal and other processes' CPU seconds, and as CPUs (seconds per second)."""
    (busy0, steal0), (busy1, steal1) = cpu_seconds(stat_before), cpu_seconds(stat_after)
    own = own_after - own_before
    other = max(0.0, busy1 - busy0 - own)
    steal = max(0.0, steal1 - steal0)
    wall = max(wall_s, 1e-3)
    return {"steal_s": round(steal, 3), "other_cpu_s": round(other, 3), "own_cpu_s": round(own, 3),
            "steal_cpus": round(steal / wall, 3), "other_cpus": round(other / wall, 3)}


def probe_s(warmup_s: float, duration_s: float) -> float:
    """Seconds from the start of a run's ping to the moment its ends are read."""
    return warmup_s + PROBE_AT * duration_s


def threads(pid: int) -> dict | None:
    """A live process's context switches (all, and the involuntary ones) and CPU migrations, summed over
    the threads it has now; `migrations` None where the kernel keeps no scheduler statistics; None when
    the process is gone."""
    switches = involuntary = migrations = 0
    has_migrations = False
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    for tid in tids:
        task = Path(f"/proc/{pid}/task/{tid}")
        try:
            status = task.joinpath("status").read_text()
        except OSError:  # the thread ended since the listing
            continue
        for line in status.splitlines():
            name, _, value = line.partition(":")
            if name in ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"):
                switches += int(value)
                involuntary += int(value) if name.startswith("non") else 0
        try:
            sched = task.joinpath("sched").read_text()
        except OSError:  # no CONFIG_SCHED_DEBUG, or the thread ended
            continue
        for line in sched.splitlines():
            if line.startswith("se.nr_migrations"):
                migrations += int(line.rsplit(":", 1)[1])
                has_migrations = True
    return {"threads": len(tids), "switches": switches, "involuntary_switches": involuntary,
            "migrations": migrations if has_migrations else None}


def _ends(key: str):
    """The sum of `key` over the run's ends that were read, None when none was (remote pongs, ICMP's no pong)."""
    def total(d: dict):
        values = [end[key] for end in (d.get("ping"), d.get("pong")) if end and end.get(key) is not None]
        return sum(values) if values else None
    return total


# What stands out from a round: (the run's value from its disturbance, the margin above the round's
# median it must also pass, how it reads, the format of its numbers, whether it counts the run's own ends). An end's preemptions and
# migrations are also its own workload's: a ping with 1 000 CPU-bound decoy threads on its one CPU preempts
# itself thousands of times in every run, and from run to run by a factor of ten. So such a sign is held against
# its point's other runs too (their median): what the point's runs show is the point's, not a disturbance.
SIGNS = (
    (lambda d: d.get("other_cpus"), MARGIN, "other processes used {} CPUs during the run", ".2f", False),
    (lambda d: d.get("steal_cpus"), MARGIN, "steal used {} CPUs during the run", ".2f", False),
    (_ends("involuntary_switches"), PREEMPTED_MARGIN, "its ends were preempted {} times (involuntary context switches)",
     ".0f", True),
    (_ends("migrations"), MIGRATIONS_MARGIN, "its ends' threads moved CPU {} times", ".0f", True),
)


def _floors(runs: list[dict], value_of) -> dict[int, float]:
    """id(run) → the median value of its point's other runs (sweep.json runs[].point), for the runs whose point has
    another run with a value."""
    by_point: dict[str, list[tuple[int, float]]] = {}
    for r in runs:
        value = value_of(r["disturbance"]) if r.get("disturbance") and r.get("point") else None
        if value is not None:
            by_point.setdefault(r["point"], []).append((id(r), value))
    return {key: statistics.median(v for other, v in pairs if other != key) for pairs in by_point.values()
            if len(pairs) > 1 for key, _ in pairs}


def flag(runs: list[dict]) -> list[dict]:
    """Marks (`disturbed`: what stood out) and returns the runs whose other CPU time, steal, preemptions or
    migrations stand out from their round's (the ends' own signs: and from their point's other runs)."""
    flagged = []
    floors = {id(sign): _floors(runs, sign[0]) for sign in SIGNS if sign[-1]}
    for round_no in sorted({r["round"] for r in runs}):
        mine = [r for r in runs if r["round"] == round_no and r.get("disturbance")]
        for sign in SIGNS:
            value_of, margin, reads, spec, own = sign
            values = {id(r): value_of(r["disturbance"]) for r in mine}
            known = [v for v in values.values() if v is not None]
            if len(known) < 3:
                continue
            median = statistics.median(known)
            for r in mine:
                value, floor = values[id(r)], floors[id(sign)].get(id(r), 0.0) if own else 0.0
                base = max(median, floor)
                if value is not None and value > FACTOR * base and value > base + margin:
                    against = (f"its round's median {median:{spec}}" if base == median else
                               f"its point's other runs' median {floor:{spec}}")
                    r["disturbed"] = f"{reads.format(format(value, spec))}, {against}"
                    if r not in flagged:
                        flagged.append(r)
    return flagged
