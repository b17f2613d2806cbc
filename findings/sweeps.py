"""The sweeps docs/findings.md rests on: each one's script, flags and knobs, and its command line as the page shows it."""

# One list, read by the regeneration (which runs them), the page (which shows their commands) and the test
# (which runs each with DRY_RUN=1). Times are budgets, so the whole page fits an evening on a 2-vCPU machine.

import shlex
from dataclasses import dataclass

LAB_SUBNET = "10.203.33"  # the veth pair of the network sweep: not the tests' 10.203.7, so both may run
REMOTE = f"root@{LAB_SUBNET}.2"

# The 2022 suite's pacing, one variant per runtime: the ping sleeps the interval after each reply.
SLEEP_PACING = " ".join(f"{fw}-sleep={fw}:ping:--pacing sleep" for fw in ("std", "tokio", "async-std", "smol"))
# The releases of 2022 where the runtime crates build against them (docs/sweeps.md, "Versions"): async-std's and
# smol's; tokio's oldest that builds unchanged is 1.38.0 (1.37 lacks Runtime::metrics).
OLD_RELEASES = (("tokio", "1.38.0"), ("async-std", "1.11.0"), ("smol", "1.2.5"))
OLD_VERSIONS = " ".join(f"{fw}-{version.rsplit('.', 1)[0]}={fw}@{version}" for fw, version in OLD_RELEASES)
# The 2022 suite's decoys: timers, not CPU work (a multiply, then a 1 ms sleep on the runtime's timer).
TIMER_DECOYS = " ".join(f"{fw}-timers={fw}:ping:--decoy sleep --decoy-work-us 0"
                        for fw in ("std", "tokio", "async-std", "smol"))


@dataclass(frozen=True)
class Sweep:
    name: str  # its folders go under latency-logs/findings/NAME
    script: str  # run-localhost.sh or run-network.sh
    flags: str
    knobs: tuple[tuple[str, str], ...]
    minutes: float  # what it takes here, about: its BUDGET, or its REPEATS' estimate
    about: str

    @property
    def network(self) -> bool:
        return self.script == "run-network.sh"

    def command(self) -> str:
        """The command as the page shows it and a shell runs it, from the checkout."""
        knobs = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.knobs)
        return f"{knobs} ./{self.script} {self.flags}".strip()

    def env(self) -> dict[str, str]:
        return dict(self.knobs)

    @property
    def bound(self) -> str:
        """How its minutes bound it: a sweep that stops its comparisons once decided takes them at most."""
        return "at most" if self.env().get("STOP") == "decided" else "about"


# The page's claims are comparisons (a runtime against std, a variant against its base): those sweeps stop each
# comparison once decided (STOP=decided, the scripts' default, said here so the command shows it). The phases
# sweep is a breakdown of where the time goes, not a comparison: every point every round (STOP=fixed).
SWEEPS = (
    Sweep("main", "run-localhost.sh", "-asStB", (("SEED", "3301"), ("BUDGET", "10m"), ("STOP", "decided")), 10,
          "the suite's method: the 2022 four and the busy-poll floor, TCP and UDP, 10 msg/s to back-to-back"),
    Sweep("pacing", "run-localhost.sh", "-St",
          (("SEED", "3302"), ("BUDGET", "9m"), ("INTERVALS", "0.1 0.01 0.001 0.0001 0.00001"),
           ("VARIANTS", SLEEP_PACING), ("STOP", "decided")), 9,
          "the 2022 pacing (a sleep after each reply) beside the suite's schedule, in the same rounds"),
    Sweep("decoys", "run-localhost.sh", "-asSt",
          (("SEED", "3303"), ("BUDGET", "6m"), ("TASKS", "0 10 100 1000"), ("INTERVALS", "0.001"),
           ("PROTOCOLS", "tcp"), ("VARIANTS", TIMER_DECOYS), ("STOP", "decided")), 6,
          "10 to 1000 decoys: the suite's CPU-bound ones beside the 2022 suite's timers, at 1 k msg/s"),
    Sweep("phases", "run-localhost.sh", "-asStmcg",
          (("SEED", "3305"), ("REPEATS", "20"), ("INTERVALS", "0.001 0"), ("TASKS", "0 100"), ("TRACE", "6"), ("STOP", "fixed")), 10,
          "the seven runtimes at 1 k msg/s and back-to-back, alone and with 100 decoys, then 6 traced runs of each "
          "point: where the time goes"),
    Sweep("versions", "run-localhost.sh", "-asSt",
          (("SEED", "3306"), ("REPEATS", "20"), ("INTERVALS", "0.001 0"), ("TASKS", "0 100"), ("VARIANTS", OLD_VERSIONS), ("STOP", "decided")),
          5, "today's tokio, async-std and smol beside older releases of each, built by the sweep, in the same blocks"),
    Sweep("network", "run-network.sh", f"--remote {REMOTE} -St",
          (("SEED", "3304"), ("REPEATS", "12"), ("INTERVALS", "0.001 0"), ("STOP", "decided")), 3.5,
          "tokio and std across a veth pair between two network namespaces (not a 100 GbE link)"),
)

BY_NAME = {s.name: s for s in SWEEPS}
