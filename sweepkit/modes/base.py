"""What the network modes share: a fresh pong, then a ping, judged by its exit status and logs; the defaults of a mode."""

# A mode is one kind of point (rtt, icmp, throughput, micro, wrk, wrk-ping) and, for rtt, throughput, micro and
# wrk, one MODE of a sweep; sweepkit.modes maps each kind to its one instance. The runner, the plan, the
# progress lines and the tables ask a point's mode; nothing outside sweepkit/modes/ branches on the kind.
# The modes sit above what they use (the spec, the plan, the commands, the processes): a point made here
# carries its mode, and the spec its MODE's, so that nothing below imports sweepkit.modes.

from .. import checks, commands, disturbance, plan, procs, state
from .. import spec as spec_mod
from ..outcome import Outcome
from ..selection import has_pong
from ..spec import Spec

CSV_ROW_BYTES = 32  # "123456,4012345678,21345,0," and a newline: seq, t_ns, rtt_ns, conn, latency_ns
JSON_BYTES = 6000  # a run's STEM.json, per_connection included, with room to spare


class Mode:
    """A kind of point: each method is what the sweep does for a point (or a sweep) of this kind."""

    kind = ""
    figure_keys: tuple[str, ...] = ("", "")  # a run's figures in sweep.json (state.settle): its two shown, then others
    overhead_guess_s = 0.0  # per run, for the estimate before anything ran (docs/sweeps.md, "Time")
    header: list[str] = []  # the closing table's columns for this kind's logs

    one_host = ""  # why this MODE runs on run-localhost.sh only, e.g. "runs in-process on one host, with no peer"
    stem_suffix = ""  # after a point's stem (plan.Point.stem), where two kinds of one sweep share its other parts
    drops_entries = False  # True: a chosen entry that takes no part is dropped with a warning, not refused

    # -- the checks of a sweep of this MODE, at the entry, on the knob strings ----------------------------
    def defaults(self) -> dict[str, str]:
        """Knobs this MODE adds to every sweep's (sweepkit.defaults.DEFAULTS), or whose defaults it changes."""
        return {}

    def fields(self, k: dict[str, str]) -> dict:
        """The spec's fields of this MODE, parsed from its checked knobs (sweepkit.spec)."""
        return spec_mod.network_fields(k)

    def check(self, result, environ, context: str) -> None:
        """Every knob of a network sweep (sweepkit.checks.check_network), this mode's checks and warnings in it."""
        checks.check_network(result, environ, context, self)

    def check_measure(self, k: dict, problems: list[str]) -> None:
        """What the sweep measures over (SIZE and INTERVALS, or SIZES); normalises them."""

    def check_load(self, k: dict, problems: list[str]) -> None:
        """LOAD against the other knobs."""

    def check_udp(self, k: dict, warmup, duration, problems: list[str]) -> None:
        """What UDP cannot carry."""

    def check_extra(self, k: dict, problems: list[str]) -> None:
        """PING_EXTRA options that do not apply."""

    def warn(self, result) -> None:
        """Warnings once every knob is right: knobs given that this MODE does not use, entries left out."""

    def unavailable(self, spec: Spec) -> str | None:
        """Why a sweep of this MODE cannot run on this host, said in one line and not a failure (MODE=wrk without
        wrk); None when it can."""
        return None

    # -- a point of this kind -------------------------------------------------------------------------
    def why_skipped(self, point, spec: Spec, icmp_unusable: str | None) -> str | None:
        """Why a point cannot be measured, decided before the sweep starts; None if it can."""
        return None

    def problem(self, spec: Spec, unusable: str | None) -> str | None:
        """Why no point of this kind can run at all (the system ping's, found by sweepkit.local: `unusable`)."""
        return None

    def limit_s(self, spec: Spec, point=None) -> float:
        """How long a point's measuring process may run before it is stopped. Past warm-up + its window a ping may
        wait one UDP timeout, or 5 s for a stalled TCP peer, then write its logs, which takes seconds on a busy
        disk: PING_GRACE covers all of that."""
        return spec.measured_at(point and point.interval) + spec.ping_grace.s

    def guessed(self, point, spec: Spec) -> str | None:
        """Why the plan can only guess what a run of this point costs (its processes may start or stop slowly),
        or None: the first round will tell. Across hosts (--remote) every run pays an ssh connection."""
        return "across hosts" if spec.base_port is not None else None

    def run_fields(self) -> dict:
        """A run's fields in sweep.json before it runs, besides those of every run."""
        return dict.fromkeys(self.figure_keys)

    def ping_measure(self, point) -> list[str]:
        """The ping's options that say what it measures (rtt: --interval; throughput: --mode throughput)."""
        raise NotImplementedError

    def measure(self, sweep, run) -> Outcome:
        """A runtime's point (or a reference measured by the suite's binaries): a fresh pong, then a fresh ping."""
        point, pong_err = run.point, sweep.tmp / "pong.err"
        try:
            target, why = sweep.pongs.start(point.binary, point.transport, point.end_args("pong"), point.port, pong_err,
                                            point.bin_dir)
            if target is None:
                return Outcome(status="failed", message=f"pong not ready: {why}", tails=(pong_err,))
            ping_err = sweep.tmp / "ping.err"
            argv = commands.ping(sweep.spec, point, target, sweep.out(run), sweep.ends.prefix["ping"],
                                 sweep.pongs.pid())
            ends = {}
            code = procs.run(argv, sweep.tmp / "ping.out", ping_err, self.limit_s(sweep.spec, point),
                             at=(sweep.probe_s(point), lambda pid: ends.update(ping=disturbance.threads(pid),
                                                                          pong=sweep.pongs.threads())))
            return sweep.ended(Outcome(exit_code=code, tails=(ping_err, pong_err), ends=ends))
        finally:
            sweep.pongs.stop()

    def traceable(self, point) -> bool:
        """Whether TRACE=1 traces a run of the point (sweepkit/traced.py): only an RTT point has a round trip."""
        return False

    def probeable(self, point) -> bool:
        """Whether PROBED=N counts the point's system calls in runs of their own (sweepkit/probed.py): only an RTT
        ping counts."""
        return False

    def judge(self, exit_code: int, limit_s: str, stem) -> tuple[str, str | None]:
        """ok or failed (or skipped), and why, from the exit status and the logs."""
        return state.ping_outcome(exit_code, limit_s, stem)

    def empty(self, log: dict) -> str | None:
        """Why a log its binary wrote whole holds no sample the point can use (sweepkit/empty.py), or
        None when it holds one: such a run is measured again (sweepkit/retry.py)."""
        return None

    def run_bytes(self, point, spec: Spec) -> int:
        """About what one run of the point writes (sweepkit.space)."""
        raise NotImplementedError

    def result(self, run: dict, connections: int | None) -> str:
        """The middle of an ok run's progress line: its figures."""
        raise NotImplementedError

    # -- its logs ---------------------------------------------------------------------------------------
    def figures(self, log: dict) -> tuple:
        """A log's figures, as sweep.json records them (figure_keys)."""
        raise NotImplementedError

    def row(self, log: dict, run: str) -> list[str]:
        """A log's row of the closing table."""
        raise NotImplementedError

    # -- a sweep of this MODE ---------------------------------------------------------------------------
    def points(self, spec: Spec, selection, variants) -> list:
        """Every point, in the list's order: each entry with a pong and each variant × protocols × its
        measures × the dimensions (plan.network_points), then the references another program measures."""
        return plan.network_points(spec, selection, self.measures(spec), variants) + self.references(spec, selection)

    def measures(self, spec: Spec) -> list[tuple]:
        """(payload, interval) of each point of one entry, protocol and setting of the dimensions."""
        raise NotImplementedError

    def references(self, spec: Spec, selection) -> list:
        """The points of the selected references that run another program (the system ping)."""
        return []

    def each(self, spec: Spec, points: list[dict]) -> str:
        """What each run is, for the plan's first line."""
        return f"{spec.warmup} s warm-up + {spec.duration} s measured"

    def plan_lines(self, spec: Spec) -> list[str]:
        """The plan's lines after the order's, before the points."""
        return []

    def sample_lines(self, spec: Spec, runs, estimate) -> list[str]:
        """The plan's lines on the samples each point will pool and the quantiles they carry (MODE=rtt's)."""
        return []

    def run_estimate_s(self, point, spec: Spec) -> float:
        """A run's guessed wall time: warm-up + its window (MIN_MESSAGES may lengthen it) and the overhead."""
        return spec.measured_at(point.interval) + self.overhead_guess_s

    def eta_s(self, doc: dict, index: int, elapsed_s: float, spec: Spec) -> float:
        """Time left after run `index`: each run still planned costs warm-up + duration plus the overhead
        per measured run so far. Overhead is what the elapsed time holds beyond the measured runs'
        warm-up + duration and the whole wall time of the other runs (a failed or skipped run took what
        it took), shared among the measured runs."""
        runs = doc["runs"]
        done = runs[: index + 1]
        left = sum(r["status"] == "planned" for r in runs[index + 1:])
        ok = sum(r["status"] == "ok" for r in done)
        other_s = sum(r["wall_s"] or 0 for r in done if r["status"] != "ok")
        overhead = max(0.0, elapsed_s - other_s - ok * spec.measured_s) / max(ok, 1)
        return left * (spec.measured_s + overhead)

    def totals(self, runs: list[dict], wall_s: float, spec: Spec, planned=None) -> dict:
        """sweep.json's closing figures. The overhead per measured run excludes failed and skipped runs.
        `planned`: the plan's runs (plan.Run), whose windows MIN_MESSAGES may have lengthened."""
        ok = sum(r["status"] == "ok" for r in runs)
        windows = [spec.window(p.point.interval).s if planned else spec.duration.s for p in planned or runs]
        measured = sum(w for w, r in zip(windows, runs) if r["status"] == "ok")
        other_s = sum(r["wall_s"] or 0 for r in runs if r["status"] != "ok")
        overhead = (wall_s - other_s - ok * spec.warmup.s - measured) / ok if ok else 0.0
        return {"wall_s": round(wall_s, 3), "measured_s": tidy(round(measured, 6)),
                "warmup_total_s": tidy(ok * spec.warmup.s), "overhead_per_run_s": round(overhead, 3)}

    def local_target(self, spec: Spec) -> tuple[str, str]:
        """sweep.json's target and pinning of a run-localhost.sh sweep."""
        return "127.0.0.1", f"pong: {spec.pong_cpus or 'none'}, ping: {spec.ping_cpus or 'none'}"

    def binary_ends(self, ends) -> list[str]:
        """The binaries of each entry a sweep of this MODE needs: the ends this host runs (micro: its own)."""
        return list(ends)

    def measures_entry(self, entry) -> bool:
        """Whether the sweep runs binaries of this chosen entry (a runtime, or a reference with a pong)."""
        return has_pong(entry)

    def unbuilt(self, entry, spec: Spec) -> str | None:
        """Why a chosen entry has no binary, when the sweep goes on without it (a reference of another toolchain)."""
        return None

    def parse_args(self) -> list[str]:
        """parse.py's options for this MODE's closing table."""
        return ["-k", self.kind]

    def closing_command(self) -> list[str]:
        """The parse.py command (and its options) that prints this MODE's closing table."""
        return ["table", *self.parse_args()]

    def pong_mode(self) -> list[str]:
        """The pong's --mode: throughput pongs count instead of echoing."""
        return []

    def probe_measure(self, udp_timeout: bool) -> list[str]:
        """A preflight ping's options (`udp_timeout`: give up on a lost UDP reply after 0.5 s)."""
        return ["--udp-timeout-ms", "500"] if udp_timeout else []

    def serve_ready(self, spec: Spec) -> tuple[str, ...]:
        """What a pong of --serve is made ready for beyond a point's arguments (it serves every point)."""
        return ()

    def peer_mode(self) -> str:
        """The MODE host A must set to plan the pongs --serve serves (MODE=throughput), for its command line."""
        return ""

    def peer_ready(self, spec: Spec) -> str:
        """The knobs host A must set for what the pongs of --serve are ready for (CONNECTIONS)."""
        return ""


def tidy(value: float):
    """A whole number as an int, for sweep.json (10, not 10.0); else rounded to ms."""
    return int(value) if float(value).is_integer() else round(value, 3)
