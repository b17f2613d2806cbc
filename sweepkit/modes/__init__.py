"""One mode per kind of point (rtt, its reference icmp, throughput, micro, wrk): the only place the sweep branches on the kind.

Each mode (sweepkit/modes/base.py's Mode) says, for its kind, how a point is measured and judged, each end's
options, its time limit, its run's fields in sweep.json, its progress and table lines. This registry sits above
the modes, and they above what they use: the entry hands the spec its MODE's mode (`of`) and each point carries
its own, so the kit below asks them without importing this; the steps above ask it (`of`, `of_log`).
"""

from . import icmp, micro, rtt, throughput, wrk
from .base import Mode

RTT = rtt.Rtt(references={"icmp": icmp.MODE})  # the ICMP baseline's points are the icmp mode's
KINDS: dict[str, Mode] = {m.kind: m for m in (RTT, icmp.MODE, throughput.MODE, micro.MODE, wrk.MODE, wrk.PING)}
SWEEPS = ("rtt", "throughput", "micro", "wrk")  # the MODEs of a sweep
LOG_KINDS = SWEEPS  # a log's "kind" (an ICMP log is an rtt one), the closing tables' order


def of(kind: str) -> Mode:
    """The mode of a kind of point, or of a sweep's MODE."""
    return KINDS[kind]


def of_log(log: dict) -> Mode:
    """The mode whose table and figures a log takes: its "kind", rtt when it names none."""
    return KINDS[log["kind"]] if log.get("kind") in LOG_KINDS else RTT


def named(mode: str) -> Mode:
    """The mode an unchecked MODE knob names (--check reads the knobs without checking them); rtt's when it names
    no MODE of a sweep, whose checks then refuse it (sweepkit.checks.check_network)."""
    return KINDS[mode] if mode in SWEEPS else RTT
