"""Python's statistics of real runs of every runtime equal those rtt-core wrote in their JSON."""

import json
from pathlib import Path

import pytest

from analysis import load, stats
from suite import logschema, runtimes

from .conftest import cli


def json_of(stem: Path) -> dict:
    return json.loads(Path(f"{stem}.json").read_text())


def test_every_runtime_of_runtimes_json_ran_both_kinds_over_both_transports(real_logs):
    for kind, stems in real_logs.items():
        logs = [json_of(s) for s in stems]
        assert all(log["kind"] == kind and log["complete"] for log in logs), kind
        assert len({(log["framework"], log["transport"]) for log in logs}) == len(stems)
        assert len(stems) == 2 * len(runtimes.runtimes())
        assert all(isinstance(log["runtime_config"], dict) and log["variant"] is None for log in logs)


def test_rtt_statistics_from_the_csv_equal_the_jsons_rtt_ns(real_logs):
    for stem in real_logs["rtt"]:
        rtt_ns = json_of(stem)["rtt_ns"]
        rtt, *_ = load.read_samples(Path(f"{stem}.csv"), with_time=False)
        ours, _ = stats.describe(rtt)
        assert rtt_ns["n"] > 0, stem
        for key in ("n", "min", "max", "p50", "p90", "p99", "p999", "p9999"):
            assert ours[key] == rtt_ns[key], (stem.name, key)
        assert ours["mean"] == pytest.approx(rtt_ns["mean"], rel=1e-12), stem.name
        assert ours["stdev"] == pytest.approx(rtt_ns["stdev"], rel=1e-9), stem.name


def test_throughput_rates_from_the_csv_windows_equal_the_jsons(real_logs):
    for stem in real_logs["throughput"]:
        log = json_of(stem)
        ours, _ = stats.window_rates(*load.read_windows(Path(f"{stem}.csv")), log["window_s"])
        assert ours["windows"] == log["windows"] > 0 and ours["received"] == log["received"], stem.name
        for quantity in ("msg_per_s", "gbit_per_s"):
            for p in ("p5", "p50", "p95"):
                assert ours[f"{quantity}_{p}"] == log[quantity][p], (stem.name, quantity, p)
            assert ours[f"{quantity}_mean"] == pytest.approx(log[quantity]["mean"], rel=1e-12), stem.name


def test_the_schema_accepts_every_real_log_and_names_what_is_wrong_with_a_spoilt_one(real_logs):
    schema = logschema.schema()
    for kind, stems in real_logs.items():
        assert Path(f"{stems[0]}.csv").read_text().split("\n", 1)[0] == schema.csv_header(kind)
        for stem in stems:
            schema.validate(json_of(stem))
        log = json_of(stems[0])
        for spoilt, message in (({k: v for k, v in log.items() if k != "sent"}, "field 'sent' is missing"),
                                (log | {"payload": "64"}, "field 'payload' is '64', not integer"),
                                (log | {"kind": "jitter"},
                                 "field 'kind' is 'jitter', not one of 'rtt', 'throughput', 'micro'")):
            with pytest.raises(logschema.Invalid, match=f"^{message}$"):
                schema.validate(spoilt)


@pytest.mark.parametrize("kind", ["rtt", "throughput"])
def test_parse_py_reads_the_real_logs_without_a_warning(capsys, real_logs, kind):
    status, out, err = cli(capsys, "-d", real_logs[kind][0].parent, "-k", kind, "--format", "csv")
    assert status == 0 and err == ""
    assert out.count("\n") == 1 + len(real_logs[kind])


def test_a_log_of_a_suite_version_before_runtime_config_and_variant_is_still_read(capsys, real_logs, tmp_path):
    for stem in real_logs["rtt"][:2]:
        older = {k: v for k, v in json_of(stem).items() if k not in ("runtime_config", "variant")}
        (tmp_path / f"{stem.name}.json").write_text(json.dumps(older))
        (tmp_path / f"{stem.name}.csv").write_bytes(Path(f"{stem}.csv").read_bytes())
    status, out, err = cli(capsys, "-d", tmp_path, "-k", "rtt", "--format", "csv")
    assert status == 0 and err == ""
    assert out.count("\n") == 1 + 2
