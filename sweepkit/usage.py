"""The scripts' -h: their usage, the flags (from runtimes.json) and every knob with its default."""

from suite import runtimes, transports

from .dimensions import DIMENSIONS
from .defaults import DEFAULTS, MICRO_DEFAULTS, NETWORK_DEFAULTS, THROUGHPUT_OVERRIDES
from .selection import pong_entries

KNOBS_HELP = """\
Knobs (environment variables, with their defaults):
  MODE=rtt               rtt: round-trip times; throughput: one way, as fast as possible;
                         micro: in-process benchmarks (run-localhost.sh only; knobs below)
                         wrk: each runtime's HTTP pong driven by wrk and by its own ping
                         (run-localhost.sh only; REPEATS=6 DURATION=3 WARMUP=0; WRK=wrk)
  REPEATS={REPEATS:<15}runs per point, each a fresh pong and ping; one round runs every point once
                         (MODE=throughput: {THROUGHPUT_REPEATS}; MODE=micro: 1, each run repeats MICRO_REPEAT times)
  STOP=decided           MODE=rtt: decided: look at every comparison every ~REPEATS/8 rounds and stop
                         each once decided (REPEATS × 1.08 rounds at most); fixed: REPEATS rounds
  STOP_ON=p50            MODE=rtt: which of the runs' figures decide when a comparison stops: p50, or
                         p50,p99 (a line then runs until its p99 comparisons are decided too)
  MARGIN=5 MARGIN_P99=10 MODE=rtt: `same` when a Δ's interval lies within ± this % of std's p50, p99
  BUDGET={BUDGET:<16}a wall time (900, 15m, 1.5h) instead of REPEATS: as many rounds as fit,
                         re-planned after each round from what its runs really cost
  SEED=                  the seed of each round's shuffled order (empty: a random one, recorded)
  ORDER={ORDER:<17}blocks: in each round, the frameworks of one setting back to back, so that
                         a Δ pairs runs seconds apart; rounds: each round shuffled whole
  DURATION={DURATION:<14}measured seconds per run (more repeats narrow the intervals more
                         than longer runs do: docs/sweeps.md; MODE=throughput: {THROUGHPUT_DURATION})
  WARMUP={WARMUP:<16}warm-up seconds per run, excluded from the statistics (MODE=throughput: {THROUGHPUT_WARMUP})
  SIZE=64                MODE=rtt: payload bytes (at least 8; UDP at most 65507)
  INTERVALS="0.1 0.01 0.001 0.0001 0"   MODE=rtt: seconds between messages; 0 = back-to-back
  MIN_MESSAGES={MIN_MESSAGES:<10}MODE=rtt: a paced run's window holds at least this many messages
                         (max(DURATION, MIN_MESSAGES × interval)); 0: off. The plan says which
                         quantiles each rate carries, and what carries its p99
  TRACE={TRACE:<17}MODE=rtt: N: after the rounds, N more runs of each point with both ends'
                         scheduler and system-call events recorded (root), kept in traces/,
                         outside the estimates: parse.py phases splits their round trips
  PROBED={PROBED:<16}MODE=rtt: N: after the rounds, N more runs of each point that also count
                         system calls and wake-ups (too costly in measured runs), outside the
                         estimates: parse.py costs
  SIZES="8 64 1024 16384 65536 1048576" MODE=throughput: payload bytes, a point each
                         (UDP points above 65507 bytes are skipped)
{dimensions}
{protocols}
  PONG_CPUS=0 PING_CPUS=1   taskset CPU lists (empty: no pinning)
  NICE=-10               niceness of both ends (when allowed)
  TUNE={TUNE:<18}hold /dev/cpu_dma_latency at 0 while sweeping (idle CPUs stay awake; root)
  COUNTERS={COUNTERS:<14}1: each ping counts both ends' CPU, switches; all: and syscalls, wake-ups
                         in every run (0: off)
  DRY_RUN={DRY_RUN:<15}1: print the plan, its seed and estimated time; start nothing
  OUT_DIR=latency-logs   each sweep makes its own folder in it
  BIN_DIR=target/release READY_TIMEOUT=10 PING_GRACE=20  PING_EXTRA=""  PONG_EXTRA=""
  VARIANTS=""            extra lines of a runtime with other options, swept like a runtime (with or
                         without its flag), e.g. "tokio-ct=tokio:--flavor current_thread
                         tokio-ei8=tokio:--event-interval 8": LABEL=BASE:ARG ARG..., for ping and pong
  VERSION_PROFILE=release
                         the cargo profile a version variant (BASE@VERSION) is built in; harness: the
                         tests' quick build, never a measurement
  PR=                    the same as --pr SPEC"""

MICRO_HELP = """
MODE=micro (each point one run of BIN_DIR/<runtime>-micro; docs/sweeps.md):
  BENCHES="{BENCHES}"
                         the benchmarks, a point each at the binaries' default sizes but:
  MICRO_INSTANCES="{MICRO_INSTANCES}"   notify, oneshot: holder/waiter pairs, a point each
  MICRO_WORKERS="{MICRO_WORKERS}"  MICRO_EVENT_TYPES="{MICRO_EVENT_TYPES}"   channel: a point each pair
  MICRO_EVENT_SIZES="{MICRO_EVENT_SIZES}"   channel, string event types: bytes of each string, a point each
  MICRO_REPEAT={MICRO_REPEAT}        timed repeats per run, after one untimed warm-up iteration
  MICRO_TIMEOUT={MICRO_TIMEOUT}      seconds a run may take; then its finished repeats are kept
  MICRO_CPUS={MICRO_CPUS}            taskset CPU list of the benchmarks (empty: every CPU)"""

NETWORK_HELP = """\
  SSH_OPTS=""            extra options for every ssh call (split on spaces), e.g.
                         "-i ~/.ssh/bench -p 2222 -o StrictHostKeyChecking=accept-new"
  BASE_PORT=9009         first port of --serve/--peer: {ports}"""


def port_list() -> str:
    """std on BASE_PORT, tokio +1, async-std +2, smol +3"""
    labels = [e.label for e in pong_entries()]
    return ", ".join([f"{labels[0]} on BASE_PORT"] + [f"{label} +{i}" for i, label in enumerate(labels) if i])


def dimension_lines() -> str:
    """Each point dimension's knob, default and help, as its entry in suite/dimensions.py writes them."""
    lines = []
    for d in DIMENSIONS:
        head, (first, *more) = f'  {d.knob}="{d.default}"', d.help or ("",)
        lines += [f"{head:<25}{first}".rstrip(), *(f"{'':<25}{line}" for line in more)]
    return "\n".join(lines)


def protocol_lines() -> str:
    """PROTOCOLS' default and each transport it takes, from suite/transports.py."""
    head = f'  PROTOCOLS="{transports.DEFAULT}"'
    lines = [f"{head:<25}transports, a point each, of:"]
    every = {m for t in transports.TRANSPORTS for m in t.modes}
    for t in transports.TRANSPORTS:
        if t.modes:
            only = "" if set(t.modes) == every else f" (MODE={'/'.join(t.modes)} only)"
            lines.append(f"{'':<25}  {t.name}: {t.what}{only}")
    return "\n".join(lines)


def flags_and_knobs(network: bool) -> str:
    """The flags (from runtimes.json) and the knobs, as both scripts' -h lists them."""
    lines = ["Frameworks (any combination; at least one; the list is runtimes.json):"]
    lines += [f"  -{e.flag}  {e.label}: {e.about}" for e in runtimes.entries()]
    lines += ["  -h  this help", "", KNOBS_HELP.format(**(DEFAULTS | (NETWORK_DEFAULTS if network else {})),
                                                           **{f"THROUGHPUT_{k}": v for k, v in THROUGHPUT_OVERRIDES.items()},
                                                           dimensions=dimension_lines(), protocols=protocol_lines())]
    if network:
        lines.append(NETWORK_HELP.format(ports=port_list()))
    else:
        lines.append(MICRO_HELP.format(**MICRO_DEFAULTS))
    return "\n".join(lines)


def localhost(prog: str) -> str:
    return f"""\
Usage: {prog} [-FLAGS] [-h] [--check]   (the flags below, alone or combined as in -asStP)
       {prog} --continue DIR
       {prog} --pr RUNTIME@path:DIR:BASE..HEAD [-FLAGS]
Measures round-trip latency (MODE=throughput: msg/s and Gb/s) on this host over loopback,
a fresh pong and ping per run: REPEATS rounds, each running every point once, shuffled.

  --check   print the system check (the settings that move latency, and what to do about
            each one known to hurt) and run nothing; a sweep prints its warnings too
  --continue DIR  the interrupted sweep in DIR, to its end: its knobs and plan are DIR's
            (a larger REPEATS or BUDGET extends it; a contradicting knob is refused)
  --pr RUNTIME@path:DIR:BASE..HEAD  a pull-request check: the runtime built at two commits of
            its checkout DIR, swept interleaved beside std on a small grid and a budget of its
            own (knobs given win), each head − base Δp50 and Δp99 decided with the 5 % error
            held over all of them; writes pr-comment.md (docs/pr-check.md)

{flags_and_knobs(False)}

Examples: DURATION=5 INTERVALS="0.001 0" ./{prog} -tS
          MODE=throughput SIZES="64 65536" ./{prog} -tS
          MODE=micro BENCHES="spawn_many channel" ./{prog} -tSG
          ./{prog} --pr tokio@path:../tokio:origin/master..HEAD"""


def network(prog: str) -> str:
    return f"""\
Usage: {prog} --remote USER@HOST [--remote-dir DIR] [--target ADDR] [-FLAGS]
       {prog} --serve [--target ADDR] [-FLAGS]
       {prog} --peer ADDR [-FLAGS]
       {prog} --check [--remote USER@HOST]
       {prog} --continue DIR   (an interrupted sweep, to its end, against its own host B)
Measures round-trip latency (MODE=throughput: msg/s and Gb/s) across two hosts: pongs on
host B, pings on this host (A).

  --remote USER@HOST  host B, reached with ssh in batch mode (keys, no passwords)
  --remote-dir DIR    the suite's checkout on B (default: the same path as here)
  --target ADDR       B's data-plane address, when it differs from the ssh address
                      (with --serve: the address to listen on; default 0.0.0.0)
  --serve             on B: keep one pong per framework and protocol listening, on fixed
                      ports (see BASE_PORT); Ctrl-C stops them
  --peer ADDR         on A: sweep against the pongs of '--serve' on ADDR
  --check             print the system check of this host (with --remote: of B too, over
                      ssh) and run nothing; a sweep prints its warnings too

{flags_and_knobs(True)}

Examples: DURATION=5 {prog} --remote bench@hostb --target 10.0.0.2 -tS
          MODE=throughput {prog} --remote bench@hostb --target 10.0.0.2 -tS"""
