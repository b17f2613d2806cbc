"""The knob checks' shared parts: a knob's words' shapes and bounds, the checks of every mode and of a network sweep.

They read the knob strings (a dict from sweepkit.knobs.read), note every problem and normalise what they
accept ("010" is 10); they run at the entry only (sweepkit.knobs.check, and each mode's own `check_*`).
"""

import os
import re

from suite import transports

from . import variants as variants_mod
from .dimensions import applying
from .selection import extra_args, pong_entries
from .spec import budget_s

MAX_UDP_SIZE = 65507  # the largest UDP payload over IPv4
MAX_TCP_SIZE = 64 << 20  # the largest payload the pings accept
MAX_UDP_THROUGHPUT_S = 400  # a UDP throughput run's counts must come back in one datagram
MAX_PORT = 65535
MAX_REPEATS = 1000
SEED_DIGITS = 20  # up to 2**64: a seed anyone can retype
ORDERS = ("blocks", "rounds")  # sweepkit.plan.runs; the first is the default (knobs.DEFAULTS)

DECIMAL = re.compile(r"([0-9]+([.][0-9]*)?|[.][0-9]+)")
UINT = re.compile(r"[0-9]+")
CPU_LIST = re.compile(r"([0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*)?")
NICENESS = re.compile(r"([-+]?)([0-9]{1,2})")


def seconds(knobs, name, problems, positive=True):
    """The knob as seconds, or None after noting the problem."""
    value = knobs[name]
    if DECIMAL.fullmatch(value) and (float(value) > 0 or not positive):
        return float(value)
    if name == "DURATION":
        problems.append(f"DURATION='{value}': expected seconds > 0, e.g. 10 or 0.5")
    elif name == "WARMUP":
        problems.append(f"WARMUP='{value}': expected seconds >= 0, e.g. 1")
    else:
        problems.append(f"{name}='{value}': expected seconds > 0")
    return None


def payload(text: str, least: int, most: int) -> int | None:
    """A byte count within bounds, or None; at most nine digits, as the pings take them."""
    if not UINT.fullmatch(text) or len(text) > 9:
        return None
    value = int(text)
    return value if least <= value <= most else None


def check_repeats(k: dict, problems: list[str]) -> None:
    """REPEATS, ORDER, and SEED: a random one (recorded like any knob) when none is given."""
    repeats = k["REPEATS"]
    if UINT.fullmatch(repeats) and len(repeats) <= 4 and 1 <= int(repeats) <= MAX_REPEATS:
        k["REPEATS"] = str(int(repeats))
    else:
        problems.append(f"REPEATS='{repeats}': expected a number of runs per point from 1 to {MAX_REPEATS} "
                        "(3 or more for an interval across runs)")
    if not k["SEED"]:
        k["SEED"] = str(int.from_bytes(os.urandom(4), "big"))
    elif UINT.fullmatch(k["SEED"]) and len(k["SEED"]) <= SEED_DIGITS:
        k["SEED"] = str(int(k["SEED"]))
    else:
        problems.append(f"SEED='{k['SEED']}': expected a whole number of up to {SEED_DIGITS} digits, e.g. 42")
    if k["ORDER"] not in ORDERS:
        problems.append(f"ORDER='{k['ORDER']}': expected blocks (each setting's frameworks back to back in a round, "
                        "the default) or rounds (each round shuffled whole)")


def check_every_mode(k: dict, problems: list[str]) -> None:
    """The knobs every mode shares: NICE, TUNE, DRY_RUN and OUT_DIR."""
    nice = NICENESS.fullmatch(k["NICE"])
    if nice:  # "-08" is -8, never octal
        k["NICE"] = str(int(nice[1] + nice[2]))
    if not (nice and -20 <= int(k["NICE"]) <= 19):
        problems.append(f"NICE='{k['NICE']}': expected a niceness from -20 to 19")
    if k["TUNE"] not in ("0", "1"):
        problems.append(f"TUNE='{k['TUNE']}': expected 1 (hold the CPUs out of deep idle states) or 0 (leave them)")
    if k["COUNTERS"] not in ("0", "1", "all"):
        problems.append(f"COUNTERS='{k['COUNTERS']}': expected 1 (each end's CPU time), all (and its system calls, "
                        "switches and wake-ups) or 0 (nothing)")
    if k["DRY_RUN"] not in ("0", "1"):
        problems.append(f"DRY_RUN='{k['DRY_RUN']}': expected 1 (print the plan only) or 0 (run it)")
    if not k["OUT_DIR"]:
        problems.append("OUT_DIR is empty")


def check_network(result, environ, context: str, mode) -> None:
    """MODE=rtt, throughput and wrk (`mode`, whose `check` calls this; an unknown MODE is checked as rtt, after its
    problem): every knob."""
    k, problems = result.knobs, result.errors
    result.variants = variants_mod.parse(k["VARIANTS"], problems)
    if k["MODE"] != mode.kind:  # a MODE no mode has, checked with rtt's (knobs.check: modes.named)
        problems.append(f"MODE='{k['MODE']}': expected rtt (round-trip times), throughput (msg/s and Gb/s), "
                        "micro (in-process benchmarks) or wrk (the HTTP figures cross-checked with wrk)")
    check_repeats(k, problems)
    if k["BUDGET"]:
        if budget_s(k["BUDGET"]) is None:
            problems.append(f"BUDGET='{k['BUDGET']}': expected a wall time like 900, 900s, 15m or 1.5h")
        if environ.get("REPEATS"):
            problems.append("REPEATS and BUDGET both given: BUDGET chooses the number of rounds; drop one")
    duration = seconds(k, "DURATION", problems)
    warmup = seconds(k, "WARMUP", problems, positive=False)
    mode.check_measure(k, problems)
    for dimension in applying(k["MODE"]):
        dimension.check(k, problems)
    mode.check_load(k, problems)
    protocols = k["PROTOCOLS"].split()
    check_protocols(k, protocols, problems)
    if "udp" in protocols:
        mode.check_udp(k, warmup, duration, problems)
    check_setup(k, problems, mode, len(result.variants))
    if problems:
        return
    mode.warn(result)
    if result.usage is None and context == "serve" and len(result.selection) > 1:
        for e in result.selection:
            if extra_args(e, "pong"):  # e.g. --busy-poll, which may spin while the others are measured
                result.warnings.append(f"-{e.flag}: its pong ({' '.join(extra_args(e, 'pong'))}) stays up beside "
                                       f"the others for the whole sweep; to be sure it takes no CPU time from "
                                       f"them, serve it on its own (--serve -{e.flag})")


def check_protocols(k: dict, protocols: list[str], problems: list[str]) -> None:
    """PROTOCOLS against suite/transports.py and the MODE; an HTTP/1.1 connection has one request in flight."""
    swept = transports.swept_in(k["MODE"]) or transports.swept_in("rtt")
    if not protocols:
        problems.append(f'PROTOCOLS is empty: expected transports, e.g. "{transports.DEFAULT}" '
                        f"(of {', '.join(swept)})")
    for x in protocols:
        if x not in transports.SWEPT:
            problems.append(f"PROTOCOLS: '{x}' is not {transports.listing(swept)}")
        elif x not in swept:
            rest = " ".join(p for p in dict.fromkeys(protocols) if p in swept) or transports.DEFAULT
            problems.append(f"PROTOCOLS: {x} is swept with MODE={'/'.join(transports.by_name(x).modes)} only, not "
                            f'MODE={k["MODE"]}; drop it (PROTOCOLS="{rest}") or sweep it with MODE=rtt')
    if "open" not in k["LOAD"].split():
        return
    for x in dict.fromkeys(protocols):
        cap = transports.by_name(x).window if transports.by_name(x) else None
        window = _option(k["PING_EXTRA"].split(), "--window")
        if cap is not None and window is not None and not (window.isdigit() and int(window) <= cap):
            problems.append(f"PING_EXTRA: --window {window} with {x} in open load: {x} has at most {cap} "
                            f"request{'s' if cap != 1 else ''} in flight per connection; drop --window, or {x} "
                            "from PROTOCOLS")


def _option(words: list[str], name: str) -> str | None:
    """The value of `name` among a command line's words (`--name V` or `--name=V`); None: not given."""
    for i, word in enumerate(words):
        if word == name:
            return words[i + 1] if i + 1 < len(words) else ""
        if word.startswith(f"{name}="):
            return word.split("=", 1)[1]
    return None


def check_setup(k: dict, problems: list[str], mode, variants: int = 0) -> None:
    """Pinning, priority, folders, time limits, extra arguments and (across hosts) ports: one per
    pong, then one per variant."""
    if not CPU_LIST.fullmatch(k["PONG_CPUS"]):
        problems.append(f"PONG_CPUS='{k['PONG_CPUS']}': expected a CPU list like 0 or 2-3")
    if not CPU_LIST.fullmatch(k["PING_CPUS"]):
        problems.append(f"PING_CPUS='{k['PING_CPUS']}': expected a CPU list like 1 or 4,6")
    check_every_mode(k, problems)
    seconds(k, "READY_TIMEOUT", problems)
    seconds(k, "PING_GRACE", problems)
    mode.check_extra(k, problems)
    # The plan gives each end its dimensions' options (sweepkit/dimensions.py), e.g. --connections.
    for extra, end in (("PING_EXTRA", "ping"), ("PONG_EXTRA", "pong")):
        knob_of = {d.option(end): d.knob for d in applying(k["MODE"]) if d.option(end)}
        for x in k[extra].split():
            if x.split("=")[0] in knob_of:
                problems.append(f"{extra}: {x.split('=')[0]} is set by the sweep for each point; "
                                f"use the {knob_of[x.split('=')[0]]} knob")
    if "BASE_PORT" in k:
        # One port per pong from BASE_PORT on, a block of them per transport of one port space (suite/transports.py).
        protocols = [p for p in k["PROTOCOLS"].split() if transports.by_name(p)]
        blocks = 1 + max((transports.port_block(p, protocols) for p in protocols), default=0)
        last = MAX_PORT - (blocks * (len(pong_entries()) + variants) - 1)
        port = k["BASE_PORT"]
        if not (UINT.fullmatch(port) and len(port) <= 5 and 1 <= int(port) <= last):
            problems.append(f"BASE_PORT='{port}': expected a port from 1 to {last}")
        else:
            k["BASE_PORT"] = str(int(port))
