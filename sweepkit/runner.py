"""The runs in the plan's order: each measured by its mode, its record and progress line, a signal, a write error, the end."""

# A run is "current" until its ping (or system ping, or benchmark) has ended: a signal then removes
# its partial logs and marks it interrupted. Once it has ended its logs are final and it counts,
# even if a signal comes while its pong stops. Records are written with signals held
# (sweepkit.signals.held), so sweep.json is always whole; how often: REWRITE_SHARE.

import contextlib
import sys
import time
from pathlib import Path

from . import costs as costs_mod
from . import disturbance, icmp_log, local, modes, plan as plan_mod, procs, progress, signals, space, state, summary, table
from . import looks, probed, records, retry, staged, traced, tracing, variants
from .outcome import Outcome
from .space import WriteFault
from .spec import Spec

# While runs go on, sweep.json is rewritten after a run unless its last rewrite took more than 1/REWRITE_SHARE
# of the time since. A rewrite of a default sweep's 3 520 runs takes about 30 ms and writes 1.7 MB; after
# every 0.2 s run that was a minute and a half of the sweep and 3 GB of writeback beside the runs. So a
# small sweep's is rewritten after every run, a default one's about once a second near its end. A signal,
# a write error and the end always write it, and every run's logs are on disk as it ends: what a crash
# leaves out of sweep.json is at most the last second's statuses, which parse.py does not need to read
# those logs.
REWRITE_SHARE = 50
GIVE_UP_AFTER = records.GIVE_UP_AFTER  # (sweepkit/records.py; --continue counts them again)


class Sweep:
    """One sweep's folder, its sweep.json, its runs and how to start each run's pong (`pongs`: an object with
    start(binary, transport, args, port, stderr_path) -> (target, None) or (None, why), and stop(): sweepkit.pongs)."""

    def __init__(self, prog: str, spec: Spec, doc: dict, runs: list, folder: Path, ends, pongs, tmp: Path,
                 icmp_addr: str, suite_version: str):
        self.prog, self.spec, self.doc, self.runs, self.folder = prog, spec, doc, runs, folder
        self.path = folder / "sweep.json"
        self.ends, self.pongs, self.tmp = ends, pongs, tmp
        self.icmp_addr, self.suite_version = icmp_addr, suite_version
        self.current: int | None = None  # the run being measured: its logs are not final
        self.pending: records.Ended | None = None  # a run that ended, not recorded yet
        self.run_start: tuple = ()  # the current run's start: time.time() and disturbance.snapshot()
        self.clock = time.time  # the wall clock of the records (a test's own, in tests)
        self.t0 = self.clock()
        self._ping_version: str | None = None
        self.saved_at, self.save_took = float("-inf"), 0.0  # the last write of sweep.json: time.monotonic(), s
        # What each point's runs cost, learned as they end: the ETA, and BUDGET's rounds after each round.
        self.costs = costs_mod.Costs({r.point.stem: modes.of(r.point.kind).run_estimate_s(r.point, spec) for r in runs})
        self.unfinished: dict[str, int] = {}  # point stem → its runs the ping's watchdog ended (state.unfinished)
        self.given_up: dict[str, str] = {}  # point stem → why its later rounds are not run
        # STOP=decided: the comparisons decided look by look, and the points that leave the rotation.
        self.rotation = looks.Rotation(spec.design, list({r.point.stem: r.point for r in runs}.values()),
                                       *looks.pairs(doc.get("pr"), variants.from_records(doc.get("variants")))
                                       ) if spec.design and spec.design.sequential else None
        self.first, self.before_s = 0, 0.0  # --continue: the first run still to measure, the time the runs took so far

    def save(self, *, throttled: bool = False) -> None:
        """sweep.json written whole; `throttled`: unless its last write took over 1/REWRITE_SHARE of the time since."""
        start = time.monotonic()
        if throttled and start - self.saved_at < REWRITE_SHARE * self.save_took:
            return
        try:
            state.save(self.path, self.doc)
        except OSError as error:
            raise space.from_os_error(self.path, error) from None
        self.saved_at = time.monotonic()
        self.save_took = self.saved_at - start

    def start(self, meta: dict, hosts: dict) -> None:
        """sweep.json in the sweep's folder, with the run's facts."""
        self.doc |= meta | {"hosts": hosts, "status": "running", "started_at": state.utc_now(),
                            "estimated_s": progress.tidy(progress.total_s(self.runs, self.spec))}
        with signals.held():
            self.save()

    def run(self) -> int:
        """Every run, then the summary: 0, or 1 if a run failed; a signal: its exit status; a write error: 1."""
        print(f"Logs: {self.folder}", flush=True)
        self.t0 = self.clock() - self.before_s
        try:
            index = self.first
            while index < len(self.runs):  # BUDGET may re-plan the rounds after each one (self.replan)
                self.measure(index, self.runs[index])
                index += 1
            if self.spec.probed:
                probed.run_all(self)
            if self.spec.trace:
                traced.run_all(self, tracing)
        except signals.Stop as stop:
            self.stopped(stop)
            return stop.code
        except WriteFault as fault:
            self.faulted(fault)
            return 1
        finally:
            staged.clear(self.folder)
        return self.finish()

    def measure(self, index: int, run: plan_mod.Run) -> None:
        self.current, self.pending = index, None
        self.run_start = (self.clock(), disturbance.snapshot())
        given_up = self.given_up.get(run.point.stem)
        if given_up is not None:
            outcome = Outcome(status="skipped", message=f"not run: {given_up} (the runtime never ran the "
                                                        "measurement to its end)")
        else:
            outcome = retry.measure(self, run)  # its mode's, again if the connection to host B dropped
        if self.current is not None:  # it ended before its binary ran (a pong not ready, a skipped ICMP point)
            self.ended(outcome)
        self.record()
        if index + 1 == len(self.runs) or self.runs[index + 1].round > run.round:  # a round is over
            self.look(run.round, index + 1)
            if self.spec.budget_s:
                self.replan(run.round, index + 1)

    def look(self, done: int, next_index: int) -> None:
        """STOP=decided, at a planned look: every open comparison's verdict, the planned runs of the points that
        leave dropped (the others keep their order), one line."""
        rotation = self.rotation
        if rotation is None or not rotation.due(self.spec.design, done):
            return
        with signals.held():  # sweep.json and the runs change together
            look = rotation.look(self.spec.design, done, self.runs[:next_index], self.doc["runs"][:next_index])
            kept = [i for i in range(next_index, len(self.runs)) if rotation.keeps(self.runs[i])]
            self.runs = self.runs[:next_index] + [self.runs[i] for i in kept]
            self.doc["runs"] = self.doc["runs"][:next_index] + [self.doc["runs"][i] for i in kept]
            self.doc |= rotation.record()
            self.save()  # a look is rare, and what it decided must outlive the sweep (--continue)
        eta = self.costs.left_s([r.point.stem for r in self.runs[next_index:]]) if self.costs.seen else None
        print(rotation.line(look, self.spec.design.maximum, eta), flush=True)

    def replan(self, done: int, next_index: int) -> None:
        """BUDGET, after round `done`: the rounds re-planned from what each point's runs cost so far, so that the
        sweep ends within the budget; one line when they change. Rounds 1..done keep their order (plan.runs draws
        round k's alike, whatever follows), and nothing measured but times decides."""
        spec, doc = self.spec, self.doc
        order = {p["stem"]: i for i, p in enumerate(doc["points"])}
        points = sorted({r.point.stem: r.point for r in self.runs}.values(), key=lambda p: order[p.stem])
        # The fixed design's rounds, every point's runs counted: a point that left the rotation (STOP=decided) saves
        # its time and buys the others no rounds, so the most rounds, and each look's information fraction, never
        # grow with what was decided.
        retired = self.rotation.retired if self.rotation else {}
        round_s, elapsed_s = self.costs.as_fixed([p.stem for p in points], retired, done, self.clock() - self.t0)
        reserved = probed.reserve_s(self.costs, points, spec)  # the probed runs after the rounds (PROBED)
        fitted = costs_mod.fit(spec.budget_s - reserved, elapsed_s, done, round_s, spec.repeats)
        before = spec.repeats
        if fitted.rounds == before:
            return
        runs = [r for r in plan_mod.runs(points, fitted.rounds, spec.seed, spec.order)
                if self.rotation is None or self.rotation.keeps(r)]
        assert [r.stem for r in runs[:next_index]] == [r.stem for r in self.runs[:next_index]]
        with signals.held():  # sweep.json, the spec and the runs change together
            self.spec = spec = spec.with_knobs(REPEATS=str(fitted.rounds))
            budget = doc["budget"]
            budget.setdefault("replans", []).append({"after_round": done, "rounds_before": before,
                                                     "rounds_after": fitted.rounds, "round_s": progress.tidy(round_s),
                                                     "short": fitted.short})
            doc |= {"knobs": spec.record(), "repeats": fitted.rounds,
                    "runs": doc["runs"][:next_index] + [r.record() for r in runs[next_index:]]}
            self.runs = runs
            self.save(throttled=True)
        print(costs_mod.line(spec.budget, fitted, before, done, round_s, budget["round_estimate_s"],
                             self.costs.costliest(p.stem for p in points)), flush=True)

    def ended(self, outcome: Outcome) -> Outcome:
        """The run's binary is over: its logs are final and the run counts, whatever comes next."""
        staged.publish(self.folder, self.doc["runs"][self.current]["stem"])
        self.pending, self.current = records.Ended(self.current, outcome, *self.run_start), None
        return outcome

    # -- what the modes' `measure` uses ---------------------------------------------------------------
    def convert(self, raw: Path, stem: Path, err: Path, interval: str, started: str, code: int) -> int:
        """sweepkit/icmp_log.py in this process, its messages into `err`: 0 when it wrote a usable log pair. A
        write error stops the sweep; any other failure of the converter fails this run only."""
        spec = self.spec
        args = [str(raw), str(stem), "--interval", interval, "--size", str(spec.size), "--duration", str(spec.window(interval)),
                "--warmup", str(spec.warmup), "--address", self.icmp_addr, "--cpus-allowed", spec.ping_cpus,
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

    def probe_s(self, point=None) -> float:
        """When a run's ends are read, from the start of its ping (disturbance.PROBE_AT)."""
        return disturbance.probe_s(self.spec.warmup.s, self.spec.window(point and point.interval).s)

    def ping_version(self) -> str:
        if self._ping_version is None:
            self._ping_version = local.ping_version()
        return self._ping_version

    # -- records -------------------------------------------------------------------------------------
    def record(self) -> None:
        """Records the run that ended (its status, figures, times, disturbance), prints its progress line."""
        if self.pending is None:
            return
        with signals.held():
            ended, self.pending = self.pending, None
            t1, (stat1, own1) = self.clock(), disturbance.snapshot()
            run, point = self.doc["runs"][ended.index], self.runs[ended.index].point
            status, message = records.judge(self, ended, run, t1 - ended.started)
            status, message = records.learn(self, point.stem, status, message, ended.outcome.tails)
            mode, stem = modes.of(point.kind), self.folder / run["stem"]
            log = table.read(stem.with_name(f"{stem.name}.json")) if status == "ok" else None
            stat0, own0 = ended.snapshot
            run["start_s"] = round(ended.started - self.t0, 2)
            run["disturbance"] = (disturbance.measure(stat0, stat1, own0, own1, t1 - ended.started)
                                  | (ended.outcome.ends or {}))
            state.settle(run, status, message, t1 - ended.started,
                         dict(zip(mode.figure_keys, mode.figures(log))) if log is not None else None,
                         table.starved(log) if log is not None else None)
            self.save(throttled=True)
            self.costs.add(point.stem, self.clock() - ended.started)  # start to stop, its record included
            print("\n".join(records.report(self, ended.index, status, ended.outcome, t1 - self.t0)), flush=True)

    def out(self, run: plan_mod.Run) -> Path:
        """Where the run's binary writes its logs, which `ended` moves into the folder (sweepkit/staged.py)."""
        return staged.stem(self.folder, run.stem)

    def remove_logs(self, stem: str) -> None:
        staged.remove(self.folder, stem)

    def stopped(self, stop: signals.Stop) -> None:
        """A signal: the run being measured is removed and marked, one that had ended is recorded."""
        # Its ends first: a ping stopped after its logs were removed would write them again.
        procs.stop_all()
        with contextlib.suppress(WriteFault):
            if self.current is not None:
                run = self.doc["runs"][self.current]
                self.remove_logs(run["stem"])
                run["status"] = "interrupted"
                run["message"] = f"stopped by {stop.said}; its partial logs were removed"
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
            doc.update(progress.totals(doc["runs"], self.clock() - self.t0, self.spec, self.runs))
            doc["finished_at"] = state.utc_now()
            failed = any(r["status"] == "failed" for r in doc["runs"])
            doc["status"] = "failed" if failed else "complete"
            disturbed = disturbance.flag(doc["runs"])
            self.save()
        print("", *summary.summary_table(self.folder, self.spec.mode, pr="pr" in doc), "",
              *(f"Disturbed: {r['stem']}: {r['disturbed']} (kept; sweep.json runs[].disturbance)" for r in disturbed),
              *progress.closing_lines(doc, self.folder), sep="\n", flush=True)
        return 1 if failed else 0
