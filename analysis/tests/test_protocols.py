"""HTTP beside TCP: http rows in every table and figure, -p http, and `parse.py protocols` on small logs and on a
tiny real sweep (std and tokio, PROTOCOLS="tcp http")."""

import math
import os
import subprocess

import pytest

from analysis import rtt
from analysis.cli import main
from analysis.rtt import protocols
from analysis.sweep import Filters, collect
from suite import runtimes, transports

from .conftest import REPO, pages
from .logs import read_table, samples, write_run

HTTP = {"method": "POST", "path": "/echo", "body_bytes": 64, "request_head_bytes": 90, "response_head_bytes": 60,
        "statuses": {"200": 300}}
MEDIANS = {"std": 20_000, "tokio": 24_000}  # ns over TCP; HTTP adds 9 µs
INTERVALS = (0.001, 0.0)


@pytest.fixture
def both_dir(tmp_path):
    """std and tokio over TCP and HTTP at 1 k msg/s and back-to-back, three rounds each."""
    folder, seed = tmp_path / "both", 0
    for framework, median in MEDIANS.items():
        for transport in ("tcp", "http"):
            for interval in INTERVALS:
                for repeat in (1, 2, 3):
                    seed += 1
                    write_run(folder, framework, transport, interval,
                              samples(seed, 300, median + (9_000 if transport == "http" else 0) + 700 * repeat),
                              repeat=repeat, http=HTTP if transport == "http" else None)
    return folder


def test_http_rows_sit_beside_tcp_in_the_table_and_p_http_keeps_them_alone(both_dir, capsys):
    assert main(["table", "-d", both_dir, "--format", "csv"]) == 0
    table = read_table(capsys.readouterr().out)
    assert sorted(set(table["transport"])) == ["http", "tcp"]
    assert list(dict.fromkeys(table["transport"])) == ["tcp", "http"]  # suite/transports.py's order
    http = table[(table["transport"] == "http") & (table["framework"] == "tokio")]
    assert http["delta_p50_ns"].notna().all()  # tokio's Δ vs std over HTTP: std's HTTP server is its baseline
    assert main(["table", "-d", both_dir, "-p", "http", "--format", "csv"]) == 0
    assert set(read_table(capsys.readouterr().out)["transport"]) == {"http"}


def test_the_difference_is_http_p50_less_tcp_p50_beside_each_delta_vs_std(both_dir, capsys):
    assert main(["protocols", "-d", both_dir, "--format", "csv"]) == 0
    rows = read_table(capsys.readouterr().out)
    assert list(rows.columns) == protocols.CSV_COLUMNS
    assert [(r.framework, r.interval_s) for r in rows.itertuples()] == [
        ("std", 0.001), ("std", 0.0), ("tokio", 0.001), ("tokio", 0.0)]
    # Every round ran both: the paired mean is the difference of the two p50s (each rounded to ns).
    assert ((rows["http_minus_tcp_ns"] - (rows["http_p50_ns"] - rows["tcp_p50_ns"])).abs() <= 1).all()
    assert rows["http_minus_tcp_ns"].between(6_000, 12_000).all() and (rows["pairs"] == 3).all()
    assert (rows["http_minus_tcp_low_ns"] <= rows["http_minus_tcp_ns"]).all()
    tokio, std = rows[rows["framework"] == "tokio"], rows[rows["framework"] == "std"]
    assert tokio["tcp_delta_p50_ns"].notna().all() and tokio["http_delta_p50_ns"].notna().all()
    assert std["tcp_delta_p50_ns"].isna().all()  # std is the baseline: no Δ of its own
    assert (rows["http_head_bytes"] == 150).all() and (rows["http_not_2xx"] == 0).all()
    assert main(["protocols", "-d", both_dir]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].split("  ")[0] == "framework" and "HTTP − TCP µs [95 % CI]" in text
    assert "HTTP heads on the wire: 150 B a round trip" in text


def test_protocols_draws_its_pages_and_closes_figures_all(both_dir, tmp_path, capsys):
    out = tmp_path / "protocols.pdf"
    assert main(["protocols", "-d", both_dir, "-o", out]) == 0
    assert pages(out) == 2  # one payload, decoy count and shape: its figure page, then the table
    sweep = collect(both_dir, rtt.KIND, Filters(), False, print)
    figure = next(iter(rtt.KIND.protocol_pages(sweep)))
    left, right = figure.axes[:2]
    assert [t.get_text() for t in figure.legends[0].get_texts()][:4] == ["std", "tokio", "TCP", "HTTP"]
    assert left.get_ylim() == right.get_ylim()  # one µs scale: the protocol's cost against the runtime's
    every = tmp_path / "all.pdf"
    assert main(["figures", "-d", both_dir, "-o", every]) == 0
    # delta 1 + stat 1 + ecdf, pdf, time 2 each (TCP, HTTP) + protocols' figure 1, then table 1 + protocols'
    # table 1 + machine 1
    assert pages(every) == 1 + 1 + 3 * 2 + 1 + 1 + 1 + 1
    alone = tmp_path / "alone.pdf"
    assert main(["figures", "-d", both_dir, "-t", "protocols", "-o", alone]) == 0 and pages(alone) == 1
    report = tmp_path / "report.html"
    assert main(["figures", "-d", both_dir, "-o", report]) == 0
    html = report.read_text()
    assert 'id="protocols-1"' in html and "HTTP − TCP on each runtime" in html  # the HTML report has it too
    capsys.readouterr()


def test_http_is_drawn_with_its_own_line_style_in_every_figure(both_dir):
    sweep = collect(both_dir, rtt.KIND, Filters(), True, print)
    (stat,) = rtt.FIGURES["stat"].pages(sweep, "log")
    assert [ax.get_title() for ax in stat.axes] == ["TCP", "HTTP"]
    drawn = [{line.get_linestyle() for line in ax.get_lines() if line.get_linestyle() != "None"} for ax in stat.axes]
    assert drawn == [{"-"}, {"--"}]  # matplotlib names any dash pattern "--": HTTP's is its own below
    assert sweep.palette.linestyle("http") == transports.by_name("http").style != sweep.palette.linestyle("tcp")
    titles = [f.texts[0].get_text() if f.texts else f._suptitle.get_text()
              for f in rtt.FIGURES["ecdf"].pages(sweep, "log")]
    assert any("— HTTP," in t for t in titles) and any("— TCP," in t for t in titles)


def test_protocols_says_what_to_sweep_when_no_runtime_ran_both(sweep_dir, capsys):
    assert main(["protocols", "-d", sweep_dir]) == 1
    err = capsys.readouterr().err
    assert "ran over both tcp and http" in err and 'PROTOCOLS="tcp http"' in err
    assert main(["protocols", "-d", sweep_dir, "-p", "tcp"]) == 2  # it reads both: no -p
    capsys.readouterr()
    assert main(["figures", "-d", sweep_dir, "-t", "protocols", "-o", str(sweep_dir / "p.pdf")]) == 1
    assert "-t protocols: no runtime" in capsys.readouterr().err and not (sweep_dir / "p.pdf").exists()


def test_an_http_log_with_non_2xx_replies_is_read_and_said(tmp_path, capsys):
    folder = tmp_path / "refused"
    for framework, transport in (("std", "tcp"), ("std", "http")):
        write_run(folder, framework, transport, 0.0, samples(1, 200),
                  http={**HTTP, "statuses": {"200": 200, "503": 4}} if transport == "http" else None)
    assert main(["protocols", "-d", folder]) == 0
    assert "! 4 HTTP replies were not 2xx" in capsys.readouterr().out


# -- a tiny real sweep: needs the http binaries; fails, never skips, without them ----------

def _sweep(out_dir) -> subprocess.CompletedProcess:
    env = {**os.environ, "OUT_DIR": str(out_dir), "PROTOCOLS": "tcp http", "INTERVALS": "0.002 0",
           "REPEATS": "3", "DURATION": "0.2", "WARMUP": "0.05", "SEED": "31", "TUNE": "0", "NICE": "0", "PROBED": "0"}
    flags = "-" + "".join(runtimes.by_label(label).flag for label in ("std", "tokio"))
    return subprocess.run([str(REPO / "run-localhost.sh"), flags], env=env, capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)


def test_a_real_sweep_of_tcp_and_http_reads_as_what_each_costs(tmp_path, capsys):
    run = _sweep(tmp_path)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    (folder,) = tmp_path.glob("localhost-*")
    assert main(["table", "-d", folder, "--format", "csv"]) == 0
    table = read_table(capsys.readouterr().out)
    assert set(zip(table["framework"], table["transport"])) == {(f, t) for f in ("std", "tokio")
                                                                  for t in ("tcp", "http")}
    assert main(["protocols", "-d", folder, "--format", "csv"]) == 0
    rows = read_table(capsys.readouterr().out)
    assert sorted(rows["framework"]) == ["std", "std", "tokio", "tokio"]
    carried = 0
    for r in rows.itertuples():
        point = table[(table["framework"] == r.framework) & (table["interval_s"] == r.interval_s)]
        tcp, http = (point.loc[point["transport"] == t, "p50_ns"].item() for t in ("tcp", "http"))
        # The table's figure, or its refusal: 100 samples a run carry a p50, but a run that a loaded machine
        # stalled to a few samples makes the point's effective n too small (Kish), in both commands alike.
        assert [None if math.isnan(v) else v for v in (r.tcp_p50_ns, r.http_p50_ns)] == \
            [None if math.isnan(v) else v for v in (tcp, http)], r
        carried += not math.isnan(tcp) and not math.isnan(http)
        assert 1 <= r.pairs <= 3, r
        if r.pairs == 3 and not math.isnan(http - tcp):  # every round's runs have samples: the same runs
            assert abs(r.http_minus_tcp_ns - (http - tcp)) <= 1, r
        assert r.http_head_bytes > 0 and r.http_not_2xx == 0
    assert carried >= 2, rows  # a stall or two leave the other points their p50s: the comparison compared
    tokio = rows[rows["framework"] == "tokio"]
    assert tokio["tcp_delta_p50_ns"].notna().all() and tokio["http_delta_p50_ns"].notna().all()
