"""The system check: which of a host's latency settings are known to hurt, what to do about each, and --check's printout."""

# hostfacts.settings reads the settings (on host B too, sent over ssh); this module judges them on host A,
# with the CPUs the sweep pins its ends to. It changes nothing: docs/system-check.md says how to
# set things by hand. Recorded but never warned about, since they are normal and harmless here:
# - ASLR: a whole sweep under `setarch -R` had no lower spread (docs/sweeps.md, "Choosing the defaults");
# - a cpufreq governor or boost of "none": no cpufreq driver, as on a VM whose host sets the clock;
# - kvm-clock and hyperv_clocksource_tsc_page: read in the vDSO, as tsc is;
# - no isolated CPUs: a normal machine, and the sweep pins its ends anyway;
# - the load average: it lags by minutes; the CPU use sampled as the sweep starts is the rule.

import os
import sys

from .hostfacts import SAMPLE_S, UNKNOWN, cpulist
from .local import CPU_DMA_LATENCY

# Clocksources that cannot be read in the vDSO (or read slowly): every timestamp a ping takes then costs
# a system call or an I/O read, µs on hpet and acpi_pm, and that lands in every RTT.
SLOW_CLOCKSOURCES = ("hpet", "acpi_pm", "xen", "jiffies", "refined-jiffies", "pit")
BUSY_PCT = 50  # a pinned CPU (or its SMT sibling) this busy with other work as the sweep starts
# Other processes' CPUs as the sweep starts: the margin a run's other CPU time must pass to be flagged
# disturbed (disturbance.MARGIN), so a warned sweep is one whose runs may all be disturbed alike.
OTHER_CPUS = 0.25


def _value(facts: dict, key: str) -> str:
    return str(facts.get(key) or "")


def _siblings(facts: dict) -> dict[int, list[int]]:
    """CPU → its SMT siblings (itself included), from smt_siblings ("cpu0: 0,4; cpu1: 1,5")."""
    found = {}
    for part in _value(facts, "smt_siblings").split(";"):
        name, _, siblings = part.strip().partition(": ")
        if name[3:].isdigit():
            found[int(name[3:])] = cpulist(siblings)
    return found


def _busy(facts: dict) -> dict[int, int]:
    """CPU → its busy % before the first run, from cpu_busy ("cpu0 3%, cpu1 95%")."""
    found = {}
    for part in _value(facts, "cpu_busy").split(","):
        name, _, share = part.strip().partition(" ")
        if name[3:].isdigit() and share.rstrip("%").isdigit():
            found[int(name[3:])] = int(share.rstrip("%"))
    return found


def governor(facts: dict, pinned: dict) -> str | None:
    slow = [g for g in _value(facts, "cpu_governor").split() if g not in ("performance", "none", UNKNOWN)]
    if slow:
        return (f"the CPU frequency governor is {' '.join(slow)}: the clock rises only under load, so a sparse "
                "exchange runs slow; set performance (cpupower frequency-set -g performance, or tuned-adm "
                "profile latency-performance)")
    return None


def boost(facts: dict, pinned: dict) -> str | None:
    if _value(facts, "cpu_boost") == "on":
        return ("CPU boost (turbo) is on: the clock follows temperature and the other cores' load, which widens "
                "the spread between runs; turn it off for steadier figures (echo 0 > "
                "/sys/devices/system/cpu/cpufreq/boost, or echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo)")
    return None


def irqbalance(facts: dict, pinned: dict) -> str | None:
    if _value(facts, "irqbalance") == "running":
        return ("irqbalance is running: it moves interrupts between CPUs during the sweep, onto the pinned ones "
                "too; stop it while you measure (systemctl stop irqbalance)")
    return None


def thp(facts: dict, pinned: dict) -> str | None:
    if _value(facts, "thp") == "always":
        return ("transparent huge pages are `always`: khugepaged and compaction at page faults can stall a "
                "process for milliseconds; set madvise (echo madvise > /sys/kernel/mm/transparent_hugepage/enabled)")
    return None


def clocksource(facts: dict, pinned: dict) -> str | None:
    source = _value(facts, "clocksource")
    if source in SLOW_CLOCKSOURCES:
        offered = _value(facts, "clocksources")
        return (f"the clocksource is {source}: it is not read in the vDSO, so each timestamp of a round trip costs "
                f"a system call or a slow read; use tsc if this host offers it (it offers: {offered or UNKNOWN}; "
                "echo tsc > /sys/devices/system/clocksource/clocksource0/current_clocksource)")
    return None


def isolated(facts: dict, pinned: dict) -> str | None:
    isolated_cpus = set(cpulist(_value(facts, "isolcpus")))
    outside = sorted({c for cpus in pinned.values() for c in cpulist(cpus)} - isolated_cpus)
    if isolated_cpus and outside:
        return (f"CPUs {_value(facts, 'isolcpus')} are isolated (isolcpus), but the ends are pinned to "
                f"{', '.join(map(str, outside))}, where everything else runs too; pin them to the isolated ones "
                "(PONG_CPUS, PING_CPUS)")
    return None


def shared_core(facts: dict, pinned: dict) -> str | None:
    siblings = _siblings(facts)
    pairs = sorted({(pong, ping) for pong in cpulist(pinned.get("pong", "")) for ping in cpulist(pinned.get("ping", ""))
                    if pong != ping and ping in siblings.get(pong, ())})
    if pairs:
        cpus = ", ".join(f"{pong} and {ping}" for pong, ping in pairs)
        return (f"the pong's and the ping's CPUs {cpus} are SMT siblings of one core: the ends compete for its "
                "execution units; pin them to different cores (PONG_CPUS, PING_CPUS; smt_siblings lists each "
                "pinned CPU's)")
    return None


def busy_cpus(facts: dict, pinned: dict) -> str | None:
    siblings, busy = _siblings(facts), _busy(facts)
    found = []
    for end, cpus in pinned.items():
        for cpu in cpulist(cpus):
            for other in dict.fromkeys([cpu, *siblings.get(cpu, ())]):
                if busy.get(other, 0) >= BUSY_PCT:
                    what = f"the {end}'s CPU" if other == cpu else f"an SMT sibling of the {end}'s CPU {cpu}"
                    found.append(f"CPU {other} ({what}) {busy[other]} %")
    if found:
        return (f"CPUs the ends run on are busy: {', '.join(dict.fromkeys(found))}; what runs there competes with "
                "the ends (see busiest_processes): stop it, or pin the ends to quieter CPUs")
    return None


def other_processes(facts: dict, pinned: dict) -> str | None:
    try:
        other = float(_value(facts, "other_cpus"))
    except ValueError:
        return None
    if other >= OTHER_CPUS:
        return (f"other processes are using {other:.2f} CPUs (busiest: {_value(facts, 'busiest_processes')}): their "
                "work lands in the figures and widens the spread; let them finish, or stop them")
    return None


def counters(facts: dict, pinned: dict) -> str | None:
    """What the probed runs' counters (PROBED, or every run's with COUNTERS=all) will miss here (system calls,
    switches, wake-ups), and what would give it."""
    missing = []
    paranoid = _value(facts, "perf_event_paranoid")
    if facts.get("root") == "no" and paranoid not in ("-1", "0", "1"):
        missing.append(f"kernel.perf_event_paranoid is {paranoid} and the sweep is not root, so perf_event_open is "
                       "refused: switches are read per thread from /proc, system calls and wake-ups are not counted "
                       "(run as root, or sysctl kernel.perf_event_paranoid=1)")
    # As root, an end that counts mounts tracefs where it is not (crates/rtt-counters, perf.rs).
    if facts.get("tracefs") == "not readable" or (facts.get("tracefs") == "not mounted" and facts.get("root") == "no"):
        missing.append(f"tracefs is {facts['tracefs']} at /sys/kernel/tracing, so system calls and wake-ups are not "
                       "counted (run as root: it mounts tracefs)")
    return "in the probed runs (PROBED) and with COUNTERS=all, " + "; ".join(missing) if missing else None


# The rules, in the order their lines are printed: each takes a host's facts (sweep.json's hosts[]) and
# the CPUs each end is pinned to there, and returns its line or None.
RULES = (governor, boost, irqbalance, thp, clocksource, isolated, shared_core, busy_cpus, other_processes, counters)


def warnings(facts: dict, pinned: dict[str, str]) -> list[str]:
    """The lines of every rule that applies to this host's facts."""
    return [line for rule in RULES if (line := rule(facts, pinned))]


def pinned_ends(cpus, ends: list[str]) -> dict[str, str]:
    """End (ping, pong, micro) → the CPU list it is pinned to on this host (`cpus(end)`, e.g. Spec.cpus), for
    the ends pinned."""
    return {end: cpus(end) for end in ends if cpus(end)}


def warn(prog: str, found: dict, pinned: dict[str, dict[str, str]]) -> dict:
    """sweep.json's hosts with each host's `warnings` (`pinned`: role → its ends' CPUs), each printed as one
    line before the first run."""
    for name, facts in found.items():
        facts["warnings"] = warnings(facts, pinned.get(facts.get("role"), {}))
        for line in facts["warnings"]:
            print(f"{prog}: warning: {name}: {line}", file=sys.stderr)
    return found


# What --check shows of each host, in order: sweep.json's names for them.
SHOWN = ("cpu_governor", "cpu_boost", "cpuidle_driver", "idle_states", "guest_halt_poll_ns", "aslr", "isolcpus",
         "nohz_full", "rcu_nocbs", "irqbalance", "thp", "thp_defrag", "clocksource", "clocksources", "smt_siblings",
         "load_average", "cpu_busy", "other_cpus", "busiest_processes", "perf_event_paranoid", "tracefs", "root")


def tune_outlook(tune: str) -> str:
    """What TUNE will do on this host, found without writing: whether this user may open /dev/cpu_dma_latency."""
    if tune != "1":
        return f"{tune}: a sweep leaves the idle states as they are"
    if os.access(CPU_DMA_LATENCY, os.W_OK):
        return "1: a sweep holds /dev/cpu_dma_latency at 0 us while it runs, so idle CPUs stay out of deep states"
    return ("1, but this user cannot write /dev/cpu_dma_latency (it needs root): idle CPUs will wait as "
            "cpuidle_driver and idle_states say")


def report(found: dict, pinned: dict[str, dict[str, str]], tune: dict[str, str]) -> str:
    """--check's printout: each host's settings, what TUNE does there (`tune`: role → the line), its warnings."""
    width = max(map(len, SHOWN)) + 2
    lines = [f"System check (read only: nothing was run, written or changed; CPU use sampled over {SAMPLE_S} s)"]
    for name, facts in found.items():
        role = facts.get("role")
        ends = ", ".join(f"{end} on CPU {cpus}" for end, cpus in pinned.get(role, {}).items()) or "ends not pinned"
        lines += ["", f"{name} ({role}: {ends}; kernel {facts.get('kernel') or UNKNOWN}, "
                      f"{facts.get('cpus_online') or UNKNOWN} CPUs)"]
        lines += [f"  {key:<{width}}{facts.get(key) or UNKNOWN}" for key in SHOWN]
        lines.append(f"  {'TUNE':<{width}}{tune[role]}")
        found_warnings = warnings(facts, pinned.get(role, {}))
        lines += [f"  warning: {line}" for line in found_warnings] or ["  no warnings"]
    return "\n".join(lines)
