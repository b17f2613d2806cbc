"""User mistakes and bad files: one clear line, no traceback, the documented exit status."""

# User mistakes and bad files: one clear line on stderr, no traceback, exit 2 for a bad command
# line and 1 when nothing usable is left; a file that cannot be read is named and skipped.

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO, cli, parse_py
from .logs import samples, windows, write_run, write_throughput


def one_line_error(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if not line.startswith(("warning:", "reading "))]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def test_no_logs_says_where_it_looked_and_how_to_make_some(tmp_path):
    (tmp_path / "latency-logs").mkdir()
    result = parse_py(cwd=tmp_path)  # the default folder, empty
    assert result.returncode == 1
    line = one_line_error(result.stderr)
    assert "latency-logs" in line and "run-localhost.sh" in line


def test_an_empty_folder_given_with_d(capsys, tmp_path):
    status, _, err = cli(capsys, "-d", tmp_path, "--summary")
    assert status == 1
    line = one_line_error(err)
    assert str(tmp_path) in line and "no rtt logs" in line


def test_a_missing_folder(capsys, tmp_path):
    status, _, err = cli(capsys, "-d", tmp_path / "nope")
    assert status == 1 and "no such folder" in one_line_error(err)


@pytest.mark.parametrize(("args", "word"), [
    (["-k", "latency"], "-k"), (["-t", "histogram"], "-t"), (["-p", "sctp"], "-p"),
    (["-r", "fast"], "-r"), (["-r", "-5"], "-r"), (["-l", "two"], "-l"), (["--format", "xml"], "--format"),
    (["--bogus"], "--bogus"),
])
def test_bad_arguments_exit_2_with_one_line(args, word, sweep_dir):
    result = parse_py("-d", sweep_dir, *args)
    assert result.returncode == 2
    line = one_line_error(result.stderr)
    assert word in line and line.startswith("parse.py: error:")


def test_a_filter_that_leaves_nothing_lists_what_exists(capsys, sweep_dir):
    status, _, err = cli(capsys, "-d", sweep_dir, "-p", "udp", "-r", "5k", "--summary")
    assert status == 1
    line = one_line_error(err)
    assert "-p udp -r 5k" in line
    assert "transports icmp, tcp, udp" in line and "rates 100, 1k, inf msg/s" in line
    assert "frameworks ping, std, tokio" in line and "tasks 0" in line


@pytest.mark.parametrize("where", ["missing-folder/out.pdf", "a-folder", "/proc/out.pdf"])
def test_an_unwritable_output(where, capsys, sweep_dir, tmp_path):
    (tmp_path / "a-folder").mkdir()
    out = where if where.startswith("/") else tmp_path / where
    status, _, err = cli(capsys, "-d", sweep_dir, "-t", "stat", "-o", out)
    assert status == 1
    line = one_line_error(err)
    assert line.startswith(f"parse.py: cannot write {out}")


def test_a_folder_of_throughput_logs_points_at_k(capsys, tmp_path):
    write_throughput(tmp_path, "tokio", "tcp", 64, windows(1, 10, 64))
    status, _, err = cli(capsys, "-d", tmp_path, "--summary")
    assert status == 1 and "1 throughput logs; choose them with -k" in one_line_error(err)


def test_logs_of_other_kinds_are_skipped_quietly(capsys, tmp_path):
    write_run(tmp_path, "std", "tcp", 0.001, samples(1, 100))
    write_throughput(tmp_path / "tp", "std", "tcp", 64, windows(2, 10, 64))
    status, out, err = cli(capsys, "-d", tmp_path, "--format", "csv")
    assert status == 0 and err == ""
    assert out.count("\n") == 2


def test_unreadable_files_are_named_and_skipped(capsys, tmp_path):
    write_run(tmp_path, "std", "tcp", 0.001, samples(1, 100))
    bad_rows = write_run(tmp_path, "tokio", "tcp", 0.001, samples(2, 100))
    Path(f"{bad_rows}.csv").write_text("seq,t_ns,rtt_ns\n0,0,12x\n")
    no_csv = write_run(tmp_path, "smol", "tcp", 0.001, samples(3, 100))
    Path(f"{no_csv}.csv").unlink()
    (tmp_path / "broken.json").write_text("{ not json")
    (tmp_path / "notes.csv").write_text("whatever,this,is\n1,2,3\n")
    orphan = tmp_path / "lonely-tcp-64B-0s-0t.csv"
    orphan.write_text("seq,t_ns,rtt_ns\n0,0,1000\n")
    old = tmp_path / "old.csv"
    old.write_text("framework,transport,test,count,rate,payload,tasks,value,unit\nstd,tcp,rtt,0,0,64,0,5,parsecs\n")
    (tmp_path / "other.json").write_text(json.dumps({"hello": "world"}))
    status, out, err = cli(capsys, "-d", tmp_path, "--format", "csv")
    assert status == 0
    assert out.count("\n") == 2 and "\nstd,tcp," in out
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 7, err
    for path in (f"{bad_rows}.csv", f"{no_csv}.csv", "broken.json", "notes.csv", orphan, old, "other.json"):
        assert any(str(path) in w for w in warnings), path
    assert "Traceback" not in err


def test_a_folder_of_only_unusable_files_exits_1(capsys, tmp_path):
    base = write_run(tmp_path, "std", "tcp", 0.001, samples(1, 10))
    Path(f"{base}.csv").write_text("garbage\x00\x01")
    status, _, err = cli(capsys, "-d", tmp_path, "--summary")
    assert status == 1
    assert "warning:" in err and "every one was skipped" in err and "Traceback" not in err


def test_a_filter_whose_only_match_is_unreadable_says_so(capsys, tmp_path):
    write_run(tmp_path, "std", "tcp", 0.001, samples(1, 10))
    base = write_run(tmp_path, "tokio", "tcp", 0.001, samples(2, 10))
    Path(f"{base}.csv").write_text("seq,t_ns,rtt_ns\n1,2,x\n")
    status, _, err = cli(capsys, "-d", tmp_path, "-f", "tokio", "--summary")
    assert status == 1
    assert "no usable rtt log matching -f tokio" in one_line_error(err)


def test_a_csv_that_disagrees_with_its_json_is_named_and_left_out_of_its_point(capsys, tmp_path):
    write_run(tmp_path, "std", "tcp", 0.001, samples(1, 100), repeat=1)
    base = write_run(tmp_path, "std", "tcp", 0.001, samples(2, 100), repeat=2)
    log = json.loads(Path(f"{base}.json").read_text())
    log["rtt_ns"]["n"] = 120  # the JSON says more samples than its CSV holds: one of them was cut short
    Path(f"{base}.json").write_text(json.dumps(log))
    status, out, err = cli(capsys, "-d", tmp_path, "--format", "csv")
    row = dict(zip(*(line.split(",") for line in out.splitlines()), strict=True))
    assert status == 0 and row["n"] == "100" and row["repeats"] == "1"  # round 1's samples alone
    assert f"warning: {base}.csv: 100 samples but its JSON says n = 120; skipped: its point has 1 repeat left\n" in err


def test_a_reader_that_stops_early_is_no_error(sweep_dir):
    child = subprocess.Popen([sys.executable, str(REPO / "parse.py"), "-d", str(sweep_dir), "--summary"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child.stdout.close()  # like `parse.py --summary | head -0`
    _, err = child.communicate(timeout=120)
    assert child.returncode == 0 and b"Traceback" not in err
