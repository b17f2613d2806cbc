"""Every knob of both scripts with its default, and the ones each MODE adds or changes: data only.

sweepkit.knobs reads the environment over these tables; a mode's `defaults` (sweepkit.modes) names its own.
They sit below the modes, so that a mode reads them without importing the entry.
"""

from pathlib import Path

from suite import transports

from . import micro
from .checks import ORDERS
from .dimensions import DIMENSIONS

SUITE_DIR = Path(__file__).resolve().parents[1]

# Every knob of both scripts, in sweep.json's order, with its default.
DEFAULTS = {
    "MODE": "rtt",  # rtt: round-trip times per interval; throughput: msg/s and Gb/s per size
    # Many short runs: the spread is between processes and drifts within seconds, not within a run
    # (docs/sweeps.md, "Choosing the defaults"): on a drifting VM a run of 0.1 s scattered as much as one of
    # 0.25 s or 1 s, so 80 rounds of 0.1 + 0.1 s fit the default -asStP in 15 min there and resolved 0.5 to
    # 0.8 of the Δ that 38 rounds of 0.1 + 0.25 s did, and a third of what 14 rounds of 0.25 + 1 s did.
    "REPEATS": "80",  # fresh pong + ping per point and round; an interval needs R >= 2
    "BUDGET": "",  # a wall time, e.g. 15m: as many rounds as fit (2 at least), re-planned from run times (costs.py)
    "SEED": "",  # the order of each round; empty: a random one, recorded
    # blocks: each round runs the frameworks of one point back to back, so that a Δ vs std pairs runs
    # seconds apart, not a round apart (docs/sweeps.md, "Repeats and rounds"); rounds: each round shuffled whole.
    "ORDER": ORDERS[0],  # blocks
    "DURATION": "0.1",
    "WARMUP": "0.1",
    "SIZE": "64",
    "INTERVALS": "0.1 0.01 0.001 0.0001 0",
    # MODE=rtt: a paced run's window holds at least this many messages (max(DURATION, K × interval)). Off: the p99
    # at 10 and 100 msg/s needs K = 13 at 80 rounds, 14 more minutes of 1.3 s runs at 10 msg/s, past the 15 the
    # default -asStP fits (docs/sweeps.md, "Samples at low rates"); the plan says what each rate carries.
    "MIN_MESSAGES": "0",
    "TRACE": "0",  # MODE=rtt: N: after the rounds, N traced runs of each point, outside the estimates (traced.py)
    # MODE=rtt: after the rounds, N runs of each point that also count system calls and wake-ups, whose probes cost
    # too much to run in the measured ones (probed.py)
    "PROBED": "3",
    "SIZES": "8 64 1024 16384 65536 1048576",
    **{d.knob: d.default for d in DIMENSIONS},  # TASKS, CONNECTIONS, LOAD: sweepkit/dimensions.py
    "PROTOCOLS": transports.DEFAULT,  # tcp udp: suite/transports.py, which also lists http
    "PONG_CPUS": "0",  # empty: no pinning
    "PING_CPUS": "1",
    "NICE": "-10",
    "DRY_RUN": "0",  # 1: print the plan, its seed and its time, start nothing, write nothing, exit 0
    "COUNTERS": "1",  # 1: each ping counts both ends' CPU time and what the kernel keeps anyway; all: and system
    # calls, switches and wake-ups (perf_event_open, which costs in every call and switch); 0: nothing
    "TUNE": "1",  # 1: hold /dev/cpu_dma_latency at 0 for the sweep, where permitted (docs/sweeps.md, "Idle CPUs")
    "OUT_DIR": "latency-logs",
    "BIN_DIR": str(SUITE_DIR / "target" / "release"),
    "READY_TIMEOUT": "10",  # seconds a pong may take to print its `listening on` line
    "PING_GRACE": "20",  # seconds a ping may run past its warm-up + duration before it is killed
    "PING_EXTRA": "",  # extra arguments for every *-ping, e.g. "--decoy sleep"
    "PONG_EXTRA": "",  # extra arguments for every *-pong, e.g. "--threads 1"
    "VARIANTS": "",  # extra lines of a runtime with other options: sweepkit/variants.py
    # The cargo profile a version variant (BASE@VERSION) is built in: release, the measured one; harness, the tests'
    # lighter one, whose lines are marked as no measurement (sweepkit/versions.py: PROFILES).
    "VERSION_PROFILE": "release",
    # --pr's RUNTIME@path:DIR:BASE..HEAD (sweepkit/pr.py): its two lines' comparisons are the sweep's only ones, the
    # error held over all of them
    "PR": "",
}
# Fewer, longer runs: MODE=throughput's, which was measured with them, and
# run-network.sh's, where each run pays an ssh handshake of a few tenths of a second (docs/sweeps.md).
LONGER_RUNS = {"REPEATS": "14", "DURATION": "1", "WARMUP": "0.25"}
NETWORK_DEFAULTS = {"SSH_OPTS": "", "BASE_PORT": "9009", **LONGER_RUNS}
# MODE=micro: the in-process benchmarks (sweepkit/micro.py), their knobs only in such a sweep.
MICRO_DEFAULTS = {
    "BENCHES": " ".join(micro.BENCHES),
    # Smaller than the full grid (N up to 1 000 000, W up to 10 000), which takes long: docs/sweeps.md.
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
MAY_BE_EMPTY = {"PONG_CPUS", "PING_CPUS", "PING_EXTRA", "PONG_EXTRA", "SSH_OPTS", "MICRO_CPUS", "VARIANTS", "BUDGET", "PR"}
# What a micro sweep does not use: named in a warning when given.
NOT_MICRO = ("DURATION", "WARMUP", "SIZE", "INTERVALS", "MIN_MESSAGES", "TRACE", "PROBED", "SIZES", *(d.knob for d in DIMENSIONS),
             "PROTOCOLS", "PONG_CPUS", "PING_CPUS", "PING_EXTRA", "PONG_EXTRA", "COUNTERS")
