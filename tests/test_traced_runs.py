"""TRACE=1: a sweep's traced runs, real ones recorded through tracefs and split by parse.py phases, and the split
itself on events written by hand."""

import csv
import io
import os
import subprocess

import numpy as np
from pypdf import PdfReader

from analysis import phases, trace_events
from suite import traces
from sweepkit import tracing

from sweep_helpers import REPO, load_json, require_binaries, run_script, sweep_dir

PY = str(REPO / ".venv" / "bin" / "python")
PING, PONG = 100, 200  # tgids of the hand-written traces


def line(us: int, task: str, tid: int, tgid: int, event: str, fields: str) -> str:
    return f"{task}-{tid} ({tgid:>7}) [001] d..2. 1000.{us:06d}: {event}: {fields}"


def round_trip(t: int, ping_wakeup_seen: bool = True, pong_woken_by_idle_cpu: bool = False,
               next_call: tuple[int, str] | None = (48, "NR 230 (1, 1, 0, 0, 0, 0)")) -> list[str]:
    """One round trip of a std-like pair: ping task 101 sends, pong task 201 wakes, echoes, ping receives, then
    enters its next call (by default at 48 µs it sleeps to the next tick, switched out at 49)."""
    pong_woken = "comm=pong pid=201 prio=120 target_cpu=000"
    out = [line(t, "ping", 101, PING, "sys_enter", "NR 44 (5, 0, 40, 4000, 0, 0)"),
           *([] if pong_woken_by_idle_cpu else [line(t + 10, "ping", 101, PING, "sched_wakeup", pong_woken)]),
           line(t + 11, "ping", 101, PING, "sys_exit", "NR 44 = 64"),
           line(t + 12, "ping", 101, PING, "sys_enter", "NR 45 (5, 0, 40, 0, 0, 0)"),
           *([line(t + 14, "<idle>", 0, 0, "sched_wakeup", pong_woken)] if pong_woken_by_idle_cpu else []),
           line(t + 13, "ping", 101, PING, "sched_switch",
                "prev_comm=ping prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120"),
           line(t + 15, "other", 7, 7, "sched_switch",
                "prev_comm=other prev_pid=7 prev_prio=120 prev_state=R ==> next_comm=pong next_pid=201 next_prio=120"),
           line(t + 16, "pong", 201, PONG, "sys_exit", "NR 45 = 64"),
           line(t + 17, "pong", 201, PONG, "sys_enter", "NR 44 (5, 0, 40, 4000, 0, 0)")]
    if ping_wakeup_seen:
        out += [line(t + 40, "pong", 201, PONG, "sched_wakeup", "comm=ping pid=101 prio=120 target_cpu=001"),
                line(t + 45, "<idle>", 0, 0, "sched_switch",
                     "prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=ping next_pid=101 next_prio=120")]
    out += [line(t + 42, "pong", 201, PONG, "sys_exit", "NR 44 = 64"),
            line(t + 47, "ping", 101, PING, "sys_exit", "NR 45 = 64")]
    if next_call:
        out.append(line(t + next_call[0], "ping", 101, PING, "sys_enter", next_call[1]))
        if "NR 230" in next_call[1]:
            out.append(line(t + next_call[0] + 1, "ping", 101, PING, "sched_switch",
                            "prev_comm=ping prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120"))
    return out


def test_a_round_trip_s_events_split_it_into_its_six_phases():
    events = trace_events.parse("\n".join(["# tracer: nop", *round_trip(0), *round_trip(1000)]))
    found = phases.split(events, PING, PONG)
    assert (found.complete, found.unmarked, found.inferred) == (2, 0, 0)
    # send 0→10, pong wake-up 10→15, turnaround 15→40, ping wake-up 40→45, receive 45→47, return 47→48: the call it sleeps in (µs).
    assert found.phases.tolist() == [[10_000, 5_000, 25_000, 5_000, 2_000, 1_000]] * 2
    assert found.calls.tolist() == [[2, 1]] * 2  # the ping's send and receive, the pong's send (its receive began before)


def test_a_ping_wake_up_the_trace_missed_is_taken_from_the_pong_s_send_and_counted():
    """An idle CPU that polls wakes its task without a recorded wake-up or switch on some kernels."""
    events = trace_events.parse("\n".join(round_trip(0, ping_wakeup_seen=False)))
    found = phases.split(events, PING, PONG)
    assert (found.complete, found.inferred) == (1, 1)
    assert found.phases.tolist() == [[10_000, 5_000, 27_000, 5_000, 0, 1_000]]  # woken by the send's end (42), ran at 47


def test_a_pong_woken_by_its_idle_cpu_after_the_ping_went_on_into_its_receive_is_timed_from_the_ping_s_send():
    """An idle CPU that polls takes the wake-up over in its own context, which may come after the sender's call."""
    events = trace_events.parse("\n".join(round_trip(0, pong_woken_by_idle_cpu=True)))
    found = phases.split(events, PING, PONG)
    assert found.complete == 1
    # send 0→14 (the sendto's entry, not the recvfrom's at 12), pong wake-up 14→15.
    assert found.phases.tolist() == [[14_000, 1_000, 25_000, 5_000, 2_000, 1_000]]


def test_a_round_trip_whose_chain_never_closed_is_counted_apart_and_not_joined_to_the_next():
    """Where neither the ping's wake-up nor its receive was recorded, the next send to the pong starts afresh."""
    lost = [t for t in round_trip(0, ping_wakeup_seen=False) if "sys_exit: NR 45" not in t or "ping-101" not in t]
    found = phases.split(trace_events.parse("\n".join([*lost, *round_trip(1000)])), PING, PONG)
    assert (found.complete, found.unmarked) == (1, 1)
    assert found.phases.tolist() == [[10_000, 5_000, 25_000, 5_000, 2_000, 1_000]]


def test_a_reactor_s_eventfd_read_before_the_echo_s_receive_does_not_end_the_round_trip():
    events = round_trip(0)
    at = next(i for i, t in enumerate(events) if "sys_exit: NR 45" in t and "ping-101" in t)
    events[at:at] = [line(46, "ping", 101, PING, "sys_enter", "NR 0 (7, 0, 8, 0, 0, 0)"),
                     line(46, "ping", 101, PING, "sys_exit", "NR 0 = 8")]  # an eventfd's 8 bytes
    found = phases.split(trace_events.parse("\n".join(events)), PING, PONG, payload=64)
    assert found.phases.tolist() == [[10_000, 5_000, 25_000, 5_000, 2_000, 1_000]]  # received at 47, not 46


def test_a_ping_s_return_lasts_until_it_sends_again_or_sleeps_and_without_either_the_round_trip_is_unmarked():
    """An io_uring runtime reaps its completion in user space after io_uring_enter returns, and glommio makes calls
    of its own before it sends again: back-to-back the return lasts until the next send, calls and all."""
    back_to_back = round_trip(0, next_call=(52, "NR 426 (4, 0, 1, 1, 0, 8)"))  # a call that does not send …
    back_to_back += [line(59, "ping", 101, PING, "sys_enter", "NR 44 (5, 0, 40, 4000, 0, 0)"),  # … then the send
                     line(60, "ping", 101, PING, "sched_wakeup", "comm=pong pid=201 prio=120 target_cpu=000")]
    found = phases.split(trace_events.parse("\n".join(back_to_back)), PING, PONG, payload=64)
    assert found.phases.tolist() == [[10_000, 5_000, 25_000, 5_000, 2_000, 12_000]]
    assert found.unmarked == 1  # the next round trip, cut by the trace's end
    found = phases.split(trace_events.parse("\n".join(round_trip(0, next_call=None))), PING, PONG)
    assert (found.complete, found.unmarked) == (0, 1)


def test_an_echo_read_by_a_ping_that_polled_for_it_ends_its_round_trip_unmarked():
    """glommio's ping polls its rings without sleeping and reads the echo: the chain must not wait for the ping's next
    wake-up (its timer's, a tick later) and take that for the echo's."""
    polled = [t for t in round_trip(0, ping_wakeup_seen=False) if "prev_comm=ping" not in t]
    timer = [line(60, "ping", 101, PING, "sched_switch",  # asleep in its ring's wait until the next tick …
                  "prev_comm=ping prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120"),
             line(900, "<idle>", 0, 0, "sched_wakeup", "comm=ping pid=101 prio=120 target_cpu=001"),
             line(905, "<idle>", 0, 0, "sched_switch",
                  "prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=ping next_pid=101 next_prio=120"),
             line(906, "ping", 101, PING, "sys_exit", "NR 426 = 1")]  # … whose completion is the timer's, not an echo
    found = phases.split(trace_events.parse("\n".join([*polled, *timer, *round_trip(1000)])), PING, PONG, payload=64)
    assert (found.complete, found.unmarked) == (1, 1)
    assert found.phases.tolist() == [[10_000, 5_000, 25_000, 5_000, 2_000, 1_000]]


def test_a_ping_that_never_slept_leaves_its_round_trip_unmarked():
    spinning = [t for t in round_trip(0, ping_wakeup_seen=False) if "sched_switch: prev_comm=ping" not in t]
    found = phases.split(trace_events.parse("\n".join(spinning)), PING, PONG)
    assert (found.complete, found.unmarked) == (0, 1)


def traced_sweep(tmp_path, **knobs):
    require_binaries("std")
    why = tracing.unavailable()
    assert why is None, why  # CI and the suite's machines run as root, where tracefs mounts
    run = run_script("run-localhost.sh", ["-S"], tmp_path, timeout=180, TRACE="3", PROTOCOLS="tcp",
                     INTERVALS="0.001", DURATION="0.3", WARMUP="0.1", REPEATS="2", **knobs)
    assert run.rc == 0, run.output
    return sweep_dir(tmp_path), run


def phases_csv(folder) -> dict[str, dict]:
    out = subprocess.run([PY, str(REPO / "parse.py"), "phases", "-d", str(folder), "--format", "csv"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return {r["point"]: r for r in csv.DictReader(io.StringIO(out.stdout))}


def test_a_traced_sweep_keeps_its_traced_runs_apart_and_a_planted_spin_lands_in_the_pong_s_turnaround(tmp_path):
    folder, run = traced_sweep(tmp_path, VARIANTS="std-d=std:pong:--delay-ns 200000")
    assert "TRACE=3: 3 traced run(s) of each of 2 points, in rounds" in "".join(run.stdout)
    doc = load_json(folder / "sweep.json")
    assert sorted((t["point"], t["round"], t["status"], t["lost_events"]) for t in doc["traces"]) == [
        (point, k, "ok", 0) for point in ("std-d-tcp-64B-0.001s-0t", "std-tcp-64B-0.001s-0t") for k in (1, 2, 3)]
    assert sorted(p.name for p in (folder / traces.FOLDER).iterdir()) == [
        f"{point}-t{k}.trace" for point in ("std-d-tcp-64B-0.001s-0t", "std-tcp-64B-0.001s-0t") for k in (1, 2, 3)]
    assert not list((folder / traces.FOLDER).glob("*.json"))  # the traced pings' own logs stay out of the folder
    # The measured runs are the 2 rounds' alone: the table's repeats, as without TRACE.
    assert sorted(p.name for p in folder.glob("std-tcp-64B-0.001s-0t-r*.json")) == [
        "std-tcp-64B-0.001s-0t-r1.json", "std-tcp-64B-0.001s-0t-r2.json"]
    rows = phases_csv(folder)
    plain, spun = rows["std-tcp-64B-0.001s-0t"], rows["std-d-tcp-64B-0.001s-0t"]
    for r in (plain, spun):
        assert r["runs"] == "3" and int(r["complete"]) >= 0.8 * int(r["round_trips"]) >= 0.8 * 750, r  # 3 × 0.4 s
        assert 0.7 < float(r["accounted"]) < 1.3, r  # the phases hold the run's own p50, user-space time aside
    # The pong spins 200 µs between its receive and its send: its turnaround, and nothing else, grows by that. In
    # medians, which a loaded machine's stalls in a few round trips leave alone (the table's means, trimmed, less so).
    medians = {name: np.median(phases.read(folder / traces.FOLDER / f"{name}-tcp-64B-0.001s-0t-t1.trace").split.phases,
                               axis=0) for name in ("std", "std-d")}
    grown = medians["std-d"] - medians["std"]
    turnaround = phases.PHASES.index("pong turnaround")
    assert 170_000 < grown[turnaround] < 230_000, medians
    assert np.abs(np.delete(grown, turnaround)).sum() < 0.25 * grown[turnaround], medians
    assert 170_000 < float(spun["pong_turnaround_ns"]) - float(plain["pong_turnaround_ns"]) < 260_000, (plain, spun)
    # The same as a Δ paired by traced round, its interval clear of 0; std's own row has none.
    assert spun["delta_rounds"] == "3" and plain["delta_rounds"] == "0" and plain["delta_sum_ns"] == ""
    low, delta, high = (float(spun[f"delta_pong_turnaround{end}"]) for end in ("_low_ns", "_ns", "_high_ns"))
    assert 0 < low < delta < high and 170_000 < delta < 260_000, spun
    # Its page: a bar a point, named by the point.
    pdf = tmp_path / "phases.pdf"
    out = subprocess.run([PY, str(REPO / "parse.py"), "phases", "-d", str(folder), "-o", str(pdf)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and f"wrote {pdf} (2 pages)" in out.stderr, out.stderr  # the bars, the timelines
    for page in PdfReader(pdf).pages:
        text = page.extract_text()
        assert "std-d-tcp-64B-0.001s-0t" in text and "pong turnaround" in text, text


def test_phases_without_traced_runs_says_how_to_get_them(tmp_path):
    folder = tmp_path / "localhost-20260101-000000"
    folder.mkdir()
    (folder / "sweep.json").write_text("{}")
    out = subprocess.run([PY, str(REPO / "parse.py"), "phases", "-d", str(folder)], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 1 and "no traced runs in traces/ (sweep with TRACE=1, as root)" in out.stderr


def test_trace_must_be_a_number_of_runs(tmp_path):
    run = run_script("run-localhost.sh", ["-S"], tmp_path, TRACE="yes")
    assert run.rc == 2 and "TRACE='yes': expected how many traced runs of each point" in run.stderr


def test_tracing_says_what_is_missing_where_tracefs_is_not_there(tmp_path):
    why = tracing.unavailable(tmp_path / "nowhere")
    wanted = "tracefs cannot be mounted at" if os.geteuid() == 0 else "as root, mount -t tracefs nodev"
    assert wanted in why, why
