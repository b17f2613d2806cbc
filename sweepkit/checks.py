"""The knob checks' shared parts: the shapes and bounds of a knob's words, and the checks every mode makes.

They read the knob strings (a dict from sweepkit.knobs.read), note every problem and normalise what they
accept ("010" is 10); they run at the entry only (sweepkit.knobs.check, and each mode's own `check_*`).
"""

import os
import re

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
    if k["DRY_RUN"] not in ("0", "1"):
        problems.append(f"DRY_RUN='{k['DRY_RUN']}': expected 1 (print the plan only) or 0 (run it)")
    if not k["OUT_DIR"]:
        problems.append("OUT_DIR is empty")
