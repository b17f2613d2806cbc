"""Where a run's pong comes from: started here on loopback, started on host B over ssh, or already serving on a peer."""

# Each kind has start(binary, transport, args, port, stderr_path, bin_dir) -> (TARGET for the ping, None) or
# (None, why it is not ready), stop(), safe to call twice, threads(): the running pong's context
# switches and migrations, and pid(), which the ping counts, when it runs here. A pong is ready once it prints its
# `listening on ADDR:PORT (tcp)` line, within READY_TIMEOUT seconds.

import re
import subprocess
import time

from suite import transports

from . import commands, disturbance, procs
from .spec import Spec

LISTENING = re.compile(rf"listening on (.+):([0-9]+) \(({'|'.join(transports.SWEPT)})\)")
REMOTE_PID = re.compile(r"pid [0-9]+")
SSH_FAILED = 255  # ssh's own error (no connection), not the remote command's
LIFETIME_MARGIN_S = 10


class LocalPongs:
    """A fresh pong per run on 127.0.0.1, port 0."""

    def __init__(self, spec: Spec, prefix: list[str]):
        self.spec, self.prefix, self.child = spec, prefix, None

    def start(self, binary, transport, args, _port, err, bin_dir=None):
        """`bin_dir`: a version variant's build (Point.bin_dir); None: BIN_DIR."""
        argv = commands.pong(bin_dir or self.spec.bin_dir, binary, transport, "127.0.0.1:0", args, self.spec, self.prefix)
        try:
            self.child = procs.Child(argv, stdout=subprocess.PIPE, stderr=err)
        except OSError as error:
            return None, f"it cannot start: {error}"
        rc, found = self.child.await_line(LISTENING, self.spec.ready_timeout.s)
        if rc == 0:
            return f"{found[1]}:{found[2]}", None
        if rc == 1:
            return None, "it exited before listening"
        return None, f"no 'listening on' line within {self.spec.ready_timeout} s"

    def stop(self):
        if self.child is not None:
            child, self.child = self.child, None
            child.stop(5)

    def threads(self) -> dict | None:
        """The running pong's context switches and migrations (sweepkit.disturbance.threads)."""
        return disturbance.threads(self.child.pid) if self.child is not None else None

    def pid(self) -> int | None:
        """The running pong's PID, which the ping counts (taskset and nice exec it, so it is the child's)."""
        return self.child.pid if self.child is not None else None


class RemotePongs:
    """A fresh pong per run on host B, under a remote shell that stops it when a line or EOF comes on its
    stdin (commands.remote_pong): so the pong also goes when the sweep or its ssh connection dies. `dropped`:
    why the connection to B was lost during the last run, or None (sweepkit/retry.py)."""

    def __init__(self, spec: Spec, ssh: list[str], remote: str, remote_dir: str, target: str, prefix: list[str]):
        self.spec, self.ssh, self.remote, self.remote_dir = spec, ssh, remote, remote_dir
        self.target, self.prefix, self.child = target, prefix, None
        self.dropped: str | None = None
        # Past a run's longest measuring process and its pong's start, B ends the pong by itself.
        longest = max(spec.measured_at(interval) for interval in (*spec.intervals, None))
        self.lifetime_s = spec.ready_timeout.s + longest + spec.ping_grace.s + LIFETIME_MARGIN_S

    def start(self, binary, transport, args, _port, err, _bin_dir=None):
        argv = commands.pong(f"{self.remote_dir}/target/release", binary, transport,
                             commands.hostport(self.target, 0), args, self.spec, self.prefix)
        command = commands.remote_pong(self.remote_dir, argv, self.lifetime_s)
        self.dropped = None
        self.child = procs.Child([*self.ssh, command], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
        ready = self.spec.ready_timeout.s
        rc, _ = self.child.await_line(REMOTE_PID, ready)
        if rc == 0:
            rc, found = self.child.await_line(LISTENING, ready)
        if rc == 0:
            return commands.hostport(self.target, found[2]), None
        if rc == 1 and self.child.wait(5) == SSH_FAILED:
            self.dropped = f"ssh to {self.remote} failed"
            return None, f"{self.dropped} before the pong listened"
        if rc == 1:
            return None, f"the pong on {self.remote} exited before listening on {self.target}"
        return None, f"no 'listening on' line from {self.remote} within {self.spec.ready_timeout} s"

    def stop(self):
        if self.child is None:
            return
        child, self.child = self.child, None
        try:  # a line, then EOF: the remote shell kills its pong and ends, and ssh with it
            child.proc.stdin.write(b"stop\n")
            child.proc.stdin.close()
        except OSError:
            pass
        # Told to stop, ssh ends with the remote shell's status; ssh's own failure (255) or a signal means the
        # connection ended during the run (a loaded machine may let the ping fail before ssh's end is seen).
        ended = child.wait(10)
        if self.dropped is None and ended is not None and (ended == SSH_FAILED or ended < 0):
            self.dropped = f"the ssh connection to {self.remote} ended during the run (ssh's status {ended})"
        child.finish(10)

    def threads(self):
        return None  # it runs on host B

    def pid(self):
        return None  # on host B: the ping cannot count it

    def answers(self, within_s: float) -> bool:
        """Whether B answers over ssh again within `within_s` seconds (a try every few seconds)."""
        deadline = time.monotonic() + within_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            tried = time.monotonic()
            if procs.run([*self.ssh, "true"], subprocess.DEVNULL, subprocess.DEVNULL, min(left, 10)) == 0:
                return True
            time.sleep(max(0.0, min(deadline - time.monotonic(), 2 - (time.monotonic() - tried))))


class PeerPongs:
    """The pongs of `run-network.sh --serve` on the peer, one per runtime and transport on fixed ports."""

    def __init__(self, peer: str):
        self.peer = peer

    def start(self, _binary, _transport, _args, port, _err, _bin_dir=None):
        return commands.hostport(self.peer, port), None

    def stop(self):
        pass

    def threads(self):
        return None  # it runs on the peer

    def pid(self):
        return None  # on the peer: the ping cannot count it
