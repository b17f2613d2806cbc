"""Why a run whose binary ended well holds no sample: what its log's counts and both ends' counters say."""

# A window with no round trip is no measurement, but it is not a failure of the suite either: a runtime whose
# decoys hold its worker for the whole window, or a machine that gave the ping no CPU, both leave one. The counters
# tell them apart, so the reason says which they show (docs/reading.md, "A run that held no sample").

# From this share of its window on a CPU, an end was busy: its own work held it. Below it, an end was waiting (for a
# reply that did not come) or not run at all, which its counters cannot tell apart.
BUSY = 0.25


def count(log: dict, end: str, name: str) -> int | None:
    """One end's counter over the window (the log's `counters`), None when it was not counted."""
    value = (((log.get("counters") or {}).get(end) or {}).get(name) or {}).get("value")
    return value if isinstance(value, int) else None


def window_ms(log: dict) -> float | None:
    window = ((log.get("counters") or {}).get("ping") or {}).get("window_s") or log.get("duration_s")
    return 1000 * window if isinstance(window, (int, float)) and window > 0 else None


def cpu(log: dict, end: str) -> str | None:
    """`ping 137 ms of CPU in its 204 ms window (1 564 involuntary, 0 voluntary switches)`, as far as counted."""
    cpu_ns, window = count(log, end, "cpu_ns"), window_ms(log)
    if cpu_ns is None:
        return None
    said = f"{end} {cpu_ns / 1e6:.0f} ms of CPU" + (f" in its {window:.0f} ms window" if window else "")
    switches = [f"{v} {kind}" for kind in ("involuntary", "voluntary")
                if (v := count(log, end, f"{kind}_switches")) is not None]
    return said + (f" ({', '.join(switches)} switches)" if switches else "")


def busy(log: dict, end: str) -> bool | None:
    """Whether the end was on a CPU for BUSY of the window or more; None when not counted."""
    cpu_ns, window = count(log, end, "cpu_ns"), window_ms(log)
    return None if cpu_ns is None or window is None else cpu_ns / 1e6 >= BUSY * window


def cause(log: dict, sent: int | None) -> str:
    """What the counters point at: the ping's runtime, the pong, or neither end."""
    ping, pong = busy(log, "ping"), busy(log, "pong")
    if ping:
        decoys = f" (its {log['tasks']} decoys)" if log.get("tasks") else ""
        return (f"the ping was on a CPU and {'sent nothing' if not sent else 'got no reply'}: its runtime ran other "
                f"work{decoys} than its connections")
    if pong:
        return "the ping waited while the pong was on a CPU: the pong held the reply"
    if ping is None:
        return "no counters to tell why"
    return "neither end was busy: a reply was waited for and did not come, or the machine ran neither end"


def why(log: dict, samples: str) -> str:
    """The progress line's and sweep.json's reason: `no round trip in its window; sent 0, received 0; ping 137 ms …`."""
    sent, received = log.get("sent"), log.get("received")
    figures = [f"sent {sent}, received {received}" if sent is not None else "", cpu(log, "ping"), cpu(log, "pong")]
    return f"{samples}; " + "; ".join(filter(None, figures)) + f": {cause(log, sent)}"
