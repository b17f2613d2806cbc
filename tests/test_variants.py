"""VARIANTS (a runtime run with other options under its own label) and runs skipped because io_uring is
unavailable: the knob's checks and messages, the plan, sweep.json, and real sweeps of real binaries."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from sweep_helpers import (shim, BIN_DIR, REPO, Run, check_log_pair, load_json, progress_lines, require_binaries,
                           run_script, script_env, sweep_dir)

from suite import runtimes  # noqa: E402
from sweepkit import commands, entry, knobs, network, plan, prepare, state, summary, variants  # noqa: E402

SCRIPT = "run-localhost.sh"
TWO = "tokio-ct=tokio:--flavor current_thread tokio-ei8=tokio:--event-interval 8"
EXAMPLE = "e.g. tokio-ct=tokio:--flavor current_thread, or std-slow=std:pong:--delay-ns 4000"


@pytest.fixture(autouse=True)
def four_runtimes(monkeypatch):
    """The runtimes these expectations name: runtimes.json's first four, and its references."""
    listed = tuple(e for e in runtimes.entries() if e.reference or e.label in ("std", "tokio", "async-std", "smol"))
    monkeypatch.setattr(runtimes, "entries", lambda: listed)


def test_each_label_base_colon_token_starts_a_variant_and_the_tokens_after_it_are_its_arguments():
    problems = []
    found = variants.parse(f"  {TWO}  std-2=std: --threads 2 ", problems)
    assert problems == []
    assert [(v.label, v.base, v.args) for v in found] == [
        ("tokio-ct", "tokio", ("--flavor", "current_thread")), ("tokio-ei8", "tokio", ("--event-interval", "8")),
        ("std-2", "std", ("--threads", "2"))]
    assert found[0].ping_args == ("--flavor", "current_thread", "--variant", "tokio-ct")
    assert found[0].record() == {"label": "tokio-ct", "base": "tokio", "args": ["--flavor", "current_thread"],
                                 "end": "both", "ping_args": ["--flavor", "current_thread"],
                                 "pong_args": ["--flavor", "current_thread"]}
    assert variants.from_records([v.record() for v in found]) == found
    assert variants.from_records([{"label": "a", "base": "tokio", "args": ["--threads", "1"]}]) == [
        variants.Variant("a", "tokio", ("--threads", "1"))]  # a sweep.json from before one-end variants
    assert variants.parse("", problems) == [] and problems == []


def test_a_variant_may_give_its_arguments_to_one_end_only():
    problems = []
    slow, fast = variants.parse("std-slow=std:pong:--delay-ns 4000 t-ping=tokio:ping: --pacing spin", problems)
    assert problems == []
    assert (slow.end, slow.args, slow.pong_args, slow.ping_args) == (
        "pong", ("--delay-ns", "4000"), ("--delay-ns", "4000"), ("--variant", "std-slow"))
    assert (fast.end, fast.pong_args, fast.ping_args) == ("ping", (), ("--pacing", "spin", "--variant", "t-ping"))
    assert slow.record() == {"label": "std-slow", "base": "std", "args": ["--delay-ns", "4000"], "end": "pong",
                             "ping_args": [], "pong_args": ["--delay-ns", "4000"]}
    assert variants.from_records([slow.record(), fast.record()]) == [slow, fast]
    result = knobs.check({"VARIANTS": "std-slow=std:pong:--delay-ns 4000", "INTERVALS": "0", "PROTOCOLS": "udp"}, "S")
    points = plan.build(result.spec(), result.selection, None, result.variants)
    assert [(p.framework, p.end_args("ping"), p.end_args("pong")) for p in points] == [
        ("std", ("--tasks", "0", "--connections", "1", "--load", "closed"), ("--connections", "1")),
        ("std-slow", ("--variant", "std-slow", "--tasks", "0", "--connections", "1", "--load", "closed"),
         ("--delay-ns", "4000", "--connections", "1"))]


@pytest.mark.parametrize("text, message", [
    ("--flavor current_thread", f"VARIANTS: '--flavor' does not start a variant: expected LABEL=BASE:ARG..., {EXAMPLE}"),
    ("ct=tokyo:--threads 1", "VARIANTS: ct=tokyo: 'tokyo' is not a runtime; the runtimes are std, tokio, async-std, "
                             "smol"),
    ("ct=ping:--threads 1", "VARIANTS: ct=ping: 'ping' is not a runtime; the runtimes are std, tokio, async-std, smol"),
    ("smol=tokio:--threads 1", "VARIANTS: smol=tokio: the label 'smol' is already a label of runtimes.json; give the "
                               "variant its own"),
    ("busy-poll=std:--threads 1", "VARIANTS: busy-poll=std: the label 'busy-poll' is already a label of "
                                  "runtimes.json; give the variant its own"),
    ("a=tokio:--threads 1 a=smol:--threads 2", "VARIANTS: a=smol: the label 'a' is already another variant; give "
                                               "the variant its own"),
    ("ct=tokio:", f"VARIANTS: ct=tokio: gives no arguments: a variant runs its base with other options, {EXAMPLE}"),
    ("t/ct=tokio:--threads 1", "VARIANTS: t/ct=tokio: the label 't/ct' may hold only letters, digits, '.', '_' and "
                               "'-'"),
    ("ct=tokio:--variant x", "VARIANTS: ct=tokio: --variant is the sweep's to give (it passes the label)"),
])
def test_a_bad_variant_gets_one_line_naming_the_problem_and_the_fix(text, message):
    assert knobs.check({"VARIANTS": text}, "t").errors == [message]


def test_variants_are_refused_in_micro_and_need_no_flag_elsewhere():
    micro = knobs.check({"MODE": "micro", "VARIANTS": TWO}, "t")
    assert micro.errors == ["VARIANTS applies to MODE=rtt and MODE=throughput: the micro benchmarks take no "
                            "runtime options; unset VARIANTS"]
    alone = knobs.check({"VARIANTS": TWO}, "")
    assert not alone.usage and not alone.errors and alone.selection == []
    assert [e.label for e in alone.measured] == ["tokio"]
    assert [p.name for p in entry.missing_binaries(alone.spec().with_knobs(BIN_DIR="/nowhere"), [v.entry for v in alone.variants],
                                                   ["ping", "pong"])] == ["tokio-ping", "tokio-pong"]
    assert knobs.check({}, "").usage.startswith("choose what to measure")


def test_a_variant_has_every_point_of_its_base_under_its_own_label_with_its_arguments():
    result = knobs.check({"VARIANTS": TWO, "INTERVALS": "0.001 0", "PROTOCOLS": "tcp", "TASKS": "0 10"}, "S",
                         "peer")
    points = plan.build(result.spec(), result.selection, None, result.variants)
    stems = [p.stem for p in points]
    assert stems[:4] == ["std-tcp-64B-0.001s-0t", "std-tcp-64B-0.001s-10t", "std-tcp-64B-0s-0t", "std-tcp-64B-0s-10t"]
    assert stems[4:] == [s.replace("std", label) for label in ("tokio-ct", "tokio-ei8") for s in stems[:4]]
    ct = points[4]
    assert (ct.framework, ct.binary, ct.ping_args, ct.pong_args) == (
        "tokio-ct", "tokio", ("--flavor", "current_thread", "--variant", "tokio-ct"), ("--flavor", "current_thread"))
    # Ports under --serve/--peer: one per pong of the list (busy-poll's is 9013), then one per variant.
    assert [p.port for p in points[::4]] == [9009, 9014, 9015]
    assert knobs.check({"VARIANTS": TWO}, "t", "peer").errors == []
    assert knobs.check({"VARIANTS": TWO, "BASE_PORT": "65530"}, "t", "peer").errors == [
        "BASE_PORT='65530': expected a port from 1 to 65529"]
    # Throughput: every size of the sweep too.
    thr = knobs.check({"VARIANTS": TWO, "MODE": "throughput", "SIZES": "64 1024", "PROTOCOLS": "tcp"}, "")
    assert [p.stem for p in plan.build(thr.spec(), thr.selection, None, thr.variants)] == [
        f"{label}-tcp-{size}B-throughput-0t" for label in ("tokio-ct", "tokio-ei8") for size in (64, 1024)]
    # Its runs are shuffled among the others', never as one block; each end's command line has its arguments.
    runs = plan.runs(points, 3, seed=7)
    assert len(runs) == 3 * 12 and all(not plan.blocks([r.point for r in runs[i:i + 12]]) for i in (0, 12, 24))
    run = next(r for r in runs if r.point == ct)
    assert commands.ping(result.spec().with_knobs(BIN_DIR="/b"), ct, "127.0.0.1:9", run.stem)[-12:] == [
        "--flavor", "current_thread", "--variant", "tokio-ct", "--tasks", "0", "--connections", "1", "--load",
        "closed", "--out", run.stem]
    assert commands.pong("/b", "tokio", "tcp", "127.0.0.1:0", ct.end_args("pong"), result.spec())[-4:] == [
        "--flavor", "current_thread", "--connections", "1"]


def test_sweep_json_records_each_variant_and_serving_names_them(monkeypatch):
    env = {"VARIANTS": TWO, "INTERVALS": "0", "PROTOCOLS": "tcp", "BIN_DIR": str(BIN_DIR), "SEED": "1"}
    monkeypatch.setattr(entry, "missing_binaries", lambda *args: [])
    checked, spec, doc = entry.check(env, "S", "serve", ["pong"], "run-x")
    assert prepare.measured_prefixes(checked, spec) == ["std", "tokio"] and prepare.runtime_flags(doc, spec) == "-S"
    assert checked.knobs["VARIANTS"] == TWO
    assert doc["frameworks"] == ["std"] and [v["label"] for v in doc["variants"]] == ["tokio-ct", "tokio-ei8"]
    _, spec, _ = prepare.plan(doc, spec, None, "run-x")
    assert [p["stem"] for p in doc["points"]] == ["std-tcp-64B-0s-0t", "tokio-ct-tcp-64B-0s-0t", "tokio-ei8-tcp-64B-0s-0t"]
    assert network.serve_pongs(doc, spec) == [  # every pong ready for the most connections of the sweep
        ("std", "std", "tcp", 9009, ("--connections", "1")),
        ("tokio-ct", "tokio", "tcp", 9014, ("--flavor", "current_thread", "--connections", "1")),
        ("tokio-ei8", "tokio", "tcp", 9015, ("--event-interval", "8", "--connections", "1"))]
    lines = network.serving_lines(doc, spec, "10.0.0.2", [])
    assert "  tokio-ct  10.0.0.2:9014" in lines
    assert f"On host A: VARIANTS='{TWO}' BASE_PORT=9009 ./run-network.sh --peer <this host's address> -S" in lines


def test_a_run_whose_end_says_io_uring_is_unavailable_is_skipped_with_that_line(tmp_path):
    err = tmp_path / "pong.err"
    err.write_text("monoio-pong: io_uring is unavailable: io_uring_setup: Operation not permitted (EPERM)\n")
    quiet = tmp_path / "ping.err"
    quiet.write_text("")
    (tmp_path / "x-r1.json").write_text("{}")
    assert state.skip_unavailable("failed", "pong not ready", [quiet, err, tmp_path / "none"], tmp_path / "x-r1") == (
        "skipped", "io_uring is unavailable: io_uring_setup: Operation not permitted (EPERM)")
    assert not (tmp_path / "x-r1.json").exists()
    assert state.skip_unavailable("ok", None, [err], tmp_path / "x-r1") == ("ok", None)
    assert state.skip_unavailable("failed", "ping exited with status 1", [quiet], tmp_path / "x-r1") == (
        "failed", "ping exited with status 1")


def test_the_fallback_table_shows_the_variant_label(tmp_path):
    log = {"schema": "rtt-log/1", "kind": "rtt", "framework": "tokio", "variant": "tokio-ct", "transport": "tcp",
           "interval_s": 0, "tasks": 0, "rtt_ns": {"n": 3, "p50": 1000}}
    (tmp_path / "tokio-ct-tcp-64B-0s-0t-r1.json").write_text(json.dumps(log))
    assert summary.summary(tmp_path)[1].startswith("tokio-ct ")


@pytest.mark.parametrize("text, named", [
    ("ct=tokyo:--threads 1", "'tokyo' is not a runtime; the runtimes are std, tokio, "),
    ("ct=tokio:", "gives no arguments: a variant runs its base with other options"),
    ("smol=tokio:--threads 1", "the label 'smol' is already a label of runtimes.json"),
    # What only the binaries know, asked with --check-options: a knob the base lacks, an option of one end only.
    ("s-ei=smol:--event-interval 8", "smol-pong refuses --event-interval 8: --event-interval does not apply to smol: "
                                     "drop it (its options are --threads)"),
    ("t-w=tokio:--window 8", "tokio-pong refuses --window 8: unexpected argument '--window' found"),
])
def test_a_sweep_with_bad_variants_exits_2_before_anything_starts(tmp_path, text, named):
    run = run_script(SCRIPT, ["-t"], tmp_path, timeout=30, VARIANTS=text)
    assert run.rc == 2, run.output
    first, last = run.stderr.splitlines()
    assert first.startswith(f"{SCRIPT}: VARIANTS: {text.split(':')[0]}: {named}"), run.output
    assert last == "Nothing was started." and run.stdout == []
    assert not list(tmp_path.glob("localhost-*"))


def test_a_tokio_variant_sweep_gives_two_labels_two_colours_and_runtime_config_in_each_log(tmp_path):
    require_binaries("std", "tokio")
    run = run_script(SCRIPT, ["-St"], tmp_path / "out", VARIANTS=TWO, DURATION="0.5", WARMUP="0.1", INTERVALS="0",
                     PROTOCOLS="tcp", timeout=90)
    assert run.rc == 0, run.output
    folder = sweep_dir(tmp_path / "out")
    sweep = load_json(folder / "sweep.json")
    assert sweep["variants"] == [
        {"label": "tokio-ct", "base": "tokio", "args": ["--flavor", "current_thread"], "end": "both",
         "ping_args": ["--flavor", "current_thread"], "pong_args": ["--flavor", "current_thread"]},
        {"label": "tokio-ei8", "base": "tokio", "args": ["--event-interval", "8"], "end": "both",
         "ping_args": ["--event-interval", "8"], "pong_args": ["--event-interval", "8"]}]
    labels = ("std", "tokio", "tokio-ct", "tokio-ei8")
    assert [p["stem"] for p in sweep["points"]] == [f"{label}-tcp-64B-0s-0t" for label in labels]
    assert all(p["status"] == "ok" for p in sweep["points"])
    assert sorted(line.split("]")[1].split()[0] for line in progress_lines(run.stdout)) == sorted(
        f"{label}-tcp-64B-0s-0t" for label in labels)
    logs = {label: check_log_pair(folder, f"{label}-tcp-64B-0s-0t-r1", "tokio" if "tokio" in label else label, "tcp")
            for label in labels}
    assert [logs[label]["variant"] for label in labels] == [None, None, "tokio-ct", "tokio-ei8"]
    assert logs["tokio"]["runtime_config"]["event_interval"] == 61
    assert logs["tokio-ei8"]["runtime_config"]["event_interval"] == 8
    assert logs["tokio-ct"]["runtime_config"]["flavor"] == "current_thread" == logs["tokio-ct"]["flavor"]
    # The summary table the sweep closed with, and a PDF whose legend and lines give each variant its colour.
    assert "tokio-ei8: tokio with event_interval=8" in run.output
    pdf = tmp_path / "stat.pdf"
    parse = subprocess.run([sys.executable, str(REPO / "parse.py"), "-t", "stat", "-d", str(folder), "-o", str(pdf)],
                           capture_output=True, text=True, timeout=120)
    assert parse.returncode == 0, parse.stderr
    from pypdf import PdfReader

    from suite.palette import Palette, shade

    colours = [Palette({"tokio-ct": "tokio", "tokio-ei8": "tokio"}).colour(label) for label in labels]
    assert len(set(colours)) == 4 and colours[2:] == [shade(colours[1], 0), shade(colours[1], 1)]
    content = PdfReader(pdf).pages[0]
    assert "tokio-ct" in content.extract_text() and "tokio-ei8" in content.extract_text()
    words = content.get_contents().get_data().decode("latin-1").split()
    strokes = {"#" + "".join(f"{round(float(c) * 255):02X}" for c in words[i - 3:i])  # `r g b RG`
               for i, word in enumerate(words) if word == "RG"}
    assert set(colours[1:]) <= strokes  # tokio and each of its variants in its own shade


def test_a_delay_planted_in_the_pong_of_a_variant_is_measured_and_called(tmp_path):
    """The calibration recipe: std-slow=std:pong:--delay-ns N adds N to every round trip of its runs only."""
    require_binaries("std")
    delay_ns = 2_000_000  # far above std's round trip on a quiet machine; a loaded one may stretch both
    run = run_script(SCRIPT, ["-S"], tmp_path / "out", VARIANTS=f"std-slow=std:pong:--delay-ns {delay_ns}",
                     DURATION="0.5", WARMUP="0.1", INTERVALS="0", PROTOCOLS="udp", timeout=90)
    assert run.rc == 0, run.output
    folder = sweep_dir(tmp_path / "out")
    assert load_json(folder / "sweep.json")["variants"][0]["pong_args"] == ["--delay-ns", str(delay_ns)]
    logs = {label: check_log_pair(folder, f"{label}-udp-64B-0s-0t-r1", "std", "udp") for label in ("std", "std-slow")}
    assert logs["std-slow"]["variant"] == "std-slow" and logs["std"]["variant"] is None
    # Every round trip of the variant waits for the spin (a busy machine may stretch it, never shorten it), and
    # its runs are the slower ones of the sweep, against std's measured beside them (not a figure of this machine).
    assert logs["std-slow"]["rtt_ns"]["min"] >= delay_ns, logs
    assert logs["std-slow"]["rtt_ns"]["p50"] > logs["std"]["rtt_ns"]["p50"], logs
    assert f"std-slow: std with pong --delay-ns {delay_ns} (that end only)" in run.output


# An io_uring runtime whose pong runs under tests/without_io_uring.py (a seccomp filter that makes
# io_uring's system calls fail): its points are skipped with the binary's reason, the others measured.
URING = "monoio"


def bins_without_io_uring_for_the_pong(tmp_path) -> tuple[Path, dict]:
    """A BIN_DIR with std's binaries and URING's, whose pong runs under the seccomp filter; URING's entry."""
    entry = next((e for e in json.loads((REPO / "runtimes.json").read_text())["runtimes"] if e["label"] == URING),
                 None)
    if entry is None:
        pytest.fail(f"{URING} is not in runtimes.json yet")
    prefix = entry["binary_prefix"]
    require_binaries("std", URING)
    bins = tmp_path / "bin"
    bins.mkdir()
    for name in ("std-ping", "std-pong", f"{prefix}-ping"):
        (bins / name).symlink_to(BIN_DIR / name)
    shim(bins, f"{prefix}-pong", f'exec "{sys.executable}" "{REPO / "tests" / "without_io_uring.py"}" '
                                 f'"{BIN_DIR / f"{prefix}-pong"}" "$@"')
    return bins, entry


def test_serve_leaves_out_a_runtime_without_io_uring_and_tells_host_a(tmp_path):
    bins, entry = bins_without_io_uring_for_the_pong(tmp_path)
    serve = Run([str(REPO / "run-network.sh"), "--serve", "--target", "127.0.0.1", "-S" + entry["flag"]],
                script_env(tmp_path / "out", BIN_DIR=str(bins), BASE_PORT="9601")).start()
    try:
        serve.expect_line("On host A", timeout=30)
        answer = subprocess.run([str(bins / "std-ping"), "--address", "127.0.0.1:9601", "--duration", "0.2",
                                 "--warmup", "0", "--json"], capture_output=True, text=True, timeout=20)
        assert answer.returncode == 0, answer.stderr  # std is served
    finally:
        os.kill(serve.proc.pid, signal.SIGTERM)
        serve.finish(timeout=20)
    assert serve.rc == 143, serve.output
    said = [line for line in serve.stderr.splitlines() if "is not served" in line]
    assert len(said) == 1 and f"{entry['binary_prefix']}-pong is not served: io_uring is unavailable: " in said[0]
    out = "".join(serve.stdout)
    assert f"Not served (io_uring is unavailable here): {entry['binary_prefix']}" in out
    assert "./run-network.sh --peer <this host's address> -S\n" in out  # host A leaves the runtime out
    assert f"  {URING} " not in out


def test_points_of_a_runtime_without_io_uring_are_skipped_with_the_reason_and_the_sweep_goes_on(tmp_path):
    bins, entry = bins_without_io_uring_for_the_pong(tmp_path)
    run = run_script(SCRIPT, ["-S" + entry["flag"]], tmp_path / "out", BIN_DIR=bins, DURATION="0.3", WARMUP="0.1",
                     INTERVALS="0", PROTOCOLS="tcp udp", timeout=90)
    assert run.rc == 0, run.output
    folder = sweep_dir(tmp_path / "out")
    sweep = load_json(folder / "sweep.json")
    assert sweep["status"] == "complete"
    statuses = {p["stem"]: (p["status"], p["message"]) for p in sweep["points"]}
    for proto in ("tcp", "udp"):
        assert statuses[f"std-{proto}-64B-0s-0t"] == ("ok", None)
        status, message = statuses[f"{URING}-{proto}-64B-0s-0t"]
        assert status == "skipped" and message.startswith("io_uring is unavailable: "), run.output
        assert f"  {URING}-{proto}-64B-0s-0t: {message}\n" in run.output
        assert not list(folder.glob(f"{URING}-{proto}-*"))
    assert "Skipped (2):" in run.output and "FAILED" not in run.output
    assert sum("skipped: io_uring is unavailable: " in line for line in progress_lines(run.stdout)) == 2
