"""The sweep scripts' data side, one subcommand per step (scripts/sweep.py SUBCOMMAND -h for each).

  help     the flags and knobs part of the scripts' -h
  check    check the flags and knobs; start the state file; print the knobs for the shell (NAME<TAB>VALUE)
  plan     build the plan: write its lines for the shell, print it for people
  start    the sweep's folder exists: sweep.json goes there, with the run's facts
  record   a run ended: record it in sweep.json, print its progress line
  interrupt  a signal stopped the sweep: say so in sweep.json
  finish   the closing figures in sweep.json, the summary table and the closing lines; exit 1 if a run failed
  pongs    run-network.sh --serve/--peer: the pongs to start or probe (binary, transport, port)
  serving  run-network.sh --serve: the table of the pongs' addresses and the command for host A
  unavailable  run-network.sh --serve: whether a pong's stderr says io_uring is unavailable, and that line
"""

import argparse
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

from analysis import runtimes

from . import knobs as knobs_mod
from . import plan as plan_mod
from . import disturbance, micro, progress, state, table, variants
from .knobs import SUITE_DIR
from .timefmt import duration
from .selection import binary_ends, has_pong, missing_binaries, pong_entries

KNOBS_HELP = """\
Knobs (environment variables, with their defaults):
  MODE=rtt               rtt: round-trip times; throughput: one way, as fast as possible;
                         micro: in-process benchmarks (run-localhost.sh only; knobs below)
  REPEATS=3              runs per point, each a fresh pong and ping; one round runs every point once
                         (MODE=micro: 1, each run repeats MICRO_REPEAT times)
  SEED=                  the seed of each round's shuffled order (empty: a random one, recorded)
  DURATION=4             measured seconds per run (for a publication: REPEATS=10 DURATION=10)
  WARMUP=1               warm-up seconds per run, excluded from the statistics
  SIZE=64                MODE=rtt: payload bytes (at least 8; UDP at most 65507)
  INTERVALS="0.1 0.01 0.001 0.0001 0"   MODE=rtt: seconds between messages; 0 = back-to-back
  SIZES="8 64 1024 16384 65536 1048576" MODE=throughput: payload bytes, a point each
                         (UDP points above 65507 bytes are skipped)
  TASKS="0"              decoy task counts
  CONNECTIONS="1"        MODE=rtt: connections (UDP: sockets) per ping, a point each, e.g. "1 10 100 1000";
                         they share the rate asked for (each sends at rate/N)
  LOAD="closed"          MODE=rtt: closed (each message waits for the previous reply), open (sent on
                         schedule, latency counted from the scheduled send) or "closed open";
                         open needs an interval other than 0
  PROTOCOLS="tcp udp"
  PONG_CPUS=0 PING_CPUS=1   taskset CPU lists (empty: no pinning)
  NICE=-10               niceness of both ends (when allowed)
  OUT_DIR=latency-logs   each sweep makes its own folder in it
  BIN_DIR=target/release READY_TIMEOUT=10 PING_GRACE=20  PING_EXTRA=""  PONG_EXTRA=""
  VARIANTS=""            extra lines of a runtime with other options, swept like a runtime (with or
                         without its flag), e.g. "tokio-ct=tokio:--flavor current_thread
                         tokio-ei8=tokio:--event-interval 8": LABEL=BASE:ARG ARG..., for ping and pong"""

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


def cmd_help(args) -> int:
    print("Frameworks (any combination; at least one; the list is runtimes.json):")
    for e in runtimes.entries():
        print(f"  -{e.flag}  {e.label}: {e.about}")
    print("  -h  this help\n")
    print(KNOBS_HELP)
    if args.network:
        print(NETWORK_HELP.format(ports=port_list()))
    else:
        print(MICRO_HELP.format(**knobs_mod.MICRO_DEFAULTS))
    return 0


def cmd_check(args) -> int:
    prog = args.prog
    checked = knobs_mod.check(os.environ, args.flags, args.context)
    if checked.usage is None:
        for problem in checked.errors:
            print(f"{prog}: {problem}", file=sys.stderr)
        if checked.errors:
            print("Nothing was started.", file=sys.stderr)
            return 2
    for warning in checked.warnings:
        print(f"{prog}: warning: {warning}", file=sys.stderr)
    if checked.usage is not None:
        print(f"{prog}: {checked.usage}\nTry {prog} -h.", file=sys.stderr)
        return 2
    if checked.knobs["MODE"] == "micro":  # a reference `make` left out (no go, no java): the others run
        for entry in list(checked.selection):
            why = micro.not_built(entry, checked.knobs)
            if why and len(checked.selection) > 1:
                checked.selection.remove(entry)
                print(f"{prog}: warning: -{entry.flag}: {why}; skipped", file=sys.stderr)
    missing = missing_binaries(checked.knobs, checked.selection + [v.entry for v in checked.variants],
                                         args.binaries.split())
    if missing:
        print(f"{prog}: missing binaries:", *(f"  {path}" for path in missing), sep="\n", file=sys.stderr)
        print(f'Build them first: run "make" (or "cargo build --release --workspace --bins") in {SUITE_DIR}',
              file=sys.stderr)
        return 1
    refused = variants.refusals(checked.variants, Path(checked.knobs["BIN_DIR"]),
                                binary_ends(checked.knobs, args.binaries.split()), checked.knobs["MODE"])
    if refused:
        print(*(f"{prog}: {problem}" for problem in refused), "Nothing was started.", sep="\n", file=sys.stderr)
        return 2
    doc = {"frameworks": [e.label for e in checked.selection], "variants": [v.record() for v in checked.variants],
           "knobs": checked.knobs, "knobs_given": checked.given, "points": []}
    state.save(args.state, doc)
    for name, value in checked.knobs.items():
        print(f"{name}\t{value}".replace("\n", " "))  # one line each: the shell reads lines
    chosen = checked.measured  # runtimes, references measured by the suite's binaries, variants' bases
    if checked.knobs["MODE"] == "micro":  # every entry left has a <prefix>-micro
        chosen = checked.selection
    print(f"BINARIES\t{' '.join(binary_ends(checked.knobs, args.binaries.split()))}")
    print(f"RUNTIMES\t{' '.join(dict.fromkeys(e.binary_prefix for e in chosen))}")
    print(f"ALL_RUNTIMES\t{' '.join(dict.fromkeys(e.binary_prefix for e in pong_entries()))}")
    print(f"REFERENCES\t{' '.join(e.label for e in checked.selection if not has_pong(e))}")
    flags = "".join(e.flag for e in (checked.selection if checked.knobs["MODE"] == "micro" else checked.with_pongs))
    print(f"RUNTIME_FLAGS\t{'-' + flags if flags else ''}")
    return 0


def assignments(pairs: list[str]) -> dict[str, str]:
    return dict(pair.split("=", 1) for pair in pairs)


def cmd_plan(args) -> int:
    doc = state.load(args.state)
    doc["knobs"].update(assignments(args.knob))
    k = doc["knobs"]
    selection = [runtimes.by_label(label) for label in doc["frameworks"]]
    problem = plan_mod.reference_problem(k, args.icmp_unusable)
    for reference in [e for e in selection if not has_pong(e)] if problem and k["MODE"] == "rtt" else []:
        print(f"{args.prog}: warning: -{reference.flag}: {problem}; skipping the {reference.transport.upper()} "
              "points", file=sys.stderr)
    points = plan_mod.build(k, selection, args.icmp_unusable, variants.from_records(doc.get("variants")))
    if k.get("BUDGET"):
        problem = fit_budget(doc, points)
        if problem:
            print(f"{args.prog}: {problem}\nNothing was started.", file=sys.stderr)
            return 2
    runs = plan_mod.runs(points, int(k["REPEATS"]), int(k["SEED"]))
    doc |= {"repeats": int(k["REPEATS"]), "seed": int(k["SEED"]), "points": [p.record() for p in points],
            "runs": [r.record() for r in runs]}
    Path(args.lines).write_text("".join(plan_mod.line(i, r, k) + "\n" for i, r in enumerate(runs)),
                                encoding="utf-8")
    state.save(args.state, doc)
    print("\n".join(progress.plan_lines(doc)))
    return 0


def fit_budget(doc: dict, points) -> str | None:
    """BUDGET: sets REPEATS to the rounds whose estimated time fits it, from the plan alone (never from
    results, so the rounds cannot depend on what they measure); or says why not even two fit."""
    k = doc["knobs"]
    one_round = progress.estimate_s(doc | {"points": [p.record() for p in points],
                                           "runs": [r.record() for r in plan_mod.runs(points, 1, int(k["SEED"]))]})
    budget = knobs_mod.budget_s(k["BUDGET"])
    rounds = int(budget // one_round) if one_round > 0 else knobs_mod.MAX_REPEATS
    if rounds < 2:
        return (f"BUDGET={k['BUDGET']}: a round of this plan takes about {duration(one_round)}, and two rounds (the "
                f"fewest that measure a spread) about {duration(2 * one_round)}: raise BUDGET or plan fewer points")
    k["REPEATS"] = str(min(rounds, knobs_mod.MAX_REPEATS))
    doc["budget"] = {"budget_s": budget, "round_estimate_s": progress.tidy(one_round), "rounds": int(k["REPEATS"])}
    return None


def cmd_start(args) -> int:
    doc = state.load(args.state)
    for key, value in assignments(args.meta).items():
        doc[key] = value
    doc["hosts"] = state.hosts({role: Path(path) for role, path in assignments(args.host).items()})
    doc["status"] = "running"
    doc["started_at"] = state.utc_now()
    doc["estimated_s"] = progress.tidy(progress.estimate_s(doc))
    state.save(Path(args.dir) / "sweep.json", doc)
    Path(args.state).unlink()
    return 0


def cmd_record(args) -> int:
    doc = state.load(args.state)
    run, k = doc["runs"][args.index], doc["knobs"]
    sweep_dir = Path(args.state).parent
    status, message = args.status, args.message
    if args.exit_code is not None:
        kind = "micro" if "ns_per_op_median" in run else "rtt" if "p50_ns" in run else "throughput"
        limit = progress.seconds(plan_mod.ping_limit_s(kind, k))
        outcome = state.micro_outcome if kind == "micro" else state.ping_outcome
        status, message = outcome(args.exit_code, limit, sweep_dir / run["stem"])
    status, message = state.skip_unavailable(status, message, args.tail, sweep_dir / run["stem"])
    log = table.read(sweep_dir / f"{run['stem']}.json") if status == "ok" else None
    figures = table.figures(log) if log is not None else (None, None)
    run["start_s"] = round(state.epoch(args.t0) - state.epoch(args.since), 2)
    if args.cpu:
        stat0, stat1, times0, times1 = args.cpu
        try:
            run["disturbance"] = disturbance.measure(stat0, stat1, Path(times0).read_text(), Path(times1).read_text(),
                                                     state.epoch(args.t1) - state.epoch(args.t0))
        except (OSError, ValueError) as error:  # a measurement of the machine, never a reason to stop
            print(f"{args.prog}: warning: run {args.index + 1}: could not read the machine's CPU times: {error}",
                  file=sys.stderr)
    state.settle(run, status, message, state.epoch(args.t1) - state.epoch(args.t0), figures,
                 table.starved(log) if log is not None else None)
    state.save(args.state, doc)
    elapsed = state.epoch(args.t1) - state.epoch(args.since)
    lines = [progress.progress_line(doc, args.index, elapsed)]
    if status == "failed":
        lines += progress.tails(args.tail)
    print("\n".join(lines))
    return 0


def cmd_interrupt(args) -> int:
    doc = state.load(args.state)
    if args.index is not None:
        run = doc["runs"][args.index]
        run["status"] = "interrupted"
        run["message"] = f"stopped by SIG{args.signal}; its partial logs were removed"
        print(f"{args.prog}: {run['stem']} was interrupted and removed; finished runs stay in "
              f"{Path(args.state).parent}", file=sys.stderr)
    doc["status"] = "interrupted"
    doc["finished_at"] = state.utc_now()
    state.save(args.state, doc)
    return 0


def summary_table(sweep_dir: Path, mode: str) -> list[str]:
    """parse.py's table when the analysis toolkit is installed, else the plain one."""
    lines, kind = [], ["-k", mode] if mode in ("throughput", "micro") else []
    if (SUITE_DIR / "parse.py").is_file():
        run = subprocess.run([sys.executable, "parse.py", *kind, "--summary", "-d", str(sweep_dir)],
                             cwd=SUITE_DIR, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out = run.stdout.rstrip("\n")
        if run.returncode == 0:
            return [out]
        last = out.splitlines()[-1] if out else ""
        lines.append(f"(parse.py {' '.join(kind + ['--summary'])} failed with status {run.returncode}: {last})")
    return lines + table.summary(sweep_dir)


def cmd_finish(args) -> int:
    doc = state.load(args.state)
    sweep_dir = Path(args.state).parent
    doc.update(progress.totals(doc["runs"], state.epoch(args.now) - state.epoch(args.since), doc["knobs"]))
    doc["finished_at"] = state.utc_now()
    failed = any(r["status"] == "failed" for r in doc["runs"])
    doc["status"] = "failed" if failed else "complete"
    disturbed = disturbance.flag(doc["runs"])
    state.save(args.state, doc)
    print("", *summary_table(sweep_dir, doc["knobs"]["MODE"]), "",
          *(f"Disturbed: {r['stem']}: {r['disturbed']} (kept; sweep.json runs[].disturbance)" for r in disturbed),
          *progress.closing_lines(doc, sweep_dir), sep="\n")
    return 1 if failed else 0


def serve_pongs(doc: dict) -> list[tuple]:
    """(label, binary, transport, port, pong arguments) of every pong of --serve/--peer, in the plan's order;
    an RTT pong is made ready for the most connections of CONNECTIONS, since it serves every point."""
    k = doc["knobs"]
    points = plan_mod.build(k, [runtimes.by_label(label) for label in doc["frameworks"]], None,
                            variants.from_records(doc.get("variants")))
    ready = ("--connections", str(max(map(int, k["CONNECTIONS"].split())))) if k["MODE"] == "rtt" else ()
    return list(dict.fromkeys((p.framework, p.binary, p.transport, p.port, (*p.pong_args, *ready))
                              for p in points if p.binary))


def cmd_pongs(args) -> int:
    for _label, binary, transport, port, pong_args in serve_pongs(state.load(args.state)):
        print(f"{binary}\t{transport}\t{port}\t{' '.join(pong_args) or plan_mod.EMPTY}")
    return 0


def hostport(host: str, port) -> str:
    return f"[{host}]:{port}" if ":" in host and not host.startswith("[") else f"{host}:{port}"


def doc_flags(doc: dict) -> list[str]:
    """The flags of the entries the sweep selected (a variant has none)."""
    return [runtimes.by_label(label).flag for label in doc["frameworks"]]


def cmd_unavailable(args) -> int:
    """Prints the line saying io_uring is unavailable, from the first of the files that has one; exit 1 if none."""
    reason = state.unavailable(args.tail)
    if reason is not None:
        print(reason)
    return 0 if reason is not None else 1


def cmd_serving(args) -> int:
    doc = state.load(args.state)
    k = doc["knobs"]
    mode = " (--mode throughput)" if k["MODE"] == "throughput" else ""
    protocols = list(dict.fromkeys(k["PROTOCOLS"].split()))
    print(f"Serving{mode} (Ctrl-C or SIGTERM stops every pong):")
    print(("  " + "".join(f"{cell:<10}" for cell in ["framework", *protocols])).rstrip())
    ports = {label: port for label, binary, _transport, port, _args in serve_pongs(doc)
             if binary not in args.unserved}
    for label, port in ports.items():
        print((f"  {label:<10}" + "".join(f"{hostport(args.bind, port):<22}" for _ in protocols)).rstrip())
    if args.unserved:  # io_uring is unavailable here: host A leaves those runtimes out
        doc["frameworks"] = [label for label in doc["frameworks"]
                             if runtimes.by_label(label).binary_prefix not in args.unserved]
        print(f"Not served (io_uring is unavailable here): {', '.join(args.unserved)}")
    prefix = "MODE=throughput " if k["MODE"] == "throughput" else ""
    if k.get("VARIANTS", "").split():  # host A plans the same ports only with the same variants
        prefix += f"VARIANTS={shlex.quote(k['VARIANTS'])} "
    if k["MODE"] == "rtt" and k["CONNECTIONS"] != "1":  # the pongs are ready for this many, no more
        prefix += f"CONNECTIONS={shlex.quote(k['CONNECTIONS'])} "
    flags = "".join(doc_flags(doc))
    print(f"On host A: {prefix}BASE_PORT={k['BASE_PORT']} ./run-network.sh --peer <this host's address>"
          + (f" -{flags}" if flags else ""))
    return 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="sweep.py", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = top.add_subparsers(dest="command", required=True)

    def command(name, func, state_file=True):
        p = sub.add_parser(name)
        p.set_defaults(func=func)
        p.add_argument("--prog", default="sweep", help="the script's name, for messages")
        if state_file:
            p.add_argument("--state", required=True, help="the state file (sweep.json once the folder exists)")
        return p

    command("help", cmd_help, state_file=False).add_argument("--network", action="store_true")
    p = command("check", cmd_check)
    p.add_argument("--context", choices=["localhost", "remote", "peer", "serve"], default="localhost")
    p.add_argument("--binaries", default="ping pong", help="which binaries must exist: ping, pong or both")
    p.add_argument("flags", help="the flag letters given, e.g. tSP")
    p = command("plan", cmd_plan)
    p.add_argument("--knob", action="append", default=[], metavar="NAME=VALUE", help="a knob the shell adjusted")
    p.add_argument("--icmp-unusable", default=None, metavar="REASON", help="why the system ping cannot serve")
    p.add_argument("--lines", required=True, help="where to write the plan lines for the shell")
    p = command("start", cmd_start)
    p.add_argument("--dir", required=True, help="the sweep's folder")
    p.add_argument("--meta", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--host", action="append", default=[], metavar="ROLE=FILE", help="host-facts.sh output")
    p = command("record", cmd_record)
    p.add_argument("index", type=int, help="the run's index in the plan's lines")
    for name in ("--t0", "--t1", "--since"):
        p.add_argument(name, required=True, help="$EPOCHREALTIME: the run's start, end; the sweep's start")
    outcome = p.add_mutually_exclusive_group(required=True)
    outcome.add_argument("--exit-code", type=int, help="a runtime ping's exit status: Python judges the point")
    outcome.add_argument("--status", choices=["ok", "failed", "skipped"])
    p.add_argument("--message", default=None)
    p.add_argument("--tail", action="append", default=[], help="a stderr file to show if the run failed")
    p.add_argument("--cpu", nargs=4, metavar=("STAT0", "STAT1", "TIMES0", "TIMES1"),
                   help="/proc/stat's cpu line at the run's start and end, and files of bash's `times` then")
    p = command("interrupt", cmd_interrupt)
    p.add_argument("--signal", required=True)
    p.add_argument("--index", type=int, default=None, help="the run that was running")
    p = command("finish", cmd_finish)
    p.add_argument("--since", required=True)
    p.add_argument("--now", required=True)
    command("pongs", cmd_pongs)
    p = command("serving", cmd_serving)
    p.add_argument("--bind", required=True)
    p.add_argument("--unserved", action="append", default=[], metavar="PREFIX",
                   help="a runtime whose pong could not start: io_uring is unavailable")
    command("unavailable", cmd_unavailable, state_file=False).add_argument(
        "--tail", action="append", default=[], help="a stderr file that may say io_uring is unavailable")
    return top


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    if args.command != "finish":
        # A Ctrl-C reaches the whole process group; the script's trap handles it, once this step
        # (milliseconds of bookkeeping) has finished instead of leaving a traceback.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    return args.func(args)
