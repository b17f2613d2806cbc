"""The icmp kind, the rtt kind's reference: the system ping at a point's interval, its output converted to a log pair."""

import signal
import subprocess
import time

from .. import commands, disturbance, icmp_log, procs
from ..outcome import Outcome
from ..spec import Spec
from .rtt import Rtt

# The system ping is stopped this long after warm-up + duration, for the replies to the window's last
# echoes: they come within a millisecond over loopback or a LAN, and a reply slower than this to one of the
# last echoes is left out. It was 0.5 s, a fifth of a default sweep's time (four ICMP points a round).
ICMP_TAIL_S = 0.1


class Icmp(Rtt):
    kind = "icmp"
    # Its tail (ICMP_TAIL_S), the one-echo probe and the conversion of its output (docs/sweeps.md, "Time").
    overhead_guess_s = 0.15

    def limit_s(self, spec: Spec, point=None) -> float:
        return spec.measured_at(point and point.interval) + ICMP_TAIL_S

    def why_skipped(self, point, spec: Spec, icmp_unusable: str | None) -> str | None:
        problem = self.problem(spec, icmp_unusable)
        if problem:
            return problem
        ms = float(point.interval) * 1000
        if abs(ms - round(ms)) > 1e-6:  # iputils keeps whole ms: 0.0001 would go out back-to-back
            return f"iputils ping paces in whole milliseconds, so it cannot send every {point.interval} s"
        return None

    def problem(self, spec: Spec, unusable: str | None) -> str | None:
        """Why no ICMP point can run at all: what sweepkit.local found about the system ping, or SIZE."""
        if unusable:
            return unusable
        if spec.size < 16:
            return f"SIZE={spec.size}: ping reports an RTT only for payloads of 16 bytes or more"
        return None

    def run_fields(self) -> dict:
        return dict.fromkeys(self.figure_keys)  # one stream of echoes: no connection starves

    def why_empty(self, log: dict) -> str:
        """The kernel answers ICMP: no pong, no counters; what is known is that ping got replies, none in the window."""
        return "no echo reply in its window, only outside it"

    def measure(self, sweep, run) -> Outcome:
        """The system ping at the point's interval, its output converted to the suite's log pair."""
        interval, size, addr = run.point.interval, str(sweep.spec.size), sweep.icmp_addr
        probe = sweep.tmp / "icmp-probe.err"
        if procs.run(commands.system_ping_probe(interval, size, addr), subprocess.DEVNULL, probe, 10) != 0:
            lines = [line for line in probe.read_text(errors="replace").splitlines() if line]
            why = lines[-1] if lines else ""
            if "interval" in why or "flood" in why:
                message = f"ping may not send every {interval} s as this user ({why}); run as root for it"
            else:
                message = f"ping {addr} fails: {why or 'no reply'}"
            return Outcome(status="skipped", message=message)
        raw, err = sweep.folder / f".{run.stem}.ping-output", sweep.tmp / "ping.err"
        ends = {}
        now = time.time()
        started = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now * 1000) % 1000:03d}Z"
        try:
            # ping stops at SIGINT and prints its statistics; the limit leaves time for the last replies.
            limit_s = self.limit_s(sweep.spec, run.point)
            code = procs.run(commands.system_ping(interval, size, addr, sweep.ends.prefix["ping"], limit_s + 10), raw,
                             err, limit_s, sig=signal.SIGINT,
                             at=(sweep.probe_s(run.point), lambda pid: ends.update(ping=disturbance.threads(pid))))
            if code not in (0, procs.TIMED_OUT):
                with open(err, "a", encoding="utf-8") as errors:
                    print(f"ping exited with status {code}", file=errors)
            converted = sweep.convert(raw, sweep.out(run), err, interval, started, code)
        finally:
            raw.unlink(missing_ok=True)
        if converted in (0, icmp_log.EMPTY):  # a whole log; one with no reply in its window is measured again
            return sweep.ended(Outcome(status="ok", ends=ends))
        return sweep.ended(Outcome(status="failed", message=f"ICMP ping to {addr} gave no usable replies",
                                   tails=(err,)))


MODE = Icmp()
