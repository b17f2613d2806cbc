"""PROTOCOLS with http: the transports as one fact, its checks, points, commands and ports, and a real sweep of
every RTT dimension over TCP and HTTP (it needs main's http binaries: it fails, never skips, without them)."""

import ast
import re

from sweep_helpers import REPO, check_log_pair, load_json, require_binaries, run_script, sweep_dir

from suite import palette, transports  # noqa: E402
from sweepkit import commands, knobs, network, plan, pongs, usage  # noqa: E402
from sweepkit.selection import pong_entries  # noqa: E402


def test_the_transports_are_one_fact_that_the_sweep_and_the_analysis_read():
    from analysis import options

    parser = options.Parser()
    options.add_filters(parser)
    assert parser.parse_args(["-p", "http"]).protocol == "http"
    (choices,) = [a.choices for a in parser._actions if a.dest == "protocol"]
    assert tuple(choices) == transports.ORDER == palette.TRANSPORT_ORDER == ("tcp", "udp", "http", "icmp")
    assert knobs.DEFAULTS["PROTOCOLS"] == transports.DEFAULT == "tcp udp"
    assert pongs.LISTENING.search("listening on 127.0.0.1:4000 (http)")[3] == "http"
    assert set(palette.TRANSPORT_STYLES) == set(transports.ORDER)
    # No module of the sweep, the analysis or suite restates the list: no tuple or set of two transport names.
    restated = []
    for package in ("sweepkit", "analysis", "suite"):
        for path in (REPO / package).rglob("*.py"):
            if "tests" in path.parts or path.name == "transports.py":
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, (ast.Tuple, ast.Set, ast.List)):
                    names = {e.value for e in node.elts if isinstance(e, ast.Constant)} & set(transports.ORDER)
                    if len(names) >= 2:
                        restated.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert restated == []


def test_help_lists_each_transport_and_says_http_is_for_round_trips_only():
    lines = usage.flags_and_knobs(False).splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith('  PROTOCOLS="tcp udp"'))
    assert [line.split(":")[0].strip() for line in lines[at + 1:at + 4]] == ["tcp", "udp", "http"]
    assert lines[at + 3].endswith("(MODE=rtt only)")


def test_http_with_mode_throughput_is_refused_at_the_entry_naming_the_fix(tmp_path):
    message = ('PROTOCOLS: http is swept with MODE=rtt only, not MODE=throughput; drop it (PROTOCOLS="tcp") or '
               "sweep it with MODE=rtt")
    assert knobs.check({"MODE": "throughput", "PROTOCOLS": "tcp http"}, "S").errors == [message]
    run = run_script("run-localhost.sh", ["-S"], tmp_path, timeout=60, MODE="throughput", PROTOCOLS="tcp http")
    assert run.rc == 2 and message in run.stderr and not list(tmp_path.glob("localhost-*")), run.output
    assert knobs.check({"PROTOCOLS": "tcp gopher"}, "S").errors == ["PROTOCOLS: 'gopher' is not tcp, udp or http"]
    assert knobs.check({"PROTOCOLS": "udp tcp http"}, "SP").errors == []


def test_open_load_over_http_takes_no_window_above_one():
    env = {"PROTOCOLS": "tcp http", "LOAD": "open", "INTERVALS": "0.001"}
    assert knobs.check({**env, "PING_EXTRA": "--window 8"}, "S").errors == [
        "PING_EXTRA: --window 8 with http in open load: http has at most 1 request in flight per connection; "
        "drop --window, or http from PROTOCOLS"]
    assert knobs.check({**env, "PING_EXTRA": "--window=1"}, "S").errors == []
    assert knobs.check({**env, "PROTOCOLS": "tcp", "PING_EXTRA": "--window 8"}, "S").errors == []
    # The sweep passes no --window of its own: an http ping's window is 1.
    checked = knobs.check(env, "S")
    for point in plan.build(checked.spec(), checked.selection):
        argv = commands.ping(checked.spec(), point, "127.0.0.1:9", "/o/stem")
        assert "--window" not in argv and argv[argv.index("--load") + 1] == "open"


def test_an_http_point_is_planned_as_a_tcp_one_and_its_pong_speaks_http():
    checked = knobs.check({"PROTOCOLS": "tcp http", "INTERVALS": "0.001 0", "CONNECTIONS": "1 4", "TASKS": "0 2",
                           "LOAD": "closed open", "BIN_DIR": "/b"}, "tS")
    points = plan.build(checked.spec(), checked.selection)
    by = {t: sorted(p.stem.replace(f"-{t}-", "-X-") for p in points if p.transport == t) for t in ("tcp", "http")}
    assert by["tcp"] == by["http"] and len(by["http"]) == 2 * 2 * 2 * 3  # runtimes × conns × tasks × (2 closed, 1 open)
    point = next(p for p in points if p.stem == "tokio-http-64B-0.001s-2t-4c-open")
    assert commands.pong("/b", point.binary, point.transport, "127.0.0.1:0", point.end_args("pong"),
                         checked.spec()) == ["/b/tokio-pong", "--address", "127.0.0.1:0", "--protocol", "http",
                                             "--connections", "4"]
    ping = commands.ping(checked.spec(), point, "127.0.0.1:9", "/o/stem")
    assert ping[ping.index("--protocol") + 1] == "http"
    assert ping[-8:] == ["--tasks", "2", "--connections", "4", "--load", "open", "--out", "/o/stem"]


def test_served_http_pongs_take_the_ports_after_every_tcp_and_udp_pong():
    checked = knobs.check({"PROTOCOLS": "http udp tcp", "BASE_PORT": "9009"}, "tS", "serve")
    points = plan.build(checked.spec(), checked.selection)
    ports = {(p.framework, p.transport): p.port for p in points}
    block = len(pong_entries())  # a port per pong of runtimes.json, whichever are chosen
    assert ports[("std", "tcp")] == ports[("std", "udp")] == 9009 and ports[("std", "http")] == 9009 + block
    assert len({ports[k] for k in ports if k[1] != "udp"}) == 4  # no TCP port taken twice
    doc = {"frameworks": ["std", "tokio"], "variants": []}
    lines = network.serving_lines(doc, checked.spec(), "10.0.0.2", [])
    assert re.search(r"PROTOCOLS='http udp tcp' BASE_PORT=9009 \./run-network\.sh --peer", lines[-1]), lines


def logged(folder, doc, run: dict) -> bool:
    """Whether a run measured (its logs checked by the caller); else it must be one the sweep measured again and named
    empty: a loaded machine can hold a pong off its CPU for a whole window three times running (docs/reading.md)."""
    if run["status"] == "ok":
        return True
    assert run["status"] == "empty" and run["message"].startswith("no round trip in its window"), run
    assert [r["run"] for r in doc["retries"]].count(run["stem"]) == 2 and not (folder / f"{run['stem']}.json").exists()
    return False


def test_a_real_sweep_runs_every_rtt_dimension_over_http(tmp_path):
    require_binaries("std", "tokio")
    run = run_script("run-localhost.sh", ["-tS"], tmp_path, timeout=400, PROTOCOLS="tcp http",
                     INTERVALS="0.002 0", CONNECTIONS="1 3", LOAD="closed open", TASKS="0 2", DURATION="0.2",
                     WARMUP="0.05", TUNE="0")
    assert run.rc == 0, run.output
    folder = sweep_dir(tmp_path)
    doc = load_json(folder / "sweep.json")
    status = {r["stem"]: r for r in doc["runs"]}
    for stem in ("0.002s-0t", "0s-0t", "0.002s-2t-3c-open", "0s-2t-3c"):
        for transport in ("http", "tcp"):
            measured = [fw for fw in ("std", "tokio") if logged(folder, doc, status[f"{fw}-{transport}-64B-{stem}-r1"])]
            assert measured, (stem, transport, "neither runtime measured it")  # each dimension, over each transport
            for framework in measured:
                log = check_log_pair(folder, f"{framework}-{transport}-64B-{stem}-r1", framework, transport)
                if transport == "http":
                    assert log["http"]["method"] == "POST" and log["http"]["path"] == "/echo", log["http"]
                    assert log["http"]["body_bytes"] == 64 and set(log["http"]["statuses"]) == {"200"}
                    assert not stem.endswith("open") or (log["load"] == "open" and log["window"] == 1)
