"""run-localhost.sh and run-network.sh, whole: their arguments, the order of the steps, and their exit statuses.

  sweep.py localhost PROG [ARGS...]   what run-localhost.sh runs (PROG: its name, for messages)
  sweep.py network PROG [ARGS...]     what run-network.sh runs
  sweep.py help [--network]           the flags and knobs part of the scripts' -h

Exit statuses: 0 done; 1 a run failed, a binary is missing, a host is not ready or a log could not be
written; 2 a flag or knob is wrong; 128 + N after signal N (130 for Ctrl-C, 143 for SIGTERM; 141 when
stdout's reader went away).
"""

import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

from . import checks, commands, entry, hostfacts, local, modes, network, pr, prepare, procs, resume, signals, space
from . import syscheck, usage
from .arguments import Usage, localhost_args, network_args
from . import knobs as knobs_mod
from .defaults import SUITE_DIR
from .pongs import LocalPongs, PeerPongs
from .runner import Sweep
from .spec import Spec
from .state import hosts

def dry_run_ends(spec: Spec) -> None:
    """DRY_RUN=1: the plan (its seed and estimated time included) was the whole job."""
    if spec.dry_run:
        print(f"DRY_RUN=1: nothing was started and nothing written; run again without DRY_RUN (or SEED={spec.seed} "
              "for this order)")
        raise SystemExit(0)


def room_for_logs(prog: str, runs, spec: Spec) -> None:
    """Before the first run: OUT_DIR's file system holds what the sweep will write, or exit 1."""
    problem = space.lacking(runs, spec)
    if problem:
        print(f"{prog}: {problem}", file=sys.stderr)
        raise SystemExit(1)


def make_sweep_dir(prog: str, out_dir: str, name: str) -> Path:
    """OUT_DIR/NAME-YYYYmmdd-HHMMSS (a suffix if that second is taken)."""
    try:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
    except OSError:
        network.die(prog, f"cannot create OUT_DIR={out_dir}")
    base = Path(out_dir) / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}"
    for k in range(1, 101):
        folder = base if k == 1 else Path(f"{base}-{k}")
        try:
            folder.mkdir()
            return folder.resolve()
        except FileExistsError:
            continue
        except OSError:
            break
    network.die(prog, f"cannot create a folder in {out_dir}")


def facts_here(prog: str, bin_dir: str, nice: int, cpus: str, binaries: list[str]) -> dict:
    try:
        return dict(hostfacts.collect(str(SUITE_DIR), bin_dir, cpus, nice, binaries, procs.KEEP_FDS))
    except OSError:
        local.warn(prog, "could not read this machine's facts")
        return {}


def check_hosts(prog: str, role: str, given: dict | None, tmp: Path) -> int:
    """--check: this host's settings in its `role` (local, ping or pong), and with --remote B's, read through
    the preflight's ssh path; what TUNE does; the warnings a sweep would print. Runs nothing and writes
    nothing. The knobs are read, not checked (a sweep checks them): only the CPUs, NICE and TUNE matter here."""
    k, _ = knobs_mod.read(os.environ, network=given is not None)
    k["NICE"] = k["NICE"] if checks.NICENESS.fullmatch(k["NICE"]) else "0"
    cpus = {"ping": k["PING_CPUS"], "pong": k["PONG_CPUS"], "micro": k.get("MICRO_CPUS", "")}.get
    ends = {"local": modes.named(k["MODE"]).binary_ends(["pong", "ping"]), "ping": ["ping"], "pong": ["pong"]}
    pinned = {role: syscheck.pinned_ends(cpus, ends[role])}
    roles = {role: facts_here(prog, k["BIN_DIR"], int(k["NICE"]), ",".join(pinned[role].values()), [])}
    # A network sweep holds the idle states of the host that runs it, the ping's (local.hold_cpus_awake).
    tune = {"local": syscheck.tune_outlook(k["TUNE"]), "ping": syscheck.tune_outlook(k["TUNE"]),
            "pong": "not applied on the pong's host: a sweep holds the idle states of the host it runs on"}
    if role == "ping" and given.get("remote"):
        remote_dir = given.get("remote-dir") or str(SUITE_DIR)
        args = [remote_dir, f"{remote_dir}/target/release", k["PONG_CPUS"], k["NICE"]]
        roles["pong"] = network.remote_facts(prog, k["SSH_OPTS"], given["remote"], args, tmp)
        pinned["pong"] = syscheck.pinned_ends(cpus, ends["pong"])
    print(syscheck.report(hosts(roles), pinned, tune))
    return 0


def run_localhost(prog: str, argv: list[str], tmp: Path) -> int:
    flags, check, asked = localhost_args(prog, argv)
    if check:
        return check_hosts(prog, "local", None, tmp)
    environ, flags, pull = pr.applied(os.environ, flags, asked, SUITE_DIR)
    checked, spec, doc = entry.check(environ, flags, "localhost", ["ping", "pong"], prog)
    doc |= {"pr": pull.record()} if pull else {}
    mode = modes.of(spec.mode)
    unavailable = mode.unavailable(spec)
    if unavailable:  # not a failure: this host lacks what the MODE needs (wrk), and says so in one line
        print(f"{prog}: {unavailable}", file=sys.stderr)
        return 0
    ends = mode.binary_ends(["ping", "pong"])
    target, pinning = mode.local_target(spec)
    here, spec = local.setup(spec, ends, prog)
    pinned = syscheck.pinned_ends(spec.cpus, mode.binary_ends(["pong", "ping"]))  # after setup: one CPU is both ends'
    icmp = local.icmp_problem() if prepare.references(checked) else None
    runs, spec, plan_text = prepare.plan(doc, spec, icmp, prog)
    print("\n".join(plan_text), flush=True)
    dry_run_ends(spec)
    room_for_logs(prog, runs, spec)
    idle = local.hold_cpus_awake(spec.tune, prog)
    folder = make_sweep_dir(prog, spec.text("OUT_DIR"), f"pr-{pull.runtime}" if pull else "localhost")
    prefixes = prepare.measured_prefixes(checked, spec)
    facts = facts_here(prog, str(spec.bin_dir), spec.nice, ",".join(pinned.values()),
                       [f"{prefix}-{end}" for prefix in prefixes for end in ends])
    sweep = Sweep(prog, spec, doc, runs, folder, here, LocalPongs(spec, here.prefix["pong"]), tmp, "127.0.0.1",
                  local.suite_version(spec.bin_dir, prepare.all_prefixes(), SUITE_DIR))
    sweep.start({"kind": "localhost", "command": " ".join([prog, *argv]), "target": target, "pinning": pinning,
                 "nice": str(spec.nice) if here.nice else "not applied", "cpu_dma_latency": idle},
                syscheck.warn(prog, hosts({"local": facts}), {"local": pinned}))
    return sweep.run()


def run_network(prog: str, argv: list[str], tmp: Path) -> int:
    given = network_args(prog, argv)
    flags, how = given["flags"], given["mode"]
    if how == "check":  # this host is A (the pings'), or B with --serve
        return check_hosts(prog, "pong" if given["serve"] else "ping", given, tmp)
    one_host = modes.named(os.environ.get("MODE", "")).one_host
    if one_host:
        print(f"{prog}: MODE={os.environ['MODE']} {one_host}: use ./run-localhost.sh", file=sys.stderr)
        return 2
    if how == "serve":
        checked, spec, doc = entry.check(os.environ, flags, "serve", ["pong"], prog)
        here, spec = local.setup(spec, ["pong"], prog)
        return network.serve(prog, doc, spec, given.get("target") or "0.0.0.0", here.prefix["pong"], tmp)
    # Remote mode compares this host's pongs with B's, so it needs them too.
    ends = ["ping", "pong"] if how == "remote" else ["ping"]
    checked, spec, doc = entry.check(os.environ, flags, how, ends, prog)
    here, spec = local.setup(spec, ["ping"], prog)
    pinning = f"pong: {spec.pong_cpus or 'none'} (on B), ping: {spec.ping_cpus or 'none'}"
    ssh = commands.ssh(spec.ssh_opts, given.get("remote", ""))
    if how == "remote":
        remote = given["remote"]
        remote_dir = given.get("remote-dir") or str(SUITE_DIR)
        target = given.get("target") or network.ssh_hostname(spec.ssh_opts, remote) or remote.split("@", 1)[-1]
        b_name = remote.split("@", 1)[-1]
    else:
        target = b_name = given["peer"]
    references = prepare.references(checked)
    runs, spec, plan_text = prepare.plan(doc, spec, local.icmp_problem() if references else None, prog)
    if spec.dry_run:
        print("\n".join(plan_text))
        dry_run_ends(spec)
    prefixes = prepare.measured_prefixes(checked, spec)
    if how == "remote":
        pongs, pong_facts, remote_nice = network.prepare_remote(prog, spec, ssh, remote, remote_dir, target, tmp,
                                                                prefixes)
        meta = {"remote": remote, "remote_dir": remote_dir}
    else:
        network.preflight_peer(prog, doc, spec, target, references, prepare.runtime_flags(doc, spec), tmp)
        pongs, remote_nice, meta = PeerPongs(target), False, {}
        pong_facts = {"host": target, "address": target,
                      "note": "manual mode (--peer): facts of this host were not collected"}
    print("\n".join(plan_text), flush=True)
    room_for_logs(prog, runs, spec)
    idle = local.hold_cpus_awake(spec.tune, prog)
    folder = make_sweep_dir(prog, spec.text("OUT_DIR"), "network-" + "".join(
        c if c.isascii() and (c.isalnum() or c in "._-") else "_" for c in b_name))
    ping_facts = facts_here(prog, str(spec.bin_dir), spec.nice, spec.ping_cpus, [f"{p}-ping" for p in prefixes])
    sweep = Sweep(prog, spec, doc, runs, folder, here, pongs, tmp, target,
                  local.suite_version(spec.bin_dir, prepare.all_prefixes(), SUITE_DIR))
    nice = f"ping: {spec.nice if here.nice else 'not applied'}, pong: {spec.nice if remote_nice else 'not applied'}"
    sweep.start({"kind": "network", "mode": how, "command": " ".join([prog, *argv]), "target": target, **meta,
                 "pinning": pinning, "nice": nice, "cpu_dma_latency": f"ping host: {idle}; pong host: not asked"},
                syscheck.warn(prog, hosts({"ping": ping_facts, "pong": pong_facts}),
                              {"ping": syscheck.pinned_ends(spec.cpus, ["ping"]),
                               "pong": syscheck.pinned_ends(spec.cpus, ["pong"])}))
    return sweep.run()


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["help"]:
        print(usage.flags_and_knobs(network="--network" in argv))
        return 0
    if len(argv) < 2 or argv[0] not in ("localhost", "network"):
        print(__doc__, file=sys.stderr)
        return 2
    which, prog, args = argv[0], argv[1], argv[2:]
    signals.install(prog)
    tmp = Path(tempfile.mkdtemp(prefix="rtt-sweep."))
    try:
        go = resume.entry_point(which, args) or (run_localhost if which == "localhost" else run_network)  # --continue
        return go(prog, args, tmp)
    except Usage as problem:
        print(f"{prog}: {problem}\nTry {prog} -h.", file=sys.stderr)
        return 2
    except pr.Refused as problem:
        print(f"{prog}: {problem}\nNothing was started.", file=sys.stderr)
        return 2
    except signals.Stop as stop:
        return stop.code
    except space.WriteFault as fault:  # before the first run (the sweep's own are Sweep.run's)
        print(f"{prog}: {fault}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # stdout's reader is gone (`| head`): end quietly, as a shell script does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    finally:
        procs.stop_all()
        shutil.rmtree(tmp, ignore_errors=True)
