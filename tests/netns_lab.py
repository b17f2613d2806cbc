"""Two hosts on one machine for the run-network.sh tests: network namespaces A and B joined by a
veth pair, with an sshd (Debian openssh-server) in B that accepts a key made for the test.

Every name carries a random suffix, so runs never collide; `down()` removes all of it (the
processes in B are ours: the namespace is) and is safe to call after a partial `up()`.

    lab = Lab(tmp_dir); lab.up()       # needs root, `ip netns`, /usr/sbin/sshd, ssh-keygen
    lab.run_in_a([...]); lab.down()
"""

import os
import secrets
import shutil
import signal
import subprocess
import time
from pathlib import Path

SSHD = "/usr/sbin/sshd"


def missing_prerequisites():
    """Why the lab cannot be built here, or None."""
    if os.geteuid() != 0:
        return "needs root (network namespaces, sshd)"
    for tool in ("ip", "ssh", "ssh-keygen"):
        if not shutil.which(tool):
            return f"no {tool} on PATH"
    if not os.access(SSHD, os.X_OK):
        return f"no {SSHD} (Debian: apt-get install openssh-server)"
    probe = f"rtt-probe-{secrets.token_hex(3)}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"`ip netns add` fails here: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def sh(*args, **kwargs):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kwargs)


class Lab:
    def __init__(self, work_dir, subnet="10.203.7"):
        tag = secrets.token_hex(3)
        self.dir = Path(work_dir)
        self.ns_a, self.ns_b = f"rtt-a-{tag}", f"rtt-b-{tag}"
        self.veth_a, self.veth_b = f"rtva{tag}", f"rtvb{tag}"
        self.addr_a, self.addr_b = f"{subnet}.1", f"{subnet}.2"
        self.sshd = None
        self.ssh_opts = ""

    # -- setup ---------------------------------------------------------------------------------
    def up(self):
        self.dir.mkdir(parents=True, exist_ok=True)
        sh("ip", "netns", "add", self.ns_a)
        sh("ip", "netns", "add", self.ns_b)
        sh("ip", "link", "add", self.veth_a, "netns", self.ns_a, "type", "veth",
           "peer", "name", self.veth_b, "netns", self.ns_b)
        for ns, dev, addr in ((self.ns_a, self.veth_a, self.addr_a),
                              (self.ns_b, self.veth_b, self.addr_b)):
            sh("ip", "-n", ns, "addr", "add", f"{addr}/30", "dev", dev)
            sh("ip", "-n", ns, "link", "set", dev, "up")
            sh("ip", "-n", ns, "link", "set", "lo", "up")
        self._start_sshd()
        return self

    def _start_sshd(self):
        d = self.dir
        sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "rtt-lab-host", "-f", str(d / "host_key"))
        sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "rtt-lab-client", "-f", str(d / "client_key"))
        (d / "authorized_keys").write_text((d / "client_key.pub").read_text())
        host_pub = (d / "host_key.pub").read_text().split()
        (d / "known_hosts").write_text(f"{self.addr_b} {host_pub[0]} {host_pub[1]}\n")
        (d / "sshd_config").write_text("\n".join([
            f"ListenAddress {self.addr_b}", "Port 22", f"HostKey {d / 'host_key'}",
            f"PidFile {d / 'sshd.pid'}", f"AuthorizedKeysFile {d / 'authorized_keys'}",
            "PermitRootLogin prohibit-password", "PasswordAuthentication no",
            "KbdInteractiveAuthentication no", "UsePAM no", "StrictModes no", "PrintMotd no",
            "UseDNS no", "MaxStartups 100", "",
        ]))
        # sshd insists on it at every connection; the Debian service makes it and so do we, and we
        # leave it: removing it at one lab's `down()` cut off every other lab's sshd still serving.
        Path("/run/sshd").mkdir(mode=0o755, parents=True, exist_ok=True)
        log = open(d / "sshd.log", "w")
        self.sshd = subprocess.Popen(
            ["ip", "netns", "exec", self.ns_b, SSHD, "-D", "-e", "-f", str(d / "sshd_config")],
            stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        deadline = time.monotonic() + 10
        while "Server listening" not in (d / "sshd.log").read_text():
            if self.sshd.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"sshd did not start:\n{(d / 'sshd.log').read_text()}")
            time.sleep(0.02)
        self.ssh_opts = " ".join([
            "-F", "/dev/null", "-i", str(d / "client_key"), "-o", "IdentitiesOnly=yes",
            "-o", f"UserKnownHostsFile={d / 'known_hosts'}", "-o", "GlobalKnownHostsFile=/dev/null",
            "-o", "StrictHostKeyChecking=yes", "-o", "LogLevel=ERROR", "-o", "ConnectTimeout=3",
        ])

    # -- use -----------------------------------------------------------------------------------
    def pids(self, ns):
        out = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout
        return {int(p) for p in out.split()}

    def strays(self):
        """Processes left in either namespace, besides the sshd listener."""
        keep = {self.sshd.pid} if self.sshd else set()
        return (self.pids(self.ns_a) | self.pids(self.ns_b)) - keep

    def in_ns(self, ns, argv):
        return ["ip", "netns", "exec", ns, *argv]

    # -- teardown ------------------------------------------------------------------------------
    def down(self):
        for ns in (self.ns_a, self.ns_b):
            for pid in self.pids(ns):  # only our own processes live in our namespaces
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        if self.sshd:
            self.sshd.wait(timeout=10)
        for ns in (self.ns_a, self.ns_b):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        for name in ("host_key", "client_key"):
            for suffix in ("", ".pub"):
                (self.dir / f"{name}{suffix}").unlink(missing_ok=True)
