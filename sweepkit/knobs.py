"""The sweep's flags and knobs: their defaults, every check made before anything starts, and the warnings."""

# Knobs come from the environment, as strings; a check never stops at the first problem, so one run
# names them all. Nothing here starts a process or writes a file.

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from suite import runtimes

from . import micro, variants as variants_mod
from .dimensions import DIMENSIONS, applying
from .selection import extra_args, flag_list, has_pong, pong_entries, select

SUITE_DIR = Path(__file__).resolve().parents[1]
MAX_UDP_SIZE = 65507  # the largest UDP payload over IPv4
MAX_TCP_SIZE = 64 << 20  # the largest payload the pings accept
MAX_UDP_THROUGHPUT_S = 400  # a UDP throughput run's counts must come back in one datagram
MAX_PORT = 65535
MAX_REPEATS = 1000

# Every knob of both scripts, in sweep.json's order, with its default.
DEFAULTS = {
    "MODE": "rtt",  # rtt: round-trip times per interval; throughput: msg/s and Gb/s per size
    # Many short runs: the spread is between processes, not within a run (docs/sweeps.md, "Choosing the
    # defaults"); 14 rounds of the default -asStP fit in 15 min here.
    "REPEATS": "14",  # fresh pong + ping per point and round; the t interval needs R >= 2
    "BUDGET": "",  # a wall time, e.g. 15m: as many rounds as fit (2 at least), fixed before the first run
    "SEED": "",  # the order of each round; empty: a random one, recorded
    # blocks: each round runs the frameworks of one point back to back, so that a Δ vs std pairs runs
    # seconds apart, not a round apart (docs/sweeps.md, "Repeats and rounds"); rounds: each round shuffled whole.
    "ORDER": "blocks",
    "DURATION": "1",
    "WARMUP": "0.25",
    "SIZE": "64",
    "INTERVALS": "0.1 0.01 0.001 0.0001 0",
    "SIZES": "8 64 1024 16384 65536 1048576",
    **{d.knob: d.default for d in DIMENSIONS},  # TASKS, CONNECTIONS, LOAD: sweepkit/dimensions.py
    "PROTOCOLS": "tcp udp",
    "PONG_CPUS": "0",  # empty: no pinning
    "PING_CPUS": "1",
    "NICE": "-10",
    "DRY_RUN": "0",  # 1: print the plan, its seed and its time, start nothing, write nothing, exit 0
    "TUNE": "1",  # 1: hold /dev/cpu_dma_latency at 0 for the sweep, where permitted (docs/sweeps.md, "Idle CPUs")
    "OUT_DIR": "latency-logs",
    "BIN_DIR": str(SUITE_DIR / "target" / "release"),
    "READY_TIMEOUT": "10",  # seconds a pong may take to print its `listening on` line
    "PING_GRACE": "20",  # seconds a ping may run past its warm-up + duration before it is killed
    "PING_EXTRA": "",  # extra arguments for every *-ping, e.g. "--decoy sleep"
    "PONG_EXTRA": "",  # extra arguments for every *-pong, e.g. "--threads 1"
    "VARIANTS": "",  # extra lines of a runtime with other options: sweepkit/variants.py
}
NETWORK_DEFAULTS = {"SSH_OPTS": "", "BASE_PORT": "9009"}
# MODE=micro: the in-process benchmarks (sweepkit/micro.py), their knobs only in such a sweep.
MICRO_DEFAULTS = {
    "BENCHES": " ".join(micro.BENCHES),
    # The grid, N up to 1 000 000 and W up to 10 000, takes about 20 min here: docs/sweeps.md.
    "MICRO_INSTANCES": "10000 100000",  # notify, oneshot: holder/waiter pairs, a point each
    "MICRO_WORKERS": "100 1000",  # channel: workers, a point each (× event types)
    "MICRO_EVENT_TYPES": "int string string_copy shared",  # shared_arc too for the counted Arc<str>
    "MICRO_EVENT_SIZES": "16",  # channel, string event types: bytes of each string, a point each
    "MICRO_REPEAT": "6",  # timed repeats per run after one warm-up (--repeat): the fewest with a 95 % interval
    "MICRO_TIMEOUT": "120",  # the binaries' --timeout: seconds for a whole run
    "MICRO_CPUS": "",  # taskset CPU list of the benchmark process; empty: every CPU
}
MICRO_OVERRIDES = {"REPEATS": "1"}  # each run repeats MICRO_REPEAT times already
# Knobs that may be set empty on purpose; any other empty knob takes its default.
MAY_BE_EMPTY = {"PONG_CPUS", "PING_CPUS", "PING_EXTRA", "PONG_EXTRA", "SSH_OPTS", "MICRO_CPUS", "VARIANTS", "BUDGET"}
# What a micro sweep does not use: named in a warning when given.
NOT_MICRO = ("DURATION", "WARMUP", "SIZE", "INTERVALS", "SIZES", *(d.knob for d in DIMENSIONS), "PROTOCOLS",
             "PONG_CPUS", "PING_CPUS", "PING_EXTRA", "PONG_EXTRA")
SEED_DIGITS = 20  # up to 2**64: a seed anyone can retype
ORDERS = ("blocks", "rounds")  # sweepkit.plan.runs

DECIMAL = re.compile(r"([0-9]+([.][0-9]*)?|[.][0-9]+)")
UINT = re.compile(r"[0-9]+")
CPU_LIST = re.compile(r"([0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*)?")
NICENESS = re.compile(r"([-+]?)([0-9]{1,2})")
BUDGET = re.compile(r"([0-9]+(?:[.][0-9]+)?)([smh]?)")
UNIT_S = {"": 1, "s": 1, "m": 60, "h": 3600}


def budget_s(text: str) -> float | None:
    """BUDGET in seconds (900, 900s, 15m, 1.5h); None when it is not such a time."""
    match = BUDGET.fullmatch(text.strip())
    return float(match[1]) * UNIT_S[match[2]] if match and float(match[1]) > 0 else None


@dataclass
class Checked:
    """What the check found: the knobs as the sweep uses and records them, what was chosen, problems."""

    knobs: dict[str, str]
    given: list[str]  # the knobs set in the environment, defaults or not
    selection: list[runtimes.Entry] = field(default_factory=list)  # in the list's order
    variants: list[variants_mod.Variant] = field(default_factory=list)  # VARIANTS, in its order
    usage: str | None = None  # a flag problem: exit 2, "Try -h"
    errors: list[str] = field(default_factory=list)  # knob problems: exit 2, "Nothing was started."
    warnings: list[str] = field(default_factory=list)

    @property
    def with_pongs(self) -> list[runtimes.Entry]:
        return [e for e in self.selection if has_pong(e)]

    @property
    def measured(self) -> list[runtimes.Entry]:
        """The entries whose binaries run: those with a pong, and the base of each variant, in the list's order."""
        chosen = {e.label for e in self.with_pongs} | {v.base for v in self.variants}
        return [e for e in runtimes.entries() if e.label in chosen]


def read(environ, network: bool = False) -> tuple[dict[str, str], list[str]]:
    """Every knob's value (the default where unset, or empty where that is not allowed) and the given ones."""
    defaults = DEFAULTS | (NETWORK_DEFAULTS if network else {})
    if environ.get("MODE") == "micro":
        defaults |= MICRO_OVERRIDES | MICRO_DEFAULTS
    given = [name for name in defaults if name in environ]
    values = {}
    for name, default in defaults.items():
        value = environ.get(name)
        values[name] = value if value is not None and (value or name in MAY_BE_EMPTY) else default
    return values, given


def _seconds(knobs, name, problems, positive=True):
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


def _payload(text: str, least: int, most: int) -> int | None:
    """A byte count within bounds, or None; at most nine digits, as the pings take them."""
    if not UINT.fullmatch(text) or len(text) > 9:
        return None
    value = int(text)
    return value if least <= value <= most else None


def _check_measure(k: dict, problems: list[str]) -> None:
    """MODE and what it sweeps over: SIZES (throughput) or SIZE and INTERVALS (rtt); normalises them."""
    if k["MODE"] == "throughput":
        sizes = k["SIZES"].split()
        if not sizes:
            problems.append('SIZES is empty: expected payload bytes, e.g. "64 1024"')
        for x in sizes:
            if _payload(x, 8, MAX_TCP_SIZE) is None:
                problems.append(f"SIZES: '{x}' is not a payload size from 8 bytes (the sequence number) "
                                f"to {MAX_TCP_SIZE}")
        return
    size = _payload(k["SIZE"], 8, 10**9)
    if size is None:
        problems.append(f"SIZE='{k['SIZE']}': expected bytes >= 8 (the sequence number)")
    else:
        k["SIZE"] = str(size)
    intervals = k["INTERVALS"].split()
    if not intervals:
        problems.append('INTERVALS is empty: expected seconds, e.g. "0.001 0"')
    for x in intervals:
        if not DECIMAL.fullmatch(x):
            problems.append(f"INTERVALS: '{x}' is not a number of seconds >= 0")


def _check_open_load(k: dict, problems: list[str]) -> None:
    """MODE=rtt: open load sends on a schedule, so it needs an interval other than 0 (back-to-back has none)."""
    loads, intervals = k["LOAD"].split(), k["INTERVALS"].split()
    if ("open" in loads and intervals and all(DECIMAL.fullmatch(x) for x in intervals)
            and all(float(x) == 0 for x in intervals)):
        problems.append("LOAD=open needs a schedule to send on: INTERVALS has only 0 (back-to-back), which "
                        'only a closed loop runs; give an interval, e.g. INTERVALS="0.001"')


def _check_repeats(k: dict, problems: list[str]) -> None:
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


def _check_protocols(k: dict, warmup, duration, problems: list[str]) -> None:
    protocols = k["PROTOCOLS"].split()
    if not protocols:
        problems.append('PROTOCOLS is empty: expected "tcp udp", "tcp" or "udp"')
    for x in protocols:
        if x not in ("tcp", "udp"):
            problems.append(f"PROTOCOLS: '{x}' is not tcp or udp")
    if "udp" not in protocols:
        return
    if k["MODE"] == "rtt" and _payload(k["SIZE"], MAX_UDP_SIZE + 1, 10**9) is not None:
        problems.append(f"SIZE={k['SIZE']} is too large for UDP (at most {MAX_UDP_SIZE} bytes)")
    if (k["MODE"] == "throughput" and warmup is not None and duration is not None
            and warmup + duration > MAX_UDP_THROUGHPUT_S):
        problems.append(f"WARMUP + DURATION is over {MAX_UDP_THROUGHPUT_S} s: a UDP throughput point "
                        "lasts at most that (its counts come back in one datagram)")


def _check_every_mode(k: dict, problems: list[str]) -> None:
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


def _check_setup(k: dict, problems: list[str], variants: int = 0) -> None:
    """Pinning, priority, folders, time limits, extra arguments and (across hosts) ports: one per
    pong, then one per variant."""
    if not CPU_LIST.fullmatch(k["PONG_CPUS"]):
        problems.append(f"PONG_CPUS='{k['PONG_CPUS']}': expected a CPU list like 0 or 2-3")
    if not CPU_LIST.fullmatch(k["PING_CPUS"]):
        problems.append(f"PING_CPUS='{k['PING_CPUS']}': expected a CPU list like 1 or 4,6")
    _check_every_mode(k, problems)
    _seconds(k, "READY_TIMEOUT", problems)
    _seconds(k, "PING_GRACE", problems)
    if k["MODE"] == "throughput":
        for x in k["PING_EXTRA"].split():
            if x.startswith(("--interval", "--rate", "--pacing")):
                problems.append(f"PING_EXTRA: {x.split('=')[0]} does not apply to MODE=throughput "
                                "(the ping sends as fast as it can)")
    # The plan gives each end its dimensions' options (sweepkit/dimensions.py), e.g. --connections.
    for extra, end in (("PING_EXTRA", "ping"), ("PONG_EXTRA", "pong")):
        knob_of = {d.option(end): d.knob for d in applying(k["MODE"]) if d.option(end)}
        for x in k[extra].split():
            if x.split("=")[0] in knob_of:
                problems.append(f"{extra}: {x.split('=')[0]} is set by the sweep for each point; "
                                f"use the {knob_of[x.split('=')[0]]} knob")
    if "BASE_PORT" in k:
        last = MAX_PORT - (len(pong_entries()) + variants - 1)  # one port per pong from BASE_PORT on
        port = k["BASE_PORT"]
        if not (UINT.fullmatch(port) and len(port) <= 5 and 1 <= int(port) <= last):
            problems.append(f"BASE_PORT='{port}': expected a port from 1 to {last}")
        else:
            k["BASE_PORT"] = str(int(port))


def check(environ, flags: str, context: str = "localhost") -> Checked:
    """Flags first (a usage problem ends the check), then every knob; context: localhost, remote,
    peer or serve (the last three are run-network.sh's)."""
    knobs, given = read(environ, network=context != "localhost")
    result = Checked(knobs=knobs, given=given)
    if knobs["MODE"] == "micro" and context != "localhost":
        result.usage = ("MODE=micro runs in-process on one host, with no peer: use ./run-localhost.sh")
        return result
    result.selection, result.usage = select(flags, context, knobs["MODE"], variants=bool(knobs["VARIANTS"].split()))
    if result.usage:
        return result
    k, problems = knobs, result.errors
    if k["MODE"] == "micro":
        return _check_micro(result)
    result.variants = variants_mod.parse(k["VARIANTS"], problems)
    if k["MODE"] not in ("rtt", "throughput"):
        problems.append(f"MODE='{k['MODE']}': expected rtt (round-trip times), throughput (msg/s and Gb/s) "
                        "or micro (in-process benchmarks)")
    _check_repeats(k, problems)
    if k["BUDGET"]:
        if budget_s(k["BUDGET"]) is None:
            problems.append(f"BUDGET='{k['BUDGET']}': expected a wall time like 900, 900s, 15m or 1.5h")
        if environ.get("REPEATS"):
            problems.append("REPEATS and BUDGET both given: BUDGET chooses the number of rounds; drop one")
    duration = _seconds(k, "DURATION", problems)
    warmup = _seconds(k, "WARMUP", problems, positive=False)
    _check_measure(k, problems)
    for dimension in applying(k["MODE"]):
        dimension.check(k, problems)
    if k["MODE"] == "rtt" and not any(p.startswith("LOAD") for p in problems):
        _check_open_load(k, problems)
    _check_protocols(k, warmup, duration, problems)
    _check_setup(k, problems, len(result.variants))
    if problems:
        return result
    if k["MODE"] == "rtt" and "open" in k["LOAD"].split() and any(float(x) == 0 for x in k["INTERVALS"].split()):
        result.warnings.append("LOAD=open: interval 0 (back-to-back) has no schedule to send on, so its "
                               "open-loop points are not planned")
    if k["MODE"] == "throughput":
        if "SIZE" in given:
            result.warnings.append(f'SIZE applies to MODE=rtt; this throughput sweep uses SIZES="{k["SIZES"]}"')
        if "INTERVALS" in given:
            result.warnings.append("INTERVALS applies to MODE=rtt: a throughput point sends as fast as it can")
        rtt_only = [d.knob for d in DIMENSIONS if "throughput" not in d.kinds and d.knob in given]
        if rtt_only:
            result.warnings.append(f"{' and '.join(rtt_only)} {'applies' if len(rtt_only) == 1 else 'apply'} to "
                                   "MODE=rtt: a throughput point runs one connection")
        for reference in [e for e in result.selection if not has_pong(e)]:
            result.selection.remove(reference)
            baseline = f"-{reference.flag}: the {reference.transport.upper()} baseline measures no throughput"
            if not result.selection and not result.variants:
                result.usage = f"{baseline}; with MODE=throughput choose {flag_list(pong_entries())}"
                return result
            result.warnings.append(f"{baseline}; skipped with MODE=throughput")
    elif "SIZES" in given:
        result.warnings.append(f"SIZES applies to MODE=throughput; this RTT sweep uses SIZE={k['SIZE']}")
    if context == "serve" and len(result.selection) > 1:
        for e in result.selection:
            if extra_args(e, "pong"):  # e.g. --busy-poll, which may spin while the others are measured
                result.warnings.append(f"-{e.flag}: its pong ({' '.join(extra_args(e, 'pong'))}) stays up beside "
                                       f"the others for the whole sweep; to be sure it takes no CPU time from "
                                       f"them, serve it on its own (--serve -{e.flag})")
    return result


def _check_micro(result: Checked) -> Checked:
    """MODE=micro: its own knobs, the general ones it shares (REPEATS, SEED, NICE, OUT_DIR, BIN_DIR,
    PING_GRACE), a warning for each given knob it does not use, and the entries that take part."""
    k, problems = result.knobs, result.errors
    _check_repeats(k, problems)
    micro.check(k, problems)
    if k["VARIANTS"].split():
        problems.append("VARIANTS applies to MODE=rtt and MODE=throughput: the micro benchmarks take no runtime "
                        "options; unset VARIANTS")
    if not CPU_LIST.fullmatch(k["MICRO_CPUS"]):
        problems.append(f"MICRO_CPUS='{k['MICRO_CPUS']}': expected a CPU list like 0 or 0-1 (empty: every CPU)")
    k["PONG_CPUS"] = k["PING_CPUS"] = ""  # nothing to pin but the benchmark process
    _check_every_mode(k, problems)
    _seconds(k, "PING_GRACE", problems)
    if problems:
        return result
    unused = [name for name in NOT_MICRO if name in result.given]
    if unused:
        result.warnings.append(f"{', '.join(unused)} {'does' if len(unused) == 1 else 'do'} not apply to MODE=micro "
                               "(in-process benchmarks: see BENCHES and the MICRO_* knobs)")
    for entry in list(result.selection):
        why = micro.why_not(entry, k)
        if why is None:
            continue
        result.selection.remove(entry)
        if not result.selection:
            every = flag_list([e for e in runtimes.entries() if micro.why_not(e, k) is None])
            result.usage = f"-{entry.flag}: {why}; with MODE=micro choose {every}"
            return result
        result.warnings.append(f"-{entry.flag}: {why}; skipped with MODE=micro")
    return result
