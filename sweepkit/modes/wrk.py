"""MODE=wrk, the external cross-check of the HTTP figures: wrk and the suite's own ping, each against a fresh HTTP pong.

Two kinds of point per runtime: `wrk` runs `wrk -t1 -c50 -dDURATION --latency` with sweepkit/wrk_echo.lua
(the suite's ping's request, POST /echo) and keeps its report as STEM.json (sweepkit/wrk_log.py); `wrk-ping`
runs the runtime's own ping over http, closed loop, back-to-back, 50 connections. Each pong is the runtime's
`--protocol http --connections 64`; every process is pinned as a sweep's are.
"""

import os
import shutil
import time
from pathlib import Path

from suite import fmt as style
from suite import runtimes

from .. import commands, disturbance, plan, procs, space, state, table, wrk_log
from .. import spec as spec_mod
from ..checks import DECIMAL, payload
from ..outcome import Outcome
from ..selection import flag_list, has_pong
from ..spec import Spec
from .base import CSV_ROW_BYTES, JSON_BYTES, Mode
from .rtt import Rtt

THREADS = 1  # wrk -t1: one thread doing epoll, the tokio write-up's setting
CLIENT_CONNECTIONS = 50  # wrk -c50, and the suite's ping --connections 50
PONG_CONNECTIONS = 64  # each pong's --connections: room for the 50
SCRIPT = Path(__file__).resolve().parents[1] / "wrk_echo.lua"
HTTP_PER_S = 150_000  # requests a second over 50 connections, for the space estimate (hyper's hello world: 114–152 k)
WRK_LOG_BYTES = 4000  # its figures and its raw report
# The knobs of a rtt sweep that a cross-check does not use: its points are fixed (http, back-to-back, 50 connections).
NOT_WRK = ("INTERVALS", "SIZES", "PROTOCOLS", "TASKS", "CONNECTIONS", "LOAD")


def _series(point) -> tuple[str, str | None]:
    """(framework, variant) of a point, as a log names them: the runtime its binaries are, and the variant's label."""
    base = next((e.label for e in runtimes.runtimes() if e.binary_prefix == point.binary), point.framework)
    return base, (point.framework if point.framework != base else None)


class Wrk(Mode):
    kind = "wrk"
    figure_keys = ("req_per_s", "p50_ns")
    overhead_guess_s = 0.3  # a pong's start and stop, and wrk's: a guess, the ETA learns the real one
    header = ["framework", "client", "run", "requests", "req/s", "mean µs", "p50 µs", "p99 µs", "errors", "flagged"]
    stem_suffix = "-wrk"
    one_host = "drives this host's pongs with wrk"

    # -- the checks of MODE=wrk, at the entry --------------------------------------------------------
    def defaults(self) -> dict[str, str]:
        # Six rounds: the fewest whose medians have a distribution-free 95 % interval (ranks 1 and 6 of 6);
        # 3 s each, since wrk takes whole seconds and the spread is between processes, not within one. Both
        # clients measure from their start: wrk has no warm-up, so the ping gets none either.
        return {"REPEATS": "6", "DURATION": "3", "WARMUP": "0", "WRK": "wrk"}

    def fields(self, k: dict[str, str]) -> dict:
        return spec_mod.network_fields(k) | {"size": int(k["SIZE"]), "intervals": ("0",), "protocols": ("http",),
                                             "wrk": k["WRK"]}

    def check_measure(self, k: dict, problems: list[str]) -> None:
        """SIZE, the body of both clients' POST, as MODE=rtt's; DURATION in whole seconds (wrk -d takes no
        fraction); WRK found on PATH and recorded as the path that runs (a missing one is no problem: the
        entry skips the sweep with a note)."""
        size = payload(k["SIZE"], 8, 10**9)
        if size is None:
            problems.append(f"SIZE='{k['SIZE']}': expected bytes >= 8 (the body of both clients' POST /echo)")
        else:
            k["SIZE"] = str(size)
        duration = k["DURATION"]
        if DECIMAL.fullmatch(duration) and float(duration) > 0:
            if float(duration).is_integer():
                k["DURATION"] = str(int(float(duration)))
            else:
                problems.append(f"DURATION='{duration}': MODE=wrk takes whole seconds (wrk -d has no fraction), e.g. 3")
        if k["WRK"]:
            k["WRK"] = shutil.which(k["WRK"]) or k["WRK"]

    def warn(self, result) -> None:
        """The rtt knobs given; the references (-P, -B), which serve no HTTP, are left out."""
        unused = [knob for knob in NOT_WRK if knob in result.given]
        if unused:
            result.warnings.append(f"{', '.join(unused)} {'does' if len(unused) == 1 else 'do'} not apply to MODE=wrk: "
                                   f"each runtime's HTTP pong is driven back-to-back over {CLIENT_CONNECTIONS} "
                                   "connections by wrk and by its own ping")
        for reference in [e for e in result.selection if not e.is_runtime]:
            result.selection.remove(reference)
            why = f"-{reference.flag}: {reference.label} is a reference, not a runtime's HTTP server"
            if not result.selection and not result.variants:
                runtimes_with_pongs = [e for e in runtimes.runtimes() if has_pong(e)]
                result.usage = f"{why}; with MODE=wrk choose {flag_list(runtimes_with_pongs)}"
                return
            result.warnings.append(f"{why}; skipped with MODE=wrk")

    def unavailable(self, spec: Spec) -> str | None:
        if os.path.isabs(spec.wrk) and os.access(spec.wrk, os.X_OK):
            return None
        return (f"MODE=wrk skipped: wrk is not installed (no '{spec.wrk}' on PATH; Debian: apt-get install wrk, "
                "or WRK=/path/to/wrk); nothing was run")

    # -- a wrk point --------------------------------------------------------------------------------
    def limit_s(self, spec: Spec, point=None) -> float:
        return spec.duration.s + spec.ping_grace.s

    def run_estimate_s(self, point, spec: Spec) -> float:
        return spec.duration.s + self.overhead_guess_s

    def measure(self, sweep, run) -> Outcome:
        """A fresh pong, then wrk against it, pinned as a ping; its report becomes STEM.json."""
        point, spec = run.point, sweep.spec
        pong_err, out, err = sweep.tmp / "pong.err", sweep.tmp / "wrk.out", sweep.tmp / "wrk.err"
        try:
            target, why = sweep.pongs.start(point.binary, point.transport, point.end_args("pong"), point.port, pong_err,
                                            point.bin_dir)
            if target is None:
                return Outcome(status="failed", message=f"pong not ready: {why}", tails=(pong_err,))
            url = f"http://{target}/echo"
            argv = commands.wrk(spec.wrk, url, spec.duration, spec.size, SCRIPT, THREADS, CLIENT_CONNECTIONS,
                                sweep.ends.prefix["ping"])
            now = time.time()
            started = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now * 1000) % 1000:03d}Z"
            ends = {}
            code = procs.run(argv, out, err, self.limit_s(spec),
                             at=(sweep.probe_s(), lambda pid: ends.update(ping=disturbance.threads(pid),
                                                                          pong=sweep.pongs.threads())))
            framework, variant = _series(point)
            facts = {"framework": framework, "variant": variant, "address": target, "url": url, "method": "POST",
                     "path": "/echo", "body_bytes": spec.size, "threads": THREADS, "connections": CLIENT_CONNECTIONS,
                     "duration_s": int(spec.duration.s), "started_at": started, "client_version": wrk_log.version(spec.wrk),
                     "command": [str(a) for a in argv[len(sweep.ends.prefix["ping"]):]]}
            text = out.read_text(encoding="utf-8", errors="replace") if out.is_file() else ""
            stem = sweep.out(run).with_name(f"{run.stem}.json")
            try:
                wrk_log.write(stem, wrk_log.log(text, code, facts))
            except OSError as error:
                raise space.from_os_error(stem, error) from None
            return sweep.ended(Outcome(exit_code=code, tails=(out, err, pong_err), ends=ends))
        finally:
            sweep.pongs.stop()

    def judge(self, exit_code: int, limit_s: str, stem) -> tuple[str, str | None]:
        """ok, or failed with wrk's reason; an ok run with socket errors or non-2xx replies is flagged in its message."""
        if exit_code in state.TIMED_OUT:
            return "failed", f"wrk timed out after {limit_s} s"
        log = table.read(stem.with_name(f"{stem.name}.json"))
        if log is None:
            return "failed", f"wrk exited with status {exit_code} and no log was written"
        if not log.get("complete"):
            return "failed", log.get("error") or f"wrk exited with status {exit_code}"
        return "ok", ("flagged: " + "; ".join(log["flags"])) if log.get("flagged") else None

    def run_bytes(self, point, spec: Spec) -> int:
        return WRK_LOG_BYTES

    def result(self, run: dict, connections: int | None) -> str:
        rate, p50 = run["req_per_s"], run["p50_ns"]
        flagged = f"   {run['message']}" if run.get("message") else ""
        return table.progress(p50, rate, "req/s (wrk)") + flagged

    # -- its logs -----------------------------------------------------------------------------------
    def figures(self, log: dict) -> tuple:
        """wrk's requests per second and p50 latency (ns)."""
        return log.get("req_per_s"), (log.get("latency_ns") or {}).get("p50")

    def row(self, log: dict, run: str = table.UNKNOWN) -> list[str]:
        latency, errors = log.get("latency_ns") or {}, log.get("errors") or {}
        return [table.series(log), "wrk", run, table.count(log.get("requests")), table.si(log.get("req_per_s")),
                *(style.us(latency.get(p)) for p in ("mean", "p50", "p99")),
                table.count(sum(errors.values()) if errors else None),
                "yes" if log.get("flagged") else ("incomplete" if not log.get("complete") else "")]

    # -- a sweep of MODE=wrk ------------------------------------------------------------------------
    def points(self, spec: Spec, selection, variants) -> list:
        """Each runtime and variant twice: wrk's point, then its own ping's, both against a pong with --connections 64."""
        lines = plan.network_points(spec, [e for e in selection if e.is_runtime], [(spec.size, "0")], variants)
        both, pong = (("connections", CLIENT_CONNECTIONS),), ("--connections", str(PONG_CONNECTIONS))
        return [plan.Point(p.framework, p.binary, p.transport, p.payload, p.interval, mode, both, p.port,
                           ping_args=(*p.ping_args, *ping), pong_args=(*p.pong_args, *pong), bin_dir=p.bin_dir)
                for p in lines for mode, ping in ((self, ()), (PING, ("--connections", str(CLIENT_CONNECTIONS))))]

    def each(self, spec: Spec, points: list[dict]) -> str:
        warmup = f"{spec.warmup} s warm-up + " if spec.warmup.s else ""
        return f"{warmup}{spec.duration} s measured (wrk, or the runtime's own HTTP ping)"

    def plan_lines(self, spec: Spec) -> list[str]:
        return [f"  per runtime, each against a fresh HTTP pong (--connections {PONG_CONNECTIONS}): "
                f"wrk -t{THREADS} -c{CLIENT_CONNECTIONS} -d{spec.duration} --latency (POST /echo, {spec.size} B: "
                f"{SCRIPT.name}), and its own ping --protocol http --connections {CLIENT_CONNECTIONS} --interval 0"]

    def closing_command(self) -> list[str]:
        return ["wrk"]


class WrkPing(Rtt):
    """The suite's own ping in a cross-check: a rtt run over http, back-to-back, its connections in its point's
    ping arguments (no dimension is swept here, so both ends' --connections are the mode's)."""

    kind = "wrk-ping"

    def run_bytes(self, point, spec: Spec) -> int:
        return int(spec.measured_s * HTTP_PER_S * CSV_ROW_BYTES) + JSON_BYTES


MODE = Wrk()
PING = WrkPing()
