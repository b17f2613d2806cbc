"""The logs' JSON schema: what it accepts and refuses, naming the field, and what parse.py does then."""

import json
from pathlib import Path

import pytest

from suite import logschema

from .conftest import cli
from .micro_logs import write_micro
from .logs import samples, windows, write_run, write_throughput

# schemars 1.x's shape of an internally tagged enum: each branch states its tag beside a $ref.
TAGGED = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "oneOf": [{"type": "object", "properties": {"kind": {"type": "string", "const": "a"}},
               "required": ["kind"], "$ref": "#/$defs/A"},
              {"type": "object", "properties": {"kind": {"type": "string", "enum": ["b"]}},
               "required": ["kind"], "allOf": [{"$ref": "#/$defs/B"}]}],
    "$defs": {
        "A": {"type": "object", "x-csv-header": ["seq", "value"], "additionalProperties": False,
              "properties": {"kind": True, "n": {"type": "integer", "format": "uint32", "minimum": 0},
                             "tags": {"type": "array", "items": {"type": "string"}},
                             "inner": {"anyOf": [{"$ref": "#/$defs/Inner"}, {"type": "null"}]}},
              "required": ["n", "inner"]},
        "B": {"type": "object", "x-csv-header": "when,what", "properties": {"rate": {"type": ["number", "null"]}},
              "required": ["rate"]},
        "Inner": {"type": "object", "properties": {"x": {"type": "number", "exclusiveMinimum": 0}}, "required": ["x"]},
    },
}


def refused(schema: logschema.Schema, log) -> str:
    with pytest.raises(logschema.Invalid) as e:
        schema.validate(log)
    return str(e.value)


def test_the_subset_schemars_emits_is_understood():
    schema = logschema.Schema(TAGGED)
    assert list(schema.kinds) == ["a", "b"]
    assert schema.csv_header("a") == "seq,value" and schema.csv_header("b") == "when,what"
    assert schema.blank("b") == {"rate": None} and schema.blank("a") == {"inner": None}
    schema.validate({"kind": "a", "n": 3, "inner": None, "tags": ["x"]})
    schema.validate({"kind": "a", "n": 3.0, "inner": {"x": 0.5}})
    schema.validate({"kind": "b", "rate": None})
    assert refused(schema, {"kind": "a", "n": -1, "inner": None}) == "field 'n' is -1, below 0"
    assert refused(schema, {"kind": "a", "n": True, "inner": None}) == "field 'n' is True, not integer"
    assert refused(schema, {"kind": "a", "n": 1, "inner": {"x": 0}}) == "field 'inner.x' is 0, at or below 0"
    assert refused(schema, {"kind": "a", "n": 1, "inner": {}}) == "field 'inner.x' is missing"
    assert refused(schema, {"kind": "a", "n": 1, "inner": None, "tags": [1]}) == "field 'tags.0' is 1, not string"
    assert refused(schema, {"kind": "a", "n": 1, "inner": None, "extra": 1}) == "field 'extra' is not allowed"
    assert refused(schema, {"kind": "b", "rate": "fast"}) == "field 'rate' is 'fast', not number or null"
    assert refused(schema, {"kind": "b", "rate": float("nan")}).startswith("field 'rate' is nan")
    assert refused(schema, {"kind": "c"}) == "field 'kind' is 'c', not one of 'a', 'b'"
    assert refused(schema, {"n": 1}) == "field 'kind' is missing"


def test_logs_the_suite_writes_fit_and_a_spoilt_one_is_refused_naming_the_field(tmp_path):
    schema = logschema.schema()
    assert set(schema.kinds) == {"rtt", "throughput", "micro"}
    assert schema.csv_header("micro") is None  # a micro log is its JSON alone
    micro = json.loads(write_micro(tmp_path, "tokio", "channel", 30).read_text())
    schema.validate(micro)
    assert refused(schema, micro | {"times_ns": [1.5]}) == "field 'times_ns.0' is 1.5, not integer"
    rtt = json.loads(Path(f"{write_run(tmp_path, 'std', 'tcp', 0.001, samples(1, 50))}.json").read_text())
    tp = json.loads(Path(f"{write_throughput(tmp_path, 'std', 'tcp', 64, windows(1, 5, 64))}.json").read_text())
    schema.validate(rtt)
    schema.validate(tp)
    assert refused(schema, {k: v for k, v in rtt.items() if k != "interval_s"}) == "field 'interval_s' is missing"
    assert refused(schema, rtt | {"payload": "64"}) == "field 'payload' is '64', not integer"
    assert refused(schema, rtt | {"rtt_ns": rtt["rtt_ns"] | {"p99": 1.5}}) == (
        "field 'rtt_ns.p99' is 1.5, not integer or null")
    assert refused(schema, tp | {"gbit_per_s": {}}) == "field 'gbit_per_s.mean' is missing"
    assert refused(schema, rtt | {"kind": "jitter"}) == (
        "field 'kind' is 'jitter', not one of 'rtt', 'throughput', 'micro'")


def test_a_log_the_schema_refuses_is_named_in_a_warning_and_skipped(capsys, tmp_path):
    write_run(tmp_path, "std", "tcp", 0.001, samples(1, 100))
    typo = write_run(tmp_path, "tokio", "tcp", 0.001, samples(2, 100))
    log = json.loads(Path(f"{typo}.json").read_text())
    del log["rtt_ns"]["p50"]
    Path(f"{typo}.json").write_text(json.dumps(log))
    wrong = write_run(tmp_path, "smol", "tcp", 0.001, samples(3, 100), decoy_iterations="none")
    status, out, err = cli(capsys, "-d", tmp_path, "--format", "csv")
    assert status == 0 and out.count("\n") == 2 and "\nstd,tcp," in out
    assert f"warning: {typo}.json: field 'rtt_ns.p50' is missing; skipped\n" in err
    assert f"warning: {wrong}.json: field 'decoy_iterations' is 'none', not integer or null; skipped\n" in err
    assert err.count("warning:") == 2


def test_a_reference_baselines_log_may_be_null_where_it_has_no_runtime(capsys, tmp_path):
    schema = logschema.schema()
    rtt = json.loads(Path(f"{write_run(tmp_path, 'std', 'tcp', 0.001, samples(1, 50))}.json").read_text())
    nulls = dict.fromkeys(("flavor", "threads", "decoy", "pacing", "udp_timeout_ms", "late", "rustc"))
    schema.validate(rtt | {"framework": "ping", "transport": "icmp"} | nulls)
    assert refused(schema, rtt | {"framework": "ping", "rtt_ns": None}) == "field 'rtt_ns' is None, not object"
    assert refused(schema, rtt | {"payload": None}) == "field 'payload' is None, not integer"
    assert set(nulls) <= set(schema.blank("rtt"))
    # Null where no log may have it (the schema marks only runtime fields nullable): named and skipped.
    write_run(tmp_path, "ping", "icmp", 0.01, samples(2, 50), interval_s=None)
    status, out, err = cli(capsys, "-d", tmp_path, "--format", "csv")
    assert status == 0 and out.count("\n") == 2
    assert "ping-icmp-64B-0.01s-0t.json: field 'interval_s' is None, not number; skipped" in err
    assert "Traceback" not in err
