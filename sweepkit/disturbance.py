"""What else happened on the machine during each run: the host's steal time and other processes' CPU time, and which runs stand out."""

# The sweep reads the aggregate `cpu` line of /proc/stat and its own and its reaped children's CPU
# times (os.times) as a run starts and after its pong is stopped. Over that window the machine's
# busy CPU time less what the sweep and the run's processes used (ping, pong, taskset, nice) is
# what something else did on the host; steal is what the hypervisor gave to other guests. Busy
# time here is user, nice and system only: interrupts and softirqs are left out, since loopback's
# packet processing runs there and is the run's own work (at 10 k msg/s it was 0.2–0.5 CPUs
# counted as "other" before). /proc/stat counts in ticks (10 ms), so short runs read coarsely. A run with far more of
# either than its round's other runs is flagged `disturbed` in sweep.json and named at the end,
# never dropped: the reader decides.

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


def flag(runs: list[dict]) -> list[dict]:
    """Marks (`disturbed`: what stood out) and returns the runs whose other CPU time or steal stands out
    from their round's."""
    flagged = []
    for round_no in sorted({r["round"] for r in runs}):
        mine = [r for r in runs if r["round"] == round_no and r.get("disturbance")]
        for key, what in (("other_cpus", "other processes"), ("steal_cpus", "steal")):
            if len(mine) < 3:
                continue
            median = statistics.median(r["disturbance"][key] for r in mine)
            for r in mine:
                value = r["disturbance"][key]
                if value > FACTOR * median and value > median + MARGIN:
                    r["disturbed"] = (f"{what} used {value:.2f} CPUs during the run, its round's median "
                                      f"{median:.2f}")
                    if r not in flagged:
                        flagged.append(r)
    return flagged
