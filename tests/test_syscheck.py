"""The system check: the latency settings read from a fake /proc and /sys, each warning's rule, --check and
the refusal of unknown long options in both scripts, and the settings and warnings a real sweep records."""

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from sweep_helpers import REPO, require_binaries
from sweepkit import hostfacts, syscheck

CPU = "sys/devices/system/cpu"
# This machine as the check found it: a 2-vCPU KVM guest, cpuidle haltpoll, no cpufreq, no SMT.
KVM_GUEST = {"role": "local", "cpu_governor": "none", "cpu_boost": "none", "cpuidle_driver": "haltpoll",
             "aslr": "2 (full)", "isolcpus": "none", "nohz_full": "none", "rcu_nocbs": "none",
             "irqbalance": "not running", "thp": "madvise", "clocksource": "tsc", "clocksources": "tsc kvm-clock",
             "smt_siblings": "cpu0: 0; cpu1: 1", "cpu_busy": "cpu0 2%, cpu1 1%", "other_cpus": "0.03",
             "busiest_processes": "kworker/0:1 (pid 12) 0.01 CPUs"}
PINNED = {"pong": "0", "ping": "1"}


def put(root: Path, files: dict[str, str]) -> Path:
    for path, content in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(content)
    return root


def proc_stat(cpus: list[tuple[int, int]]) -> str:
    """/proc/stat with a `cpu` line and a line per CPU, each (busy, idle) ticks as user and idle."""
    total = (sum(b for b, _ in cpus), sum(i for _, i in cpus))
    lines = [f"cpu  {total[0]} 0 0 {total[1]} 0 0 0 0 0 0"]
    lines += [f"cpu{n} {busy} 0 0 {idle} 0 0 0 0 0 0" for n, (busy, idle) in enumerate(cpus)]
    return "\n".join(lines + ["intr 0", "ctxt 0"]) + "\n"


def pid_stat(pid: int, name: str, utime: int, stime: int = 0) -> str:
    fields = ["S", "1", "1", "1", "0", "-1", "0", "0", "0", "0", "0", str(utime), str(stime), "0", "0"]
    return f"{pid} ({name}) {' '.join(fields)}\n"


BARE_METAL = {
    f"{CPU}/cpu0/cpufreq/scaling_governor": "powersave\n", f"{CPU}/cpu1/cpufreq/scaling_governor": "powersave\n",
    f"{CPU}/intel_pstate/no_turbo": "0\n",
    f"{CPU}/cpuidle/current_driver": "intel_idle\n",
    f"{CPU}/cpu0/cpuidle/state0/name": "POLL\n", f"{CPU}/cpu0/cpuidle/state0/latency": "0\n",
    f"{CPU}/cpu0/cpuidle/state1/name": "C6\n", f"{CPU}/cpu0/cpuidle/state1/latency": "170\n",
    f"{CPU}/isolated": "2-3\n", f"{CPU}/nohz_full": "2-3\n",
    f"{CPU}/cpu0/topology/thread_siblings_list": "0,2\n", f"{CPU}/cpu1/topology/thread_siblings_list": "1,3\n",
    "proc/cmdline": "BOOT_IMAGE=/vmlinuz isolcpus=2-3 nohz_full=2-3 rcu_nocbs=2-3 quiet\n",
    "proc/sys/kernel/randomize_va_space": "2\n",
    "sys/kernel/mm/transparent_hugepage/enabled": "[always] madvise never\n",
    "sys/kernel/mm/transparent_hugepage/defrag": "always defer defer+madvise [madvise] never\n",
    "sys/devices/system/clocksource/clocksource0/current_clocksource": "hpet\n",
    "sys/devices/system/clocksource/clocksource0/available_clocksource": "tsc hpet acpi_pm \n",
    "proc/loadavg": "3.10 2.00 1.50 4/300 12345\n",
    "proc/stat": proc_stat([(100, 900), (100, 900)]),
    "proc/1/stat": pid_stat(1, "systemd", 50), "proc/400/stat": pid_stat(400, "irqbalance", 5),
    "proc/401/stat": pid_stat(401, "cc1 (a compiler)", 1000),
}


def test_a_full_fake_host_gives_every_setting(tmp_path):
    facts = dict(hostfacts.settings(put(tmp_path, BARE_METAL), "0,1", 0))
    assert facts == facts | {
        "cpu_governor": "powersave", "cpu_boost": "on", "cpuidle_driver": "intel_idle",
        "idle_states": "POLL:0us C6:170us", "guest_halt_poll_ns": "unknown", "aslr": "2 (full)",
        "isolcpus": "2-3", "nohz_full": "2-3", "rcu_nocbs": "2-3", "irqbalance": "running", "thp": "always",
        "thp_defrag": "madvise", "clocksource": "hpet", "clocksources": "tsc hpet acpi_pm",
        "smt_siblings": "cpu0: 0,2; cpu1: 1,3", "load_average": "3.10 2.00 1.50",
        "cpu_busy": "cpu0 0%, cpu1 0%", "other_cpus": "0.00", "busiest_processes": "none"}
    rules = syscheck.warnings(facts | {"role": "local"}, PINNED)
    assert [line.split(":")[0] for line in rules] == [
        "the CPU frequency governor is powersave", "CPU boost (turbo) is on", "irqbalance is running",
        "transparent huge pages are `always`", "the clocksource is hpet", "CPUs 2-3 are isolated (isolcpus), but "
        "the ends are pinned to 0, 1, where everything else runs too; pin them to the isolated ones (PONG_CPUS, "
        "PING_CPUS)"]
    assert "it offers: tsc hpet acpi_pm" in rules[4]  # what to switch to


def test_a_host_without_cpufreq_has_no_governor_or_boost_and_no_warning_for_it(tmp_path):
    files = {k: v for k, v in BARE_METAL.items() if "cpufreq" not in k and "intel_pstate" not in k}
    facts = dict(hostfacts.settings(put(tmp_path, files), "0", 0))
    assert facts["cpu_governor"] == "none" and facts["cpu_boost"] == "none"
    assert not any("governor" in w or "boost" in w for w in syscheck.warnings(facts, PINNED))


def test_missing_files_read_unknown_and_never_raise(tmp_path):
    facts = dict(hostfacts.settings(tmp_path, "0,1", 0))
    assert {k: v for k, v in facts.items() if v != "unknown"} == {"smt_siblings": "cpu0: unknown; cpu1: unknown"}
    assert syscheck.warnings(facts, PINNED) == []
    report = syscheck.report({"nowhere": facts | {"role": "local"}}, {"local": PINNED}, {"local": "0: off"})
    assert "  cpu_governor         unknown" in report and "  no warnings" in report


def test_cpu_use_is_the_difference_of_two_snapshots_and_leaves_out_the_checker_and_vanished_processes(tmp_path):
    root = put(tmp_path, {"proc/stat": proc_stat([(100, 900), (100, 900)]), "proc/10/stat": pid_stat(10, "spin", 0),
                          "proc/11/stat": pid_stat(11, "gone", 0), "proc/12/stat": pid_stat(12, "me", 0),
                          "proc/13/stat": "13 (torn"})  # a stat file cut short as its process ended
    before = hostfacts.snapshot(root)
    put(root, {"proc/stat": proc_stat([(100 + 10, 900 + 90), (100 + 90, 900 + 10)]),
               "proc/10/stat": pid_stat(10, "spin", 60, 20), "proc/12/stat": pid_stat(12, "me", 10),
               "proc/14/stat": pid_stat(14, "new", 500)})  # started after the first snapshot: not measured
    (root / "proc/11/stat").unlink()
    (root / "proc/11").rmdir()
    facts = dict(hostfacts.cpu_use(before, hostfacts.snapshot(root), 1.0, 12, 0.01))
    assert facts == {"cpu_busy": "cpu0 10%, cpu1 90%", "other_cpus": "0.90",
                     "busiest_processes": "spin (pid 10) 0.80 CPUs"}


def test_each_warning_has_its_rule_and_a_normal_kvm_guest_has_none():
    assert syscheck.warnings(KVM_GUEST, PINNED) == []
    cases = {
        "governor": ({"cpu_governor": "schedutil"}, "set performance"),
        "boost": ({"cpu_boost": "on"}, "no_turbo"),
        "irqbalance": ({"irqbalance": "running"}, "systemctl stop irqbalance"),
        "thp": ({"thp": "always"}, "echo madvise"),
        "clocksource": ({"clocksource": "acpi_pm"}, "echo tsc"),
        "isolated": ({"isolcpus": "1"}, "pinned to 0"),
        "shared_core": ({"smt_siblings": "cpu0: 0-1; cpu1: 0-1"}, "CPUs 0 and 1 are SMT siblings"),
        "busy_cpus": ({"cpu_busy": "cpu0 3%, cpu1 80%"}, "CPU 1 (the ping's CPU) 80 %"),
        "other_processes": ({"other_cpus": "0.60", "busiest_processes": "make (pid 9) 0.55 CPUs"}, "make (pid 9)"),
        "counters": ({"root": "no", "perf_event_paranoid": "2"}, "sysctl kernel.perf_event_paranoid=1"),
    }
    assert sorted(cases) == sorted(rule.__name__ for rule in syscheck.RULES)
    for name, (setting, advice) in cases.items():
        (line,) = syscheck.warnings(KVM_GUEST | setting, PINNED)
        assert advice in line, name
    (line,) = syscheck.warnings(KVM_GUEST | {"root": "no", "perf_event_paranoid": "1", "tracefs": "not mounted"}, PINNED)
    assert "tracefs is not mounted" in line and "run as root: it mounts tracefs" in line and "COUNTERS=all" in line
    # As root the counting end mounts tracefs itself: nothing to say.
    assert syscheck.warnings(KVM_GUEST | {"root": "yes", "tracefs": "not mounted"}, PINNED) == []
    assert syscheck.warnings(KVM_GUEST | {"root": "no", "perf_event_paranoid": "1", "tracefs": "mounted"}, PINNED) == []
    # What is normal stays quiet: performance, kvm-clock, every CPU isolated that the ends use, one core each.
    quiet = {"cpu_governor": "performance", "cpu_boost": "off", "clocksource": "kvm-clock", "isolcpus": "0-1",
             "thp": "never", "other_cpus": "0.24", "cpu_busy": "cpu0 49%, cpu1 0%"}
    assert syscheck.warnings(KVM_GUEST | quiet, PINNED) == []
    # A busy SMT sibling of a pinned CPU is named as such; a sweep of one pinned end has no pair to share a core.
    (line,) = syscheck.warnings(KVM_GUEST | {"smt_siblings": "cpu1: 1,3", "cpu_busy": "cpu1 0%, cpu3 70%"},
                                {"ping": "1"})
    assert "CPU 3 (an SMT sibling of the ping's CPU 1) 70 %" in line


def script(name: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(REPO / name), *args], capture_output=True, text=True, timeout=120,
                          env=os.environ | env, stdin=subprocess.DEVNULL)


def test_check_names_every_setting_runs_nothing_and_writes_nothing(tmp_path):
    run = script("run-localhost.sh", "--check", "-S", OUT_DIR=str(tmp_path / "out"))
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    for setting in ("cpu_governor", "cpu_boost", "aslr", "thp", "irqbalance", "cpuidle_driver", "clocksource",
                    "isolcpus", "nohz_full", "rcu_nocbs", "smt_siblings", "busiest_processes", "TUNE"):
        assert f"\n  {setting} " in run.stdout, setting
    assert "pong on CPU 0, ping on CPU 1" in run.stdout and "Plan:" not in run.stdout
    assert not (tmp_path / "out").exists()


def test_check_across_hosts_without_remote_checks_this_host_as_the_pings(tmp_path):
    run = script("run-network.sh", "--check", OUT_DIR=str(tmp_path / "out"), PING_CPUS="0")
    assert run.returncode == 0 and "(ping: ping on CPU 0;" in run.stdout, run.stdout + run.stderr
    assert not (tmp_path / "out").exists()


LOCALHOST_LONG = "--pr, --check, --continue and --help"
NETWORK_LONG = "--remote, --remote-dir, --target, --peer, --serve, --check, --continue and --help"


@pytest.mark.parametrize("name, args, known", [
    ("run-localhost.sh", ["--chek"], LOCALHOST_LONG),
    ("run-localhost.sh", ["-S", "--dry-run"], LOCALHOST_LONG),
    ("run-network.sh", ["--remote", "b", "--chek"], NETWORK_LONG),
    ("run-network.sh", ["--serve", "--continu"], NETWORK_LONG),
])
def test_an_unknown_long_option_is_refused_not_read_as_flag_letters(name, args, known):
    run = script(name, *args)
    assert run.returncode == 2 and run.stdout == "", run.stdout
    assert run.stderr.startswith(f"{name}: unknown option {args[-1]}: this script's long options are {known}; "
                                 "the runtimes are chosen with one-letter flags such as -asStP\n"), run.stderr
    assert f"Try {name} -h." in run.stderr


@pytest.mark.parametrize("name, known", [("run-localhost.sh", LOCALHOST_LONG), ("run-network.sh", NETWORK_LONG)])
def test_the_refusal_lists_every_long_option_the_usage_names(name, known):
    synopsis = script(name, "-h").stdout.split("\n\n")[0]  # the Usage: lines, before the first blank line
    assert set(re.findall(r"--[a-z-]+", synopsis)) | {"--help"} == set(re.findall(r"--[a-z-]+", known)), synopsis


def test_a_sweep_records_each_hosts_settings_and_prints_its_warnings(tmp_path):
    require_binaries("std")
    run = script("run-localhost.sh", "-S", OUT_DIR=str(tmp_path), INTERVALS="0", PROTOCOLS="tcp", DURATION="0.2",
                 WARMUP="0", REPEATS="1")
    assert run.returncode == 0, run.stderr
    (info,) = [json.loads(p.read_text()) for p in tmp_path.glob("*/sweep.json")]
    ((name, facts),) = info["hosts"].items()
    assert {"cpu_governor", "cpu_boost", "aslr", "thp", "irqbalance", "clocksource", "isolcpus", "smt_siblings",
            "load_average", "busiest_processes", "cpuidle_driver"} <= set(facts)
    assert facts["smt_siblings"].startswith("cpu0: ")  # PONG_CPUS=0, PING_CPUS=1 by default
    printed = [line.split(f": warning: {name}: ", 1)[1] for line in run.stderr.splitlines()
               if f": warning: {name}: " in line]
    assert facts["warnings"] == printed
