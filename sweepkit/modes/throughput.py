"""The throughput kind: one way, as fast as the ping can send, counted in windows by the pong; MODE=throughput."""

from suite import fmt as style

from .. import empty, table
from .. import spec as spec_mod
from ..spec import Spec
from ..checks import MAX_TCP_SIZE, MAX_UDP_SIZE, MAX_UDP_THROUGHPUT_S, payload
from ..defaults import THROUGHPUT_OVERRIDES
from ..dimensions import DIMENSIONS
from ..selection import flag_list, has_pong, pong_entries
from .base import CSV_ROW_BYTES, JSON_BYTES, Mode

THROUGHPUT_HANDSHAKE_S = 5  # a throughput ping's handshake and the return of the counts, 5 s each at most
THROUGHPUT_ROWS_PER_S = 20  # counting windows a second, generously


class Throughput(Mode):
    kind = "throughput"
    figure_keys = ("msg_per_s_p50", "gbit_per_s_p50")
    overhead_guess_s = 0.08  # measured on the 2-core test machine (docs/sweeps.md, "Time")
    header = ["framework", "transport", "payload", "tasks", "run", "windows", "msg/s p5", "msg/s p50",
              "msg/s p95", "Gb/s p5", "Gb/s p50", "Gb/s p95", "lost"]

    def defaults(self) -> dict[str, str]:
        return THROUGHPUT_OVERRIDES

    def fields(self, k: dict[str, str]) -> dict:
        return spec_mod.network_fields(k) | {"sizes": spec_mod.ints(k["SIZES"])}

    def check_measure(self, k: dict, problems: list[str]) -> None:
        sizes = k["SIZES"].split()
        if not sizes:
            problems.append('SIZES is empty: expected payload bytes, e.g. "64 1024"')
        for x in sizes:
            if payload(x, 8, MAX_TCP_SIZE) is None:
                problems.append(f"SIZES: '{x}' is not a payload size from 8 bytes (the sequence number) "
                                f"to {MAX_TCP_SIZE}")

    def check_udp(self, k: dict, warmup, duration, problems: list[str]) -> None:
        if warmup is not None and duration is not None and warmup + duration > MAX_UDP_THROUGHPUT_S:
            problems.append(f"WARMUP + DURATION is over {MAX_UDP_THROUGHPUT_S} s: a UDP throughput point "
                            "lasts at most that (its counts come back in one datagram)")

    def check_extra(self, k: dict, problems: list[str]) -> None:
        for x in k["PING_EXTRA"].split():
            if x.startswith(("--interval", "--rate", "--pacing")):
                problems.append(f"PING_EXTRA: {x.split('=')[0]} does not apply to MODE=throughput "
                                "(the ping sends as fast as it can)")

    def warn(self, result) -> None:
        """The RTT knobs given; the references without a pong (the ICMP baseline) are left out."""
        k, given = result.knobs, result.given
        if "SIZE" in given:
            result.warnings.append(f'SIZE applies to MODE=rtt; this throughput sweep uses SIZES="{k["SIZES"]}"')
        if "INTERVALS" in given:
            result.warnings.append("INTERVALS applies to MODE=rtt: a throughput point sends as fast as it can")
        if "MIN_MESSAGES" in given:
            result.warnings.append("MIN_MESSAGES applies to MODE=rtt: a throughput run lasts DURATION")
        rtt_only = [d.knob for d in DIMENSIONS if self.kind not in d.kinds and d.knob in given]
        if rtt_only:
            result.warnings.append(f"{' and '.join(rtt_only)} {'applies' if len(rtt_only) == 1 else 'apply'} to "
                                   "MODE=rtt: a throughput point runs one connection")
        for reference in [e for e in result.selection if not has_pong(e)]:
            result.selection.remove(reference)
            baseline = f"-{reference.flag}: the {reference.transport.upper()} baseline measures no throughput"
            if not result.selection and not result.variants:
                result.usage = f"{baseline}; with MODE=throughput choose {flag_list(pong_entries())}"
                return
            result.warnings.append(f"{baseline}; skipped with MODE=throughput")

    def limit_s(self, spec: Spec, point=None) -> float:
        return spec.measured_s + THROUGHPUT_HANDSHAKE_S + spec.ping_grace.s

    def why_skipped(self, point, spec: Spec, icmp_unusable: str | None) -> str | None:
        if point.transport == "udp" and point.payload > MAX_UDP_SIZE:
            return f"a UDP datagram carries at most {MAX_UDP_SIZE} bytes"
        return None

    def measures(self, spec: Spec) -> list[tuple]:
        return [(size, None) for size in spec.sizes]

    def ping_measure(self, point) -> list[str]:
        return ["--mode", "throughput"]

    def run_bytes(self, point, spec: Spec) -> int:
        """A row per counting window."""
        return int(THROUGHPUT_ROWS_PER_S * spec.measured_s * CSV_ROW_BYTES) + JSON_BYTES

    def result(self, run: dict, connections: int | None) -> str:
        msgs, gbit = run["msg_per_s_p50"], run["gbit_per_s_p50"]
        return (f"p50 {table.si(msgs):>10} msg/s   "
                f"{table.si(gbit):>8} Gb/s")

    def empty(self, log: dict) -> str | None:
        """A run whose pong counted no window, or no message in them, has no rate."""
        counted = log.get("windows") and (log.get("msg_per_s") or {}).get("p50") is not None
        return None if counted else empty.why(log, "no message counted in its window")

    def figures(self, log: dict) -> tuple:
        """p50 msg/s and p50 Gb/s."""
        return (log.get("msg_per_s") or {}).get("p50"), (log.get("gbit_per_s") or {}).get("p50")

    def row(self, log: dict, run: str = table.UNKNOWN) -> list[str]:
        msgs, gbits = log.get("msg_per_s") or {}, log.get("gbit_per_s") or {}
        payload = log.get("payload")
        return [table.series(log), str(log.get("transport")),
                table.UNKNOWN if payload is None else style.size_label(payload), table.count(log.get("tasks")), run,
                table.count(log.get("windows")), *(table.si(msgs.get(p)) for p in ("p5", "p50", "p95")),
                *(table.si(gbits.get(p)) for p in ("p5", "p50", "p95")), table.lost(log)]

    def each(self, spec: Spec, points: list[dict]) -> str:
        return f"{super().each(spec, points)} (throughput)"

    def pong_mode(self) -> list[str]:
        return ["--mode", "throughput"]

    def probe_measure(self, udp_timeout: bool) -> list[str]:
        return ["--mode", "throughput"]

    def peer_mode(self) -> str:
        return "MODE=throughput "


MODE = Throughput()
