"""CONNECTIONS and LOAD: their checks, the points and stems they add, the starved connections a sweep
reports, and one real sweep of std with 1 and 4 connections in a closed and an open loop."""

import io
import subprocess
import sys

import pandas as pd
from pypdf import PdfReader

from sweep_helpers import BIN_DIR, REPO, check_log_pair, load_json, require_binaries, run_script, shim, sweep_dir

from suite import percentile  # noqa: E402
from sweepkit import commands, entry, knobs, network, plan, prepare, progress  # noqa: E402

from analysis.uncertainty import min_samples  # noqa: E402

OPEN_AT_ZERO = ("LOAD=open: interval 0 (back-to-back) has no schedule to send on, so its open-loop points are not "
                "planned")


def test_bad_connection_counts_and_loads_are_named_at_once():
    result = knobs.check({"CONNECTIONS": "0 4 many 100001", "LOAD": "closed half",
                          "PING_EXTRA": "--connections=8 --load open", "PONG_EXTRA": "--connections 8"}, "S")
    assert result.errors == [
        "CONNECTIONS: '0' is not a connection count from 1 to 100000",
        "CONNECTIONS: 'many' is not a connection count from 1 to 100000",
        "CONNECTIONS: '100001' is not a connection count from 1 to 100000",
        "LOAD: 'half' is not closed or open",
        "PING_EXTRA: --connections is set by the sweep for each point; use the CONNECTIONS knob",
        "PING_EXTRA: --load is set by the sweep for each point; use the LOAD knob",
        "PONG_EXTRA: --connections is set by the sweep for each point; use the CONNECTIONS knob"]
    assert knobs.check({"CONNECTIONS": " ", "LOAD": " "}, "S").errors == [
        'CONNECTIONS is empty: expected connection counts per ping, e.g. "1 100"',
        'LOAD is empty: expected closed, open or "closed open"']


def test_open_load_needs_an_interval_and_skips_back_to_back_with_a_warning():
    assert knobs.check({"LOAD": "open", "INTERVALS": "0 0.0"}, "S").errors == [
        'LOAD=open needs a schedule to send on: INTERVALS has only 0 (back-to-back), which only a closed loop '
        'runs; give an interval, e.g. INTERVALS="0.001"']
    mixed = knobs.check({"LOAD": "closed open", "INTERVALS": "0.001 0"}, "S")
    assert not mixed.errors and mixed.warnings == [OPEN_AT_ZERO]
    assert knobs.check({"MODE": "throughput", "CONNECTIONS": "4", "LOAD": "open"}, "S").warnings == [
        "CONNECTIONS and LOAD apply to MODE=rtt: a throughput point runs one connection"]


def test_points_multiply_by_connections_and_loads_and_their_stems_say_so():
    result = knobs.check({"CONNECTIONS": "1 010 4 10", "LOAD": "closed open closed", "INTERVALS": "0.001 0",
                          "PROTOCOLS": "udp", "BIN_DIR": "/b"}, "SP")
    assert (result.knobs["CONNECTIONS"], result.knobs["LOAD"]) == ("1 10 4", "closed open")  # each once, plainly
    points = plan.build(result.spec(), result.selection)
    assert [p.stem for p in points] == [  # one connection in a closed loop keeps the stems of older sweeps
        "std-udp-64B-0.001s-0t", "std-udp-64B-0.001s-0t-open", "std-udp-64B-0.001s-0t-10c",
        "std-udp-64B-0.001s-0t-10c-open", "std-udp-64B-0.001s-0t-4c", "std-udp-64B-0.001s-0t-4c-open",
        "std-udp-64B-0s-0t", "std-udp-64B-0s-0t-10c", "std-udp-64B-0s-0t-4c",  # no open loop back-to-back
        "ping-icmp-64B-0.001s-0t", "ping-icmp-64B-0s-0t"]  # the system ping: one stream, once per interval
    record = points[3].record()
    assert (record["connections"], record["load"]) == (10, "open") and "connections" not in points[-1].record()
    # Both ends get the point's connection count, the ping its load: in each end's whole command line.
    (run,) = [r for r in plan.runs(points, 1, seed=1) if r.point == points[3]]
    ping = commands.ping(result.spec(), run.point, "127.0.0.1:9", run.stem)
    assert ping[-8:] == ["--tasks", "0", "--connections", "10", "--load", "open", "--out", run.stem]
    pong = commands.pong("/b", "std", "udp", "127.0.0.1:0", run.point.end_args("pong"), result.spec())
    assert pong == ["/b/std-pong", "--address", "127.0.0.1:0", "--protocol", "udp", "--connections", "10"]
    assert plan.Run(points[3], 1).record()["starved"] is None
    # Throughput points are as before.
    tput = knobs.check({"MODE": "throughput", "SIZES": "64", "PROTOCOLS": "tcp", "CONNECTIONS": "4"}, "S")
    (point,) = plan.build(tput.spec(), tput.selection)
    assert point.stem == "std-tcp-64B-throughput-0t" and point.end_args("ping") == ("--tasks", "0")  # decoys only


def test_the_plan_names_the_connections_and_serve_readies_its_pongs_for_the_most(monkeypatch):
    env = {"CONNECTIONS": "1 100", "LOAD": "closed open", "INTERVALS": "0.001", "PROTOCOLS": "tcp", "SEED": "1",
           "BIN_DIR": str(BIN_DIR)}
    monkeypatch.setattr(entry, "missing_binaries", lambda *args: [])
    checked, spec, doc = entry.check(env, "S", "serve", ["pong"], "run-x")
    assert (checked.knobs["CONNECTIONS"], checked.knobs["LOAD"]) == ("1 100", "closed open")
    _, spec, shown = prepare.plan(doc, spec, None, "run-x")
    assert "  connections per ping: 1 100 (sharing the rate asked for: each sends at rate/N); load: closed open" in shown
    assert network.serve_pongs(doc, spec) == [("std", "std", "tcp", 9009, ("--connections", "100"))]
    assert ("On host A: CONNECTIONS='1 100' BASE_PORT=9009 ./run-network.sh --peer <this host's address> -S"
            in network.serving_lines(doc, spec, "10.0.0.2", []))


def test_starved_connections_are_said_on_the_progress_line_and_at_the_end():
    points = [{"stem": "tokio-tcp-64B-0.001s-0t-1000c", "connections": 1000, "status": "ok", "message": None}]
    runs = [{"stem": "tokio-tcp-64B-0.001s-0t-1000c-r1", "point": points[0]["stem"], "round": 1, "status": "ok",
             "start_s": 0, "wall_s": 5.5, "p50_ns": 56120, "achieved_rate": 1000.0, "starved": 3, "message": None}]
    spec = knobs.check({"WARMUP": "1", "DURATION": "4"}, "t").spec()
    doc = {"repeats": 1, "points": points, "runs": runs}
    assert progress.progress_line(doc, 0, 6.0, spec, "rtt") == (
        "[1/1 r1] tokio-tcp-64B-0.001s-0t-1000c      p50 56.12 µs          1 k msg/s   3/1000 conns starved   "
        "(5.5 s)   ETA 0s")
    lines = progress.closing_lines(doc | progress.totals(runs, 6.0, spec), "/tmp/x")
    assert lines[1:3] == ["Starved connections (1):",
                          "  tokio-tcp-64B-0.001s-0t-1000c-r1: 3 of 1000 connections got under half the median "
                          "replies"]
    assert "starved" not in progress.progress_line(doc | {"runs": [runs[0] | {"starved": 0}]}, 0, 6.0, spec, "rtt")


def test_a_sweep_of_connections_and_loads_passes_them_to_both_ends_and_parse_py_draws_them(tmp_path):
    require_binaries("std")
    bins = tmp_path / "bin"
    bins.mkdir()
    (bins / "std-ping").symlink_to(BIN_DIR / "std-ping")
    calls = tmp_path / "pong-calls"
    shim(bins, "std-pong", f'echo "$*" >>"{calls}"\nexec "{BIN_DIR / "std-pong"}" "$@"')
    run = run_script("run-localhost.sh", ["-S"], tmp_path / "out", BIN_DIR=bins, CONNECTIONS="1 4",
                     LOAD="closed open", INTERVALS="0.001 0", PROTOCOLS="tcp udp", DURATION="0.5", WARMUP="0.1")
    assert run.rc == 0, run.output
    assert OPEN_AT_ZERO in run.stderr
    assert "connections per ping: 1 4" in run.output
    folder = sweep_dir(tmp_path / "out")
    shapes = {(0.001, 1, "closed"): "", (0.001, 1, "open"): "-open", (0.001, 4, "closed"): "-4c",
              (0.001, 4, "open"): "-4c-open", (0.0, 1, "closed"): "", (0.0, 4, "closed"): "-4c"}
    expected = {f"std-{proto}-64B-{interval:g}s-0t{suffix}": (proto, n, load)
                for proto in ("tcp", "udp") for (interval, n, load), suffix in shapes.items()}
    sweep = load_json(folder / "sweep.json")
    assert (sweep["knobs"]["CONNECTIONS"], sweep["knobs"]["LOAD"]) == ("1 4", "closed open")
    assert {p["stem"]: (p["transport"], p["connections"], p["load"]) for p in sweep["points"]} == expected
    starved = {}
    for stem, (proto, n, load) in expected.items():
        log = check_log_pair(folder, f"{stem}-r1", "std", proto)
        assert (log["connections"], log["load"]) == (n, load)
        assert (log["window"] is not None, log["latency_ns"] is not None) == (load == "open", load == "open")
        rows = pd.read_csv(folder / f"{stem}-r1.csv")
        assert sorted(set(rows["conn"])) == list(range(n))  # every connection answered, none other
        assert rows["latency_ns"].notna().all() if load == "open" else rows["latency_ns"].isna().all()
        # Starved: a connection with under half the median replies, as its rows count them (how many is the
        # machine's doing: a loaded one may starve one of four).
        replies = sorted(rows["conn"].value_counts().tolist())
        starved[stem] = sum(2 * k < percentile.of(replies, 50) for k in replies)
        assert log["per_connection"]["starved"] == starved[stem], (stem, replies)
    assert {r["point"]: (r["status"], r["starved"]) for r in sweep["runs"]} == {
        stem: ("ok", k) for stem, k in starved.items()}
    pongs = [line.split() for line in calls.read_text().splitlines() if "--address" in line]
    assert sorted({args[args.index("--connections") + 1] for args in pongs}) == ["1", "4"]
    # parse.py: the table's columns agree with the logs, and the figure has a page per rate.
    parse = [sys.executable, str(REPO / "parse.py")]
    table = subprocess.run([*parse, "table", "-d", str(folder), "--format", "csv"], capture_output=True, text=True,
                           timeout=60)
    assert table.returncode == 0 and table.stderr == "", table.stderr
    for row in pd.read_csv(io.StringIO(table.stdout)).itertuples():
        suffix = shapes[(row.interval_s, row.connections, row.load)]
        log = load_json(folder / f"std-{row.transport}-64B-{row.interval_s:g}s-0t{suffix}-r1.json")
        assert row.p50_ns == log["rtt_ns"]["p50"] and row.starved == log["per_connection"]["starved"]
        if row.load == "open" and log["latency_ns"]["n"] >= min_samples(0.99):  # one run: its own p99, if it carries one
            assert row.latency_p99_ns == log["latency_ns"]["p99"]
        else:  # a closed loop has no corrected latency; an open one of too few samples prints none
            assert pd.isna(row.latency_p99_ns)
    figure = subprocess.run([*parse, "figures", "-d", str(folder), "-t", "connections", "-o", str(tmp_path / "c.pdf")],
                            capture_output=True, text=True, timeout=60)
    assert figure.returncode == 0, figure.stderr
    pages = [page.extract_text() for page in PdfReader(tmp_path / "c.pdf").pages]
    assert len(pages) == 2  # 1 k msg/s and back-to-back
    assert "UDP, open loop (window 64)" in pages[0] and "open loop" not in pages[1]
