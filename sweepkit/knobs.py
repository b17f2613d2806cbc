"""The sweep's flags and knobs: their defaults, every check made before anything starts, and the warnings."""

# Knobs come from the environment, as strings; a check never stops at the first problem, so one run
# names them all. What only one MODE checks or warns about is its mode's (sweepkit.modes: check_*,
# warn); the shared parts are sweepkit.checks. Nothing here starts a process or writes a file.

from dataclasses import dataclass, field
from pathlib import Path

from suite import runtimes, transports

from . import micro, modes, spec as spec_mod, variants as variants_mod
from .checks import CPU_LIST, MAX_PORT, ORDERS, UINT, check_every_mode, check_repeats, seconds
from .dimensions import DIMENSIONS, applying
from .selection import extra_args, has_pong, pong_entries, select
from .spec import budget_s

SUITE_DIR = Path(__file__).resolve().parents[1]

# Every knob of both scripts, in sweep.json's order, with its default.
DEFAULTS = {
    "MODE": "rtt",  # rtt: round-trip times per interval; throughput: msg/s and Gb/s per size
    # Many short runs: the spread is between processes and drifts within seconds, not within a run
    # (docs/sweeps.md, "Choosing the defaults"): on a drifting VM a run of 0.1 s scattered as much as one of
    # 0.25 s or 1 s, so 80 rounds of 0.1 + 0.1 s fit the default -asStP in 15 min there and resolved 0.5 to
    # 0.8 of the Δ that 38 rounds of 0.1 + 0.25 s did, and a third of what 14 rounds of 0.25 + 1 s did.
    "REPEATS": "80",  # fresh pong + ping per point and round; an interval needs R >= 2
    "BUDGET": "",  # a wall time, e.g. 15m: as many rounds as fit (2 at least), fixed before the first run
    "SEED": "",  # the order of each round; empty: a random one, recorded
    # blocks: each round runs the frameworks of one point back to back, so that a Δ vs std pairs runs
    # seconds apart, not a round apart (docs/sweeps.md, "Repeats and rounds"); rounds: each round shuffled whole.
    "ORDER": ORDERS[0],  # blocks
    "DURATION": "0.1",
    "WARMUP": "0.1",
    "SIZE": "64",
    "INTERVALS": "0.1 0.01 0.001 0.0001 0",
    "SIZES": "8 64 1024 16384 65536 1048576",
    **{d.knob: d.default for d in DIMENSIONS},  # TASKS, CONNECTIONS, LOAD: sweepkit/dimensions.py
    "PROTOCOLS": transports.DEFAULT,  # tcp udp: suite/transports.py, which also lists http
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
# Fewer, longer runs, the defaults before issue 29: MODE=throughput's, which was measured with them, and
# run-network.sh's, where each run pays an ssh handshake of a few tenths of a second (docs/sweeps.md).
LONGER_RUNS = {"REPEATS": "14", "DURATION": "1", "WARMUP": "0.25"}
NETWORK_DEFAULTS = {"SSH_OPTS": "", "BASE_PORT": "9009", **LONGER_RUNS}
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
THROUGHPUT_OVERRIDES = LONGER_RUNS
# Knobs that may be set empty on purpose; any other empty knob takes its default.
MAY_BE_EMPTY = {"PONG_CPUS", "PING_CPUS", "PING_EXTRA", "PONG_EXTRA", "SSH_OPTS", "MICRO_CPUS", "VARIANTS", "BUDGET"}
# What a micro sweep does not use: named in a warning when given.
NOT_MICRO = ("DURATION", "WARMUP", "SIZE", "INTERVALS", "SIZES", *(d.knob for d in DIMENSIONS), "PROTOCOLS",
             "PONG_CPUS", "PING_CPUS", "PING_EXTRA", "PONG_EXTRA")


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

    def spec(self) -> spec_mod.Spec:
        """The typed spec of knobs that passed the check: what everything below the entry takes."""
        return spec_mod.parse(self.knobs, self.given)

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
    defaults = DEFAULTS | (NETWORK_DEFAULTS if network else {}) | modes.named(environ.get("MODE", "")).defaults()
    given = [name for name in defaults if name in environ]
    values = {}
    for name, default in defaults.items():
        value = environ.get(name)
        values[name] = value if value is not None and (value or name in MAY_BE_EMPTY) else default
    return values, given


def check(environ, flags: str, context: str = "localhost") -> Checked:
    """Flags first (a usage problem ends the check), then every knob; context: localhost, remote,
    peer or serve (the last three are run-network.sh's)."""
    knobs, given = read(environ, network=context != "localhost")
    result = Checked(knobs=knobs, given=given)
    mode = modes.named(knobs["MODE"])
    if mode.one_host and context != "localhost":
        result.usage = f"MODE={knobs['MODE']} {mode.one_host}: use ./run-localhost.sh"
        return result
    result.selection, result.usage = select(flags, context, knobs["MODE"], variants=bool(knobs["VARIANTS"].split()),
                                            drops=mode.drops_entries)
    if result.usage is None:
        mode.check(result, environ, context)
    return result


def check_network(result: Checked, environ, context: str, mode) -> None:
    """MODE=rtt and MODE=throughput (`mode`; an unknown MODE is checked as rtt, after its problem): every knob."""
    k, problems = result.knobs, result.errors
    result.variants = variants_mod.parse(k["VARIANTS"], problems)
    if k["MODE"] not in modes.SWEEPS:
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
    _check_protocols(k, protocols, problems)
    if "udp" in protocols:
        mode.check_udp(k, warmup, duration, problems)
    _check_setup(k, problems, mode, len(result.variants))
    if problems:
        return
    mode.warn(result)
    if result.usage is None and context == "serve" and len(result.selection) > 1:
        for e in result.selection:
            if extra_args(e, "pong"):  # e.g. --busy-poll, which may spin while the others are measured
                result.warnings.append(f"-{e.flag}: its pong ({' '.join(extra_args(e, 'pong'))}) stays up beside "
                                       f"the others for the whole sweep; to be sure it takes no CPU time from "
                                       f"them, serve it on its own (--serve -{e.flag})")


def _check_protocols(k: dict, protocols: list[str], problems: list[str]) -> None:
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


def _check_setup(k: dict, problems: list[str], mode, variants: int = 0) -> None:
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
