"""The whole command line of each end of a run (pong, ping, system ping, micro benchmark): built here only."""

# `prefix` is what goes before the binary on this host: taskset and nice (sweepkit.local.Ends).
# A remote pong's command is the same list, quoted for B's login shell by `remote_pong`. What a kind
# of point adds (--interval, --mode throughput) is its mode's, which the point and the spec carry (sweepkit.modes
# sits above this module: it builds its commands here).

import shlex
from pathlib import Path

from .spec import Spec


def pong(bin_dir, binary: str, transport: str, address: str, args, spec: Spec, prefix=()) -> list[str]:
    """BINARY-pong on ADDRESS (port 0: any) with a point's pong arguments (Point.end_args) and PONG_EXTRA;
    BIN_DIR is B's for a remote pong."""
    return [*prefix, str(Path(bin_dir) / f"{binary}-pong"), "--address", address, "--protocol", transport,
            *spec.sweep_mode.pong_mode(), *args, *spec.pong_extra]


def ping(spec: Spec, point, target: str, stem: Path, prefix=(), pong_pid: int | None = None) -> list[str]:
    """A runtime's ping of one run against the pong at TARGET, writing STEM.json and STEM.csv; what it
    measures (--interval, --mode throughput) is its point's mode's. It counts what it did, and the pong's
    PONG_PID's (one on this host), as COUNTERS says."""
    counting = {"0": ["--no-counters"], "all": ["--all-counters"]}.get(spec.counters, [])
    if pong_pid is not None and spec.counters != "0":
        counting += ["--pong-pid", str(pong_pid)]
    return [*prefix, str(Path(point.bin_dir or spec.bin_dir) / f"{point.binary}-ping"), *point.mode.ping_measure(point),
            *counting,
            "--address", target,
            "--protocol", point.transport, "--size", str(point.payload), "--duration", str(spec.window(point.interval)),
            "--warmup", str(spec.warmup), *point.end_args("ping"), *spec.ping_extra, "--out", str(stem)]


def probe(spec: Spec, binary: str, target: str, transport: str, duration: str, udp_timeout: bool = True) -> list[str]:
    """A short ping that only checks a pong answers (run-network.sh's preflight); `udp_timeout`: give up on
    a lost UDP reply after 0.5 s."""
    return [str(spec.bin_dir / f"{binary}-ping"), "--address", target, "--protocol", transport,
            "--duration", duration, "--warmup", "0", *spec.sweep_mode.probe_measure(udp_timeout), "--json"]


def system_ping(interval: str, size: str, address: str, prefix=(), deadline_s: float | None = None) -> list[str]:
    """iputils ping with timestamps (-D), numeric, for the ICMP baseline; stopped by SIGINT. `deadline_s`: it also
    ends by itself then (-w), should the sweep die without stopping it: a set-user-ID or capable ping drops the
    parent-death signal (sweepkit.procs)."""
    deadline = ["-w", f"{deadline_s:.0f}"] if deadline_s is not None else []
    return [*prefix, "ping", "-D", "-n", "-i", interval, "-W", "1", *deadline, "-s", size, address]


def system_ping_probe(interval: str, size: str, address: str) -> list[str]:
    """One echo at that interval: may this user send that fast, and does ADDRESS answer?"""
    return ["ping", "-n", "-q", "-c", "1", "-W", "2", "-i", interval, "-s", size, address]


def wrk(binary: str, url: str, duration, size: int, script: Path, threads: int, connections: int,
        prefix=()) -> list[str]:
    """wrk against a pong's URL for `duration` whole seconds with its latency percentiles, its request made by
    `script` (sweepkit/wrk_echo.lua: POST /echo with a `size`-byte body, the suite's ping's request)."""
    return [*prefix, binary, f"-t{threads}", f"-c{connections}", f"-d{duration}", "--latency", "-s", str(script), url,
            "--", str(size)]


def micro(spec: Spec, point, stem: Path, prefix=()) -> list[str]:
    """A micro benchmark binary's run (MODE=micro), writing STEM.json."""
    return [*prefix, str(spec.bin_dir / f"{point.binary}-micro"), *point.args(spec), "--out", str(stem)]


def remote_pong(remote_dir: str, pong_argv: list[str], lifetime_s: float | None = None) -> str:
    """The command for B's login shell, whatever it is (sh, dash, bash; every word quoted with shlex): the
    pong in the background, its PID on stdout, and a reader that stops it at a line or EOF on stdin; the
    shell ends with the pong, with its status. So the pong also goes when the sweep or its ssh connection
    dies. A link that drops brings B no EOF: so the pong also ends after `lifetime_s` (coreutils' timeout,
    which passes a stop on to it), and the shell with it."""
    pong = pong_argv if lifetime_s is None else ["timeout", "-k", "2", f"{lifetime_s:.0f}", *pong_argv]
    # An asynchronous list reads /dev/null (POSIX): the reader gets stdin as descriptor 3.
    return "\n".join([f"cd {shlex.quote(remote_dir)} || exit 97", "exec 3<&0", f"{shlex.join(pong)} </dev/null &",
                      "pong=$!", 'echo "pid $pong"', '{ read -r line <&3; kill "$pong" 2>/dev/null; } &', "reader=$!",
                      'wait "$pong"', "status=$?", 'kill "$reader" 2>/dev/null', 'exit "$status"'])


def ssh(ssh_opts, remote: str) -> list[str]:
    """ssh in batch mode, the user's options first (for ssh, the first value of an option wins)."""
    return ["ssh", *ssh_opts, "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", "-o",
            "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3", remote]


def hostport(host: str, port) -> str:
    """HOST:PORT, an IPv6 address in brackets."""
    return f"[{host}]:{port}" if ":" in host and not host.startswith("[") else f"{host}:{port}"
