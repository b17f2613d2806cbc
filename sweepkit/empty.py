"""Why a run whose binary ended well holds no sample: what its log's counts and both ends' counters say."""

# A window with no round trip is no measurement, and it is not the suite's failure either: a closed loop sends each
# message after the echo of the last, so a warm-up echo held past the window leaves it with nothing, and a ping
# that ends well. The counters say what they can of why (docs/reading.md, "A run that held no sample").

# From this share of its window on a CPU, an end was busy. Below it, it was idle or waiting for a CPU: its counters
# cannot tell those apart (a spinning decoy keeps a ping busy whatever its connections do).
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
    """What the counts and counters show: what the ping waited for, and whether the pong ran meanwhile."""
    if sent:
        lead = f"none of the {sent} messages sent in the window was answered in it"
    else:
        lead = ("nothing was sent in the window: each connection still awaited the echo of a warm-up message (a closed "
                "loop sends after each echo), or never ran")
    pong, ping = busy(log, "pong"), busy(log, "ping")
    if pong is None:
        return f"{lead}; the pong was not counted"
    if pong:
        return f"{lead}; the pong was on a CPU: it held the echo"
    either = ", nor the ping" if ping is False else ""
    return f"{lead}; the pong hardly ran{either}: idle, or waiting for a CPU others held (counters cannot tell which)"


def why(log: dict, samples: str) -> str:
    """The progress line's and sweep.json's reason: `no round trip in its window; sent 0, received 0; ping 137 ms …`."""
    sent, received = log.get("sent"), log.get("received")
    figures = [f"sent {sent}, received {received}" if sent is not None else "", cpu(log, "ping"), cpu(log, "pong")]
    return f"{samples}; " + "; ".join(filter(None, figures)) + f": {cause(log, sent)}"
