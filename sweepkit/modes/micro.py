"""The micro kind: one run of a <prefix>-micro binary in-process, no pong; MODE=micro (its points: sweepkit.micro)."""

from suite import fmt as style

from suite import runtimes

from .. import commands, micro, procs, state, table
from ..checks import CPU_LIST, check_every_mode, check_repeats, seconds
from ..defaults import MICRO_DEFAULTS, MICRO_OVERRIDES, NOT_MICRO
from ..selection import flag_list
from ..outcome import Outcome
from .. import spec as spec_mod
from ..spec import Spec
from .base import JSON_BYTES, Mode


class Micro(Mode):
    kind = "micro"
    figure_keys = ("ns_per_op_median", "ops_per_s_median")
    ends = ("micro",)
    header = ["framework", "bench", "sizes", "run", "repeats", "ns/op median", "op/s median", "peak RSS"]

    one_host = "runs in-process on one host, with no peer"
    drops_entries = True

    def defaults(self) -> dict[str, str]:
        return MICRO_OVERRIDES | MICRO_DEFAULTS

    def fields(self, k: dict[str, str]) -> dict:
        return spec_mod.micro_fields(k)

    def check(self, result, environ, context: str) -> None:
        """Its own knobs, the general ones it shares (REPEATS, SEED, NICE, OUT_DIR, BIN_DIR, PING_GRACE), a
        warning for each given knob it does not use, and the entries that take part."""
        k, problems = result.knobs, result.errors
        check_repeats(k, problems)
        micro.check(k, problems)
        if k["VARIANTS"].split():
            problems.append("VARIANTS applies to MODE=rtt and MODE=throughput: the micro benchmarks take no runtime "
                            "options; unset VARIANTS")
        if not CPU_LIST.fullmatch(k["MICRO_CPUS"]):
            problems.append(f"MICRO_CPUS='{k['MICRO_CPUS']}': expected a CPU list like 0 or 0-1 (empty: every CPU)")
        k["PONG_CPUS"] = k["PING_CPUS"] = ""  # nothing to pin but the benchmark process
        check_every_mode(k, problems)
        seconds(k, "PING_GRACE", problems)
        if problems:
            return
        unused = [name for name in NOT_MICRO if name in result.given]
        if unused:
            result.warnings.append(f"{', '.join(unused)} {'does' if len(unused) == 1 else 'do'} not apply to "
                                   "MODE=micro (in-process benchmarks: see BENCHES and the MICRO_* knobs)")
        benches = k["BENCHES"].split()
        for entry in list(result.selection):
            why = micro.why_not(entry, benches)
            if why is None:
                continue
            result.selection.remove(entry)
            if not result.selection:
                every = flag_list([e for e in runtimes.entries() if micro.why_not(e, benches) is None])
                result.usage = f"-{entry.flag}: {why}; with MODE=micro choose {every}"
                return
            result.warnings.append(f"-{entry.flag}: {why}; skipped with MODE=micro")

    def limit_s(self, spec: Spec, point=None) -> float:
        """A micro benchmark binary stops itself after MICRO_TIMEOUT and gets PING_GRACE to write its log."""
        return spec.micro_timeout + spec.ping_grace.s

    def measure(self, sweep, run) -> Outcome:
        """BINARY-micro with the point's arguments, in-process; it writes STEM.json."""
        err = sweep.tmp / "micro.err"
        argv = commands.micro(sweep.spec, run.point, sweep.out(run), sweep.ends.prefix["micro"])
        code = procs.run(argv, sweep.tmp / "micro.out", err, self.limit_s(sweep.spec))
        return sweep.ended(Outcome(exit_code=code, tails=(err,)))

    def judge(self, exit_code: int, limit_s: str, stem) -> tuple[str, str | None]:
        return state.micro_outcome(exit_code, limit_s, stem)

    def run_bytes(self, point, spec: Spec) -> int:
        return JSON_BYTES  # its JSON only

    def result(self, run: dict, connections: int | None) -> str:
        per_op, ops = run["ns_per_op_median"], run["ops_per_s_median"]
        return (f"median {style.time_ns(per_op) + '/op':>10}   "
                f"{table.si(ops):>8} op/s")

    def figures(self, log: dict) -> tuple:
        """The median ns per operation and operations per second."""
        return (log.get("ns_per_op") or {}).get("median"), (log.get("ops_per_s") or {}).get("median")

    def row(self, log: dict, run: str = table.UNKNOWN) -> list[str]:
        params = {k: v for k, v in (log.get("params") or {}).items() if v is not None}
        sizes = " ".join(f"{k}={v}" for k, v in params.items()) or table.UNKNOWN
        times = log.get("times_ns") or []
        if log.get("not_run"):
            cells = [f"not run ({log['not_run']})", "", ""]
        else:
            per_op, ops = self.figures(log)
            rss = log.get("peak_rss_bytes")
            cells = [table.UNKNOWN if per_op is None else style.time_ns(per_op), table.si(ops),
                     table.UNKNOWN if rss is None else style.bytes_iec(rss)]
        return [str(log.get("framework")), str(log.get("bench")), sizes, run,
                str(len(times)) + ("" if log.get("complete", True) else " (incomplete)"), *cells]

    def points(self, spec: Spec, selection, variants) -> list:
        return micro.build(spec, selection)

    def local_target(self, spec: Spec) -> tuple[str, str]:
        return "in-process", f"micro: {spec.micro_cpus or 'none (every CPU)'}"

    def binary_ends(self, ends) -> list[str]:
        return ["micro"]

    def measures_entry(self, entry) -> bool:
        return entry.binary_prefix is not None  # the Go and Kotlin references too

    def unbuilt(self, entry, spec: Spec) -> str | None:
        return micro.not_built(entry, spec.bin_dir)

    def each(self, spec: Spec, points: list[dict]) -> str:
        jvm = " (kotlin: its JIT warm-up)" if any(p["framework"] == "kotlin" for p in points) else ""
        return f"1 warm-up{jvm} + {spec.micro_repeat} timed repeats (micro)"

    def run_estimate_s(self, point, spec: Spec) -> float:
        """Its guess, from its benchmark and sizes (sweepkit.micro)."""
        return point.estimated_s or 0.0

    def eta_s(self, doc: dict, index: int, elapsed_s: float, spec: Spec) -> float:
        """The guesses of the runs still planned, scaled by how the runs so far compare with theirs
        (elapsed time over their guesses)."""
        guess = {p["stem"]: p.get("estimated_s") or 0.0 for p in doc["points"]}
        runs = doc["runs"]
        guesses = [guess[r["point"]] for r in runs]
        done = sum(guesses[: index + 1])
        scale = elapsed_s / done if done > 0 else 1.0
        return scale * sum(g for g, r in zip(guesses[index + 1:], runs[index + 1:]) if r["status"] == "planned")

    def totals(self, runs: list[dict], wall_s: float, spec: Spec, planned=None) -> dict:
        """measured_s is the wall time of the runs that are ok, warm-up iterations included; its runs have no
        warm-up seconds or overhead of their own."""
        return {"wall_s": round(wall_s, 3), "measured_s": round(sum(r["wall_s"] or 0 for r in runs
                                                                    if r["status"] == "ok"), 3),
                "warmup_total_s": None, "overhead_per_run_s": None}


MODE = Micro()
