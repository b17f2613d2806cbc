"""run-network.sh's hosts: ssh to host B and its preflight, the pongs of --serve, and the check of a --peer's pongs."""

import shlex
import subprocess
import sys
import time
from pathlib import Path

from suite import runtimes, transports

from . import commands, modes, plan as plan_mod, procs, state, variants
from .pongs import LISTENING, RemotePongs
from .spec import Spec

HOSTFACTS = Path(__file__).resolve().parent / "hostfacts.py"


def die(prog: str, text: str, code: int = 1):
    print(f"{prog}: {text}", file=sys.stderr)
    raise SystemExit(code)


def last_line(path, count: int = 1) -> str:
    try:
        lines = Path(path).read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return " ".join(lines[-count:])


def tail_err(path, count: int = 5) -> None:
    """The last lines of a stderr file, indented, on stderr: why a pong did not start."""
    try:
        lines = Path(path).read_text(errors="replace").splitlines()
    except OSError:
        return
    for line in lines[-count:]:
        print(f"      | {line}", file=sys.stderr)


def ssh_hostname(ssh_opts, remote: str) -> str:
    """The host name ssh would connect to for REMOTE (its config applied), or ""."""
    try:
        done = subprocess.run(["ssh", "-G", *ssh_opts, remote], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    for line in done.stdout.splitlines() if done.returncode == 0 else []:
        key, _, value = line.partition(" ")
        if key == "hostname":
            return value.strip()
    return ""


def serve_pongs(doc: dict, spec: Spec) -> list[tuple]:
    """(label, binary, transport, port, pong arguments) of every pong of --serve/--peer, in the plan's order;
    each made ready for what it serves across every point (the mode's serve_ready: an RTT pong for the
    most connections of CONNECTIONS)."""
    points = plan_mod.build(spec, [runtimes.by_label(label) for label in doc["frameworks"]], None,
                            variants.from_records(doc.get("variants")))
    ready = modes.of(spec.mode).serve_ready(spec)
    return list(dict.fromkeys((p.framework, p.binary, p.transport, p.port, (*p.pong_args, *ready))
                              for p in points if p.binary))


def remote_facts(prog: str, ssh_opts: str, remote: str, args: list[str], tmp: Path) -> dict[str, str]:
    """B's hostfacts.py pairs (its settings included), the script sent over ssh on stdin with `args` (SUITE_DIR
    BIN_DIR CPUS NICE BINARY...); ssh that fails or B that cannot run it ends the sweep here."""
    print(f"Checking {remote} ...", flush=True)
    ssh, err = commands.ssh(ssh_opts.split(), remote), tmp / "ssh.err"
    if procs.run([*ssh, "true"], subprocess.DEVNULL, err, 60) != 0:
        die(prog, f"cannot reach {remote} with ssh in batch mode (SSH_OPTS='{ssh_opts}'): {last_line(err)}")
    with open(HOSTFACTS, "rb") as script, open(err, "wb") as errors:
        try:
            done = subprocess.run([*ssh, f"python3 - {shlex.join(args)}"], stdin=script, stdout=subprocess.PIPE,
                                  stderr=errors, timeout=120, pass_fds=procs.KEEP_FDS,
                                  preexec_fn=procs.dies_with_sweep())
        except subprocess.TimeoutExpired:
            die(prog, f"cannot read {remote}'s machine facts: no answer within 120 s")
    if done.returncode != 0:
        die(prog, f"cannot read {remote}'s machine facts: {last_line(err)}")
    return state.parse_tsv(done.stdout.decode(errors="replace"))


def preflight_remote(prog: str, spec: Spec, remote: str, remote_dir: str, tmp: Path, prefixes: list[str]) -> dict:
    """Before the first point: ssh works, B has the suite and the binaries, built from the same commit as
    here, and PONG_CPUS; returns B's facts, `nice_ok` saying whether B allows NICE. Any problem ends the
    sweep here."""
    bins = [f"{prefix}-pong" for prefix in prefixes]
    args = [remote_dir, f"{remote_dir}/target/release", spec.pong_cpus, str(spec.nice), *bins]
    facts = remote_facts(prog, spec.text("SSH_OPTS"), remote, args, tmp)
    if facts.get("dir_ok") != "yes":
        die(prog, f"there is no {remote_dir} on {remote}: check out the suite there at the same path as here, or "
                  "pass --remote-dir DIR")
    missing = [b for b in bins if facts.get(f"version:{b}", "missing") == "missing"]
    if missing:
        die(prog, f"{remote} has no {' '.join(missing)} in {remote_dir}/target/release: build there first "
                  f"(ssh {remote} 'cd {remote_dir} && make')")
    mismatch = []
    for b in bins:
        here = procs.output([spec.bin_dir / b, "--version"])
        if here != facts[f"version:{b}"]:
            mismatch.append(f"{b}: here '{here}', on {remote} '{facts[f'version:{b}']}'")
    if mismatch:
        print(f"{prog}: the binaries here and on {remote} were not built from the same commit:", file=sys.stderr)
        print(*(f"  {m}" for m in mismatch), sep="\n", file=sys.stderr)
        die(prog, f"check out the same commit on both hosts and run make on {remote} (cd {remote_dir} && make)")
    if facts.get("cpus_ok") != "yes":
        die(prog, f"PONG_CPUS={spec.pong_cpus} is not usable on {remote} (it may run on CPUs "
                  f"{facts.get('cpus_allowed') or '?'})", 2)
    if spec.nice != 0 and facts.get("nice_ok") != "yes":
        print(f"{prog}: warning: cannot run at NICE={spec.nice} on {remote} (needs root or CAP_SYS_NICE there): "
              "pongs at normal priority", file=sys.stderr)
    return facts


def prepare_remote(prog: str, spec: Spec, ssh: list[str], remote: str, remote_dir: str, target: str, tmp: Path,
                   prefixes: list[str]) -> tuple[RemotePongs, dict, bool]:
    """--remote: the preflight and the data-plane check; B's pongs (pinned and niced as B allows), B's facts,
    and whether B applies NICE."""
    facts = preflight_remote(prog, spec, remote, remote_dir, tmp, prefixes)
    niced = spec.nice != 0 and facts.get("nice_ok") == "yes"
    prefix = ((["taskset", "-c", spec.pong_cpus] if spec.pong_cpus else [])
              + (["nice", "-n", str(spec.nice)] if niced else []))
    pongs = RemotePongs(spec, ssh, remote, remote_dir, target, prefix)
    check_data_plane(prog, spec, pongs, prefixes, tmp)
    return pongs, facts | {"address": target, "ssh": remote}, niced


def check_data_plane(prog: str, spec: Spec, pongs: RemotePongs, prefixes: list[str], tmp: Path) -> None:
    """The data-plane address answers: a short real ping against a real pong (or ICMP, for -P alone)."""
    addr = pongs.target
    if not prefixes:
        if procs.run(["ping", "-n", "-c", "1", "-W", "3", addr], subprocess.DEVNULL, subprocess.DEVNULL, 10) != 0:
            die(prog, f"{addr} does not answer ICMP echo from here")
        return
    err = tmp / "pong.err"
    try:
        target, why = pongs.start(prefixes[0], "tcp", (), None, err)
        if target is None:
            pongs.stop()
            die(prog, f"cannot start a pong at {commands.hostport(addr, 0)}: {why}: {last_line(err, 2)} ")
        probe = commands.probe(spec, prefixes[0], target, "tcp", "0.2", udp_timeout=False)
        code = procs.run(probe, subprocess.DEVNULL, tmp / "probe.err", 20)
    finally:
        pongs.stop()
    if code != 0:
        die(prog, f"the data-plane address {addr} does not answer from here ({target}): {last_line(tmp / 'probe.err')}")
    print(f"{pongs.remote} answers on {addr}; its binaries match ours.", flush=True)


def preflight_peer(prog: str, doc: dict, spec: Spec, peer: str, references: list[str], flags: str, tmp: Path) -> None:
    """--peer: every pong the plan needs answers on its fixed port, in the sweep's MODE."""
    mode = modes.of(spec.mode).peer_mode()
    if spec.text("VARIANTS"):
        mode += f"VARIANTS={shlex.quote(spec.text('VARIANTS'))} "
    mode += modes.of(spec.mode).peer_ready(spec)
    print(f"Checking the pongs on {peer} ...", flush=True)
    bad = []
    for _label, binary, transport, port, _args in serve_pongs(doc, spec):
        target = commands.hostport(peer, port)
        probe = commands.probe(spec, binary, target, transport, "0.1")
        if procs.run(probe, subprocess.DEVNULL, tmp / "probe.err", 20) != 0:
            bad.append(f"{binary} {transport} on {target}: {last_line(tmp / 'probe.err')}")
    if bad:
        print(f"{prog}: no answer from these pongs:", *(f"  {b}" for b in bad), sep="\n", file=sys.stderr)
        die(prog, f"start them on {peer} with: {mode}BASE_PORT={spec.base_port} ./run-network.sh --serve {flags}")
    if references and procs.run(["ping", "-n", "-c", "1", "-W", "3", peer], subprocess.DEVNULL,
                                subprocess.DEVNULL, 10) != 0:
        print(f"{prog}: warning: {peer} does not answer ICMP echo: the ICMP points will fail", file=sys.stderr)


def serve(prog: str, doc: dict, spec: Spec, bind: str, prefix: list[str], tmp: Path) -> int:
    """--serve: one pong per framework and protocol, on fixed ports, until a signal. A pong that says io_uring
    is unavailable here is left out (its runtime is not served, and host A is told so); another pong that
    does not start, or one that exits later, ends it with status 1."""
    serving, unserved = [], []
    try:
        for _label, binary, transport, port, args in serve_pongs(doc, spec):
            if binary in unserved:
                continue
            err = tmp / f"{binary}-{transport}-{port}.err"
            address = commands.hostport(bind, port)
            child = procs.Child(commands.pong(spec.bin_dir, binary, transport, address, args, spec, prefix),
                                stdout=subprocess.PIPE, stderr=err)
            serving.append((child, err))
            if child.await_line(LISTENING, spec.ready_timeout.s)[0] == 0:
                continue
            why = state.unavailable([err])
            if why is None:
                print(f"{prog}: {binary}-pong ({transport}) did not start on {address}:", file=sys.stderr)
                tail_err(err)
                return 1
            print(f"{prog}: warning: {binary}-pong is not served: {why}", file=sys.stderr)
            child.stop(5)
            serving.pop()
            unserved.append(binary)
        if not serving:
            die(prog, "no pong could be started here")
        print("\n".join(serving_lines(doc, spec, bind, unserved)), flush=True)
        while all(child.proc.poll() is None for child, _ in serving):  # until a signal, or a pong dies
            time.sleep(0.2)
        child, err = next((c, e) for c, e in serving if c.proc.poll() is not None)
        print(f"{prog}: a pong (PID {child.pid}) exited; stopping the others", file=sys.stderr)
        tail_err(err)
        return 1
    finally:
        for child, _ in serving:
            child.stop(5)


def serving_lines(doc: dict, spec: Spec, bind: str, unserved: list[str]) -> list[str]:
    """The table of the pongs' addresses and the command for host A."""
    pong_mode = " ".join(modes.of(spec.mode).pong_mode())
    mode = f" ({pong_mode})" if pong_mode else ""
    protocols = list(dict.fromkeys(spec.protocols))
    lines = [f"Serving{mode} (Ctrl-C or SIGTERM stops every pong):",
             ("  " + "".join(f"{cell:<10}" for cell in ["framework", *protocols])).rstrip()]
    ports = {(label, transport): port for label, binary, transport, port, _args in serve_pongs(doc, spec)
             if binary not in unserved}
    for label in dict.fromkeys(label for label, _ in ports):
        lines.append((f"  {label:<10}" + "".join(f"{commands.hostport(bind, ports[label, p]):<22}"
                                                 for p in protocols)).rstrip())
    frameworks = doc["frameworks"]
    if unserved:  # io_uring is unavailable here: host A leaves those runtimes out
        frameworks = [label for label in frameworks if runtimes.by_label(label).binary_prefix not in unserved]
        lines.append(f"Not served (io_uring is unavailable here): {', '.join(unserved)}")
    prefix = modes.of(spec.mode).peer_mode()
    if spec.text("VARIANTS").split():  # host A plans the same ports only with the same variants
        prefix += f"VARIANTS={shlex.quote(spec.text('VARIANTS'))} "
    if any(transports.port_block(p, protocols) for p in protocols):  # HTTP beside TCP: A plans the same ports
        prefix += f"PROTOCOLS={shlex.quote(' '.join(protocols))} "
    prefix += modes.of(spec.mode).peer_ready(spec)
    flags = "".join(runtimes.by_label(label).flag for label in frameworks)
    lines.append(f"On host A: {prefix}BASE_PORT={spec.base_port} ./run-network.sh --peer <this host's address>"
                 + (f" -{flags}" if flags else ""))
    return lines
