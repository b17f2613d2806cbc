"""The whole command line of each end of a run (pong, ping, system ping, micro benchmark): built here only."""

# `prefix` is what goes before the binary on this host: taskset and nice (sweepkit.local.Ends).
# A remote pong's command is the same list, quoted for B's login shell by `remote_pong`.

import shlex
from pathlib import Path


def mode_args(knobs: dict) -> list[str]:
    """The pong's --mode: throughput pongs count instead of echoing."""
    return ["--mode", "throughput"] if knobs["MODE"] == "throughput" else []


def pong(bin_dir, binary: str, transport: str, address: str, args, knobs: dict, prefix=()) -> list[str]:
    """BINARY-pong on ADDRESS (port 0: any) with a point's pong arguments (Point.end_args) and PONG_EXTRA."""
    return [*prefix, str(Path(bin_dir) / f"{binary}-pong"), "--address", address, "--protocol", transport,
            *mode_args(knobs), *args, *knobs["PONG_EXTRA"].split()]


def ping(bin_dir, point, target: str, stem: Path, knobs: dict, prefix=()) -> list[str]:
    """A runtime's ping of one run against the pong at TARGET, writing STEM.json and STEM.csv."""
    measure = ["--mode", "throughput"] if point.kind == "throughput" else ["--interval", point.interval]
    return [*prefix, str(Path(bin_dir) / f"{point.binary}-ping"), *measure, "--address", target,
            "--protocol", point.transport, "--size", str(point.payload), "--duration", knobs["DURATION"],
            "--warmup", knobs["WARMUP"], *point.end_args("ping"),
            *knobs["PING_EXTRA"].split(), "--out", str(stem)]


def probe(bin_dir, binary: str, target: str, transport: str, knobs: dict, duration: str,
          udp_timeout: bool = True) -> list[str]:
    """A short ping that only checks a pong answers (run-network.sh's preflight); `udp_timeout`: give up on
    a lost UDP reply after 0.5 s."""
    measure = ["--mode", "throughput"] if knobs["MODE"] == "throughput" else (
        ["--udp-timeout-ms", "500"] if udp_timeout else [])
    return [str(Path(bin_dir) / f"{binary}-ping"), "--address", target, "--protocol", transport,
            "--duration", duration, "--warmup", "0", *measure, "--json"]


def system_ping(interval: str, size: str, address: str, prefix=()) -> list[str]:
    """iputils ping with timestamps (-D), numeric, for the ICMP baseline; stopped by SIGINT."""
    return [*prefix, "ping", "-D", "-n", "-i", interval, "-W", "1", "-s", size, address]


def system_ping_probe(interval: str, size: str, address: str) -> list[str]:
    """One echo at that interval: may this user send that fast, and does ADDRESS answer?"""
    return ["ping", "-n", "-q", "-c", "1", "-W", "2", "-i", interval, "-s", size, address]


def micro(bin_dir, point, stem: Path, knobs: dict, prefix=()) -> list[str]:
    """A micro benchmark binary's run (MODE=micro), writing STEM.json."""
    return [*prefix, str(Path(bin_dir) / f"{point.binary}-micro"), *point.args(knobs), "--out", str(stem)]


def remote_pong(remote_dir: str, pong_argv: list[str]) -> str:
    """The command for B's login shell, whatever it is (sh, dash, bash; every word quoted with shlex): the
    pong in the background, its PID on stdout, then a wait for a line or EOF on stdin, which stops it. So
    the pong also goes when the sweep or its ssh connection dies."""
    return "\n".join([f"cd {shlex.quote(remote_dir)} || exit 97", f"{shlex.join(pong_argv)} </dev/null &",
                      "pong=$!", 'echo "pid $pong"', "read -r line", 'kill "$pong" 2>/dev/null', 'wait "$pong"'])


def ssh(ssh_opts: str, remote: str) -> list[str]:
    """ssh in batch mode, the user's options first (for ssh, the first value of an option wins)."""
    return ["ssh", *ssh_opts.split(), "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", "-o",
            "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3", remote]


def hostport(host: str, port) -> str:
    """HOST:PORT, an IPv6 address in brackets."""
    return f"[{host}]:{port}" if ":" in host and not host.startswith("[") else f"{host}:{port}"
