"""The runs in the plan's order: each kind of run, its record and progress line, a signal, a write error, the end."""

# A run is "current" until its ping (or system ping, or benchmark) has ended: a signal then removes
# its partial logs and marks it interrupted. Once it has ended its logs are final and it counts,
# even if a signal comes while its pong stops. Records are written with signals held
# (sweepkit.signals.held), so sweep.json is always whole.

import contextlib
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from . import commands, disturbance, icmp_log, local, noise, plan as plan_mod, procs, progress, signals, space, state, table
from .space import WriteFault


@dataclass
class Outcome:
    """How a run ended: a binary's exit status, judged with its logs by `state`; or a status and why."""

    exit_code: int | None = None
    status: str | None = None  # ok, failed or skipped, when there is no exit status to judge
    message: str | None = None
    tails: tuple = ()  # stderr files, shown when the run failed
    ends: dict | None = None  # each local end's threads late in the run (disturbance.threads), by end


class Sweep:
    """One sweep's folder, its sweep.json, its runs and how to start each run's pong (`pongs`: an object with
    start(binary, transport, args, port, stderr_path) -> (target, None) or (None, why), and stop(): sweepkit.pongs)."""

    def __init__(self, prog: str, doc: dict, runs: list, folder: Path, ends, pongs, tmp: Path, icmp_addr: str,
                 suite_version: str):
        self.prog, self.doc, self.runs, self.folder = prog, doc, runs, folder
        self.path = folder / "sweep.json"
        self.ends, self.pongs, self.tmp = ends, pongs, tmp
        self.icmp_addr, self.suite_version = icmp_addr, suite_version
        self.knobs = doc["knobs"]
        self.bin_dir = Path(self.knobs["BIN_DIR"])
        self.current: int | None = None  # the run being measured: its logs are not final
        self.pending: tuple | None = None  # (index, outcome, t0, cpu0) of a run that ended, not recorded yet
        self.run_start: tuple = ()  # the current run's start: time.time() and disturbance.snapshot()
        self.clock = time.time  # the wall clock of the records (a test's own, in tests)
        self.t0 = self.clock()
        self._ping_version: str | None = None

    def save(self) -> None:
        try:
            state.save(self.path, self.doc)
        except OSError as error:
            raise space.from_os_error(self.path, error) from None

    def start(self, meta: dict, hosts: dict) -> None:
        """sweep.json in the sweep's folder, with the run's facts."""
        self.doc |= meta | {"hosts": hosts, "status": "running", "started_at": state.utc_now(),
                            "estimated_s": progress.tidy(progress.estimate_s(self.doc))}
        with signals.held():
            self.save()

    def run(self) -> int:
        """Every run, then the summary: 0, or 1 if a run failed; a signal: its exit status; a write error: 1."""
        print(f"Logs: {self.folder}", flush=True)
        self.t0 = self.clock()
        try:
            for index, run in enumerate(self.runs):
                self.measure(index, run)
        except signals.Stop as stop:
            self.stopped(stop)
            return stop.code
        except WriteFault as fault:
            self.faulted(fault)
            return 1
        return self.finish()

    def measure(self, index: int, run: plan_mod.Run) -> None:
        self.current, self.pending = index, None
        self.run_start = (self.clock(), disturbance.snapshot())
        outcome = {"micro": self.run_micro, "icmp": self.run_icmp}.get(run.point.kind, self.run_point)(run)
        if self.current is not None:  # it ended before its binary ran (a pong not ready, a skipped ICMP point)
            self.ended(outcome)
        self.record()

    def ended(self, outcome: Outcome) -> Outcome:
        """The run's binary is over: its logs are final and the run counts, whatever comes next."""
        self.pending, self.current = (self.current, outcome, *self.run_start), None
        return outcome

    # -- the kinds of run --------------------------------------------------------------------------
    def run_point(self, run) -> Outcome:
        """A runtime's point (or a reference measured by the suite's binaries): a fresh pong, then a fresh ping."""
        point, pong_err = run.point, self.tmp / "pong.err"
        try:
            target, why = self.pongs.start(point.binary, point.transport, point.end_args("pong"), point.port, pong_err)
            if target is None:
                return Outcome(status="failed", message=f"pong not ready: {why}", tails=(pong_err,))
            ping_err = self.tmp / "ping.err"
            argv = commands.ping(self.bin_dir, point, target, self.folder / run.stem, self.knobs,
                                 self.ends.prefix["ping"])
            ends = {}
            code = procs.run(argv, self.tmp / "ping.out", ping_err, plan_mod.ping_limit_s(point.kind, self.knobs),
                             at=(self.probe_s(), lambda pid: ends.update(ping=disturbance.threads(pid),
                                                                          pong=self.pongs.threads())))
            return self.ended(Outcome(exit_code=code, tails=(ping_err, pong_err), ends=ends))
        finally:
            self.pongs.stop()

    def run_icmp(self, run) -> Outcome:
        """The system ping at the point's interval, its output converted to the suite's log pair."""
        interval, size, addr = run.point.interval, self.knobs["SIZE"], self.icmp_addr
        probe = self.tmp / "icmp-probe.err"
        if procs.run(commands.system_ping_probe(interval, size, addr), subprocess.DEVNULL, probe, 10) != 0:
            lines = [line for line in probe.read_text(errors="replace").splitlines() if line]
            why = lines[-1] if lines else ""
            if "interval" in why or "flood" in why:
                message = f"ping may not send every {interval} s as this user ({why}); run as root for it"
            else:
                message = f"ping {addr} fails: {why or 'no reply'}"
            return Outcome(status="skipped", message=message)
        raw, err = self.folder / f".{run.stem}.ping-output", self.tmp / "ping.err"
        ends = {}
        now = time.time()
        started = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now * 1000) % 1000:03d}Z"
        try:
            # ping stops at SIGINT and prints its statistics; the limit leaves time for the last replies.
            code = procs.run(commands.system_ping(interval, size, addr, self.ends.prefix["ping"]), raw, err,
                             plan_mod.ping_limit_s("icmp", self.knobs), sig=signal.SIGINT,
                             at=(self.probe_s(), lambda pid: ends.update(ping=disturbance.threads(pid))))
            if code not in (0, procs.TIMED_OUT):
                with open(err, "a", encoding="utf-8") as errors:
                    print(f"ping exited with status {code}", file=errors)
            converted = self.convert(raw, self.folder / run.stem, err, interval, started, code)
        finally:
            raw.unlink(missing_ok=True)
        if converted == 0:
            return self.ended(Outcome(status="ok", ends=ends))
        return self.ended(Outcome(status="failed", message=f"ICMP ping to {addr} gave no usable replies",
                                  tails=(err,)))

    def convert(self, raw: Path, stem: Path, err: Path, interval: str, started: str, code: int) -> int:
        """sweepkit/icmp_log.py in this process, its messages into `err`: 0 when it wrote a usable log pair. A
        write error stops the sweep; any other failure of the converter fails this run only."""
        k = self.knobs
        args = [str(raw), str(stem), "--interval", interval, "--size", k["SIZE"], "--duration", k["DURATION"],
                "--warmup", k["WARMUP"], "--address", self.icmp_addr, "--cpus-allowed", k["PING_CPUS"],
                "--suite-version", self.suite_version, "--framework-version", self.ping_version(),
                "--started-at", started, "--exit-status", str(code)]
        with open(err, "a", encoding="utf-8") as errors, contextlib.redirect_stderr(errors):
            try:
                return icmp_log.main(args)
            except OSError as error:
                raise space.from_os_error(error.filename or stem, error) from None
            except (Exception, SystemExit) as error:  # a converter's bug, as when it ran as a process of its own
                print(f"icmp_log.py failed: {error!r}", file=errors)
                return 1

    def probe_s(self) -> float:
        """When a run's ends are read, from the start of its ping (disturbance.PROBE_AT)."""
        return disturbance.probe_s(float(self.knobs["WARMUP"]), float(self.knobs["DURATION"]))

    def ping_version(self) -> str:
        if self._ping_version is None:
            self._ping_version = local.ping_version()
        return self._ping_version

    def run_micro(self, run) -> Outcome:
        """MODE=micro: BINARY-micro with the point's arguments, in-process; it writes STEM.json."""
        err = self.tmp / "micro.err"
        argv = commands.micro(self.bin_dir, run.point, self.folder / run.stem, self.knobs, self.ends.prefix["micro"])
        code = procs.run(argv, self.tmp / "micro.out", err, plan_mod.ping_limit_s("micro", self.knobs))
        return self.ended(Outcome(exit_code=code, tails=(err,)))

    # -- records -------------------------------------------------------------------------------------
    def record(self) -> None:
        """Records the run that ended (its status, figures, times, disturbance), prints its progress line."""
        if self.pending is None:
            return
        with signals.held():
            index, outcome, t0, (stat0, own0) = self.pending
            self.pending = None
            t1, (stat1, own1) = self.clock(), disturbance.snapshot()
            run = self.doc["runs"][index]
            stem = self.folder / run["stem"]
            status, message = outcome.status, outcome.message
            if outcome.exit_code is not None:
                fault = space.said(outcome.tails) if outcome.exit_code != 0 else None
                if fault is not None:  # the sweep stops: faulted() says so
                    self.remove_logs(run["stem"])
                    state.settle(run, "failed", f"cannot write {fault.path}: {fault.reason}", t1 - t0)
                    raise fault
                kind = "micro" if "ns_per_op_median" in run else "rtt" if "p50_ns" in run else "throughput"
                limit = progress.seconds(plan_mod.ping_limit_s(kind, self.knobs))
                judge = state.micro_outcome if kind == "micro" else state.ping_outcome
                status, message = judge(outcome.exit_code, limit, stem)
            status, message = state.skip_unavailable(status, message, outcome.tails, stem)
            log = table.read(stem.with_name(f"{stem.name}.json")) if status == "ok" else None
            run["start_s"] = round(t0 - self.t0, 2)
            run["disturbance"] = disturbance.measure(stat0, stat1, own0, own1, t1 - t0) | (outcome.ends or {})
            state.settle(run, status, message, t1 - t0, table.figures(log) if log is not None else (None, None),
                         table.starved(log) if log is not None else None)
            self.save()
            lines = [progress.progress_line(self.doc, index, t1 - self.t0)]
            if status == "failed":
                lines += progress.tails(outcome.tails)
            if noise.due(self.runs, index):  # the first rounds measured the machine's noise: name it if loud
                repeats = self.doc["repeats"]
                lines += filter(None, [noise.line(self.runs, self.doc["runs"], repeats,
                                                  self.doc["estimated_s"] / repeats)])
            print("\n".join(lines), flush=True)

    def remove_logs(self, stem: str) -> None:
        for name in (f"{stem}.json", f"{stem}.csv", f".{stem}.ping-output"):
            (self.folder / name).unlink(missing_ok=True)

    def stopped(self, stop: signals.Stop) -> None:
        """A signal: the run being measured is removed and marked, one that had ended is recorded."""
        with contextlib.suppress(WriteFault):
            if self.current is not None:
                run = self.doc["runs"][self.current]
                self.remove_logs(run["stem"])
                run["status"] = "interrupted"
                run["message"] = f"stopped by SIG{stop.name}; its partial logs were removed"
                print(f"{self.prog}: {run['stem']} was interrupted and removed; finished runs stay in {self.folder}",
                      file=sys.stderr)
            else:
                self.record()  # it ended before the signal: it counts
            self.doc["status"] = "interrupted"
            self.doc["finished_at"] = state.utc_now()
            self.save()

    def faulted(self, fault: WriteFault) -> None:
        """A write error: said in one line naming the file; the run it hit is removed and failed, the sweep
        stops with every finished run kept (sweep.json as last written whole, if it cannot be rewritten)."""
        print(f"{self.prog}: cannot write {fault.path}: {fault.reason}: stopping; finished runs stay in "
              f"{self.folder}", file=sys.stderr)
        if self.current is not None:  # hit while it ran (the ICMP conversion)
            run = self.doc["runs"][self.current]
            self.remove_logs(run["stem"])
            state.settle(run, "failed", f"cannot write {fault.path}: {fault.reason}", self.clock() - self.run_start[0])
        self.doc["status"], self.doc["finished_at"] = "failed", state.utc_now()
        with signals.held(), contextlib.suppress(WriteFault):
            self.save()

    def finish(self) -> int:
        """The closing figures in sweep.json, the summary table and the closing lines; 1 if a run failed."""
        with signals.held():
            doc = self.doc
            doc.update(progress.totals(doc["runs"], self.clock() - self.t0, self.knobs))
            doc["finished_at"] = state.utc_now()
            failed = any(r["status"] == "failed" for r in doc["runs"])
            doc["status"] = "failed" if failed else "complete"
            disturbed = disturbance.flag(doc["runs"])
            self.save()
        print("", *table.summary_table(self.folder, self.knobs["MODE"]), "",
              *(f"Disturbed: {r['stem']}: {r['disturbed']} (kept; sweep.json runs[].disturbance)" for r in disturbed),
              *progress.closing_lines(doc, self.folder), sep="\n", flush=True)
        return 1 if failed else 0
