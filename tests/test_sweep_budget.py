"""A budget holds: the sweep learns what each point's runs cost, re-plans BUDGET's rounds from it, and its ETA too;
a point its runtime cannot finish is shown as what it is; MIN_MESSAGES lengthens low rates' windows, and the plan
says which quantiles each rate carries."""

import re

import pytest

from analysis import uncertainty
from suite import percentile, runtimes
from sweep_helpers import BIN_DIR, load_json, progress_lines, require_binaries, run_script, shim, sweep_dir
from sweepkit import carry, commands, costs, knobs, plan, progress


@pytest.fixture
def four(monkeypatch):
    """runtimes.json's first four runtimes and the ICMP reference, whatever else it lists."""
    listed = tuple(e for e in runtimes.entries() if e.label in ("std", "tokio", "async-std", "smol")
                   or e.transport == "icmp")
    monkeypatch.setattr(runtimes, "entries", lambda: listed)


def spec_of(flags="St", **env):
    result = knobs.check(env, flags)
    assert not result.errors and not result.usage, result
    return result, result.spec()


# -- what is learned, and what it decides ---------------------------------------------------------------------

def test_a_point_costs_the_mean_of_its_runs_and_an_unseen_one_its_guess_scaled_by_the_runs_seen():
    learned = costs.Costs({"a": 0.25, "b": 0.25, "c": 0.5, "d": 0.25, "e": 0.25})
    assert learned.of("c") == 0.5  # nothing seen: the plan's guess
    learned.add("a", 1.0)
    learned.add("a", 2.0)
    assert learned.of("a") == 1.5 and learned.of("c") == 0.5  # one slow point does not scale the others
    learned.add("b", 0.25)
    learned.add("d", 0.5)
    assert learned.of("c") == pytest.approx(0.5 * 2)  # the median of 6, 1 and 2 times the guess
    assert learned.left_s(["a", "a", "b"]) == pytest.approx(3.25)
    learned.drop("a")  # given up: its later runs start nothing
    assert learned.of("a") == 0
    assert learned.costliest(["a", "b", "c"]) == [("b", 0.25), ("a", 0.0)]  # "c" not seen yet
    assert learned.of("c") == 0.5  # two points seen, fewer than costs.MIN_SEEN: the guess


def test_the_rounds_that_fit_are_the_most_whose_projected_end_is_within_the_budget():
    assert costs.fit(60, 10, 1, 5) == costs.Fit(11, False, 60)
    assert costs.fit(60, 10, 1, 7) == costs.Fit(8, False, 59)
    # Never fewer than the rounds done, nor than two; said when even two do not fit.
    assert costs.fit(60, 50, 1, 20) == costs.Fit(2, True, 70)
    assert costs.fit(60, 70, 3, 20) == costs.Fit(3, False, 70)
    assert costs.fit(1e9, 1, 1, 1).rounds == 1000  # at most MAX_REPEATS
    # A plan one round off that ends less than half a round past the budget stays: no flip-flop of lines.
    assert costs.fit(60, 10, 1, 5, planned=10).rounds == 10 and costs.fit(60, 12, 1, 5, planned=11).rounds == 11
    assert costs.fit(60, 10, 1, 5, planned=12).rounds == 11 and costs.fit(60, 10, 1, 5, planned=13).rounds == 11


def test_a_point_that_left_the_rotation_saves_its_time_and_buys_the_others_no_rounds():
    learned = costs.Costs({"std": 1.0, "tokio": 1.0, "smol": 1.0})
    for stem in ("std", "tokio", "smol"):
        for _ in range(10):
            learned.add(stem, 1.0)
    # smol left after round 4 of 10: the sweep took 34 s, where the fixed design would have taken 40 s.
    round_s, elapsed_s = learned.as_fixed(["std", "tokio", "smol"], {"smol": 4}, 10, 34.0)
    assert (round_s, elapsed_s) == (3.0, 40.0)
    # A budget of 60 s fits the fixed design's 16 rounds, not the 10 + 13 the two points left would fit.
    assert costs.fit(60, elapsed_s, 10, round_s).rounds == 16
    assert costs.fit(60, 34.0, 10, 2.0).rounds == 23
    assert learned.as_fixed(["std", "tokio"], {}, 10, 20.0) == (2.0, 20.0)  # nothing left: the sweep as it ran


def test_the_replan_line_says_the_rounds_before_and_after_and_the_costliest_points():
    said = costs.line("6m", costs.Fit(14, False, 355), 48, 1, 25.1, 7.4, [("std-timers-1000t", 15.4), ("b", 1.2)])
    assert said == ("Budget: after round 1 a round takes about 25s, not the 7s planned (costliest runs: "
                    "std-timers-1000t 15.4 s, b 1.2 s): 14 rounds, not 48, fit BUDGET=6m (ends in about 5m55s)")
    short = costs.line("1m", costs.Fit(2, True, 90), 6, 1, 45, 10, [("a", 40)])
    assert short.endswith("even 2 rounds (the fewest that measure a spread) take about 1m30s in all, past "
                          "BUDGET=1m: running 2, not 6")


def test_a_replanned_sweep_keeps_the_order_of_the_rounds_it_ran(four):
    _, spec = spec_of(INTERVALS="0.001 0", SEED="7")
    points = plan.build(spec, [runtimes.by_label("std"), runtimes.by_label("tokio")])
    short, long = plan.runs(points, 3, 7), plan.runs(points, 9, 7)
    assert [r.stem for r in short] == [r.stem for r in long[: len(short)]]


# -- MIN_MESSAGES and the samples a point pools ----------------------------------------------------------------

def test_the_sweep_and_the_analysis_read_one_refusal_rule():
    assert carry.min_samples is uncertainty.min_samples is percentile.min_samples
    assert [percentile.min_samples(q) for q in (0.5, 0.9, 0.99, 0.999, 0.9999, 0.05)] == [
        20, 100, 1_000, 10_000, 100_000, 200]


def test_min_messages_lengthens_only_the_windows_of_low_rates_and_the_ping_and_estimate_follow(four):
    _, spec = spec_of(INTERVALS="0.1 0.01 0.001 0", MIN_MESSAGES="13", DURATION="0.1", WARMUP="0.1")
    assert [str(spec.window(x)) for x in ("0.1", "0.01", "0.001", "0", None)] == ["1.3", "0.13", "0.1", "0.1", "0.1"]
    points = {p.stem: p for p in plan.build(spec, [runtimes.by_label("std")])}
    argv = commands.ping(spec, points["std-tcp-64B-0.1s-0t"], "127.0.0.1:1", BIN_DIR / "x")
    assert argv[argv.index("--duration") + 1] == "1.3"
    _, off = spec_of(INTERVALS="0.1 0.01 0.001 0", DURATION="0.1", WARMUP="0.1")
    runs = plan.runs(list(points.values()), 1, 1)
    # Two protocols: +1.2 s and +0.03 s a run at 10 and 100 msg/s, each twice.
    assert progress.estimate_s(runs, spec) - progress.estimate_s(runs, off) == pytest.approx(2 * (1.2 + 0.03))


@pytest.mark.parametrize("value", ["x", "-1", "1.5", "1000001"])
def test_a_bad_min_messages_is_refused(value):
    assert any(e.startswith(f"MIN_MESSAGES='{value}'") for e in knobs.check({"MIN_MESSAGES": value}, "S").errors)


def test_the_plan_says_per_rate_which_quantiles_its_points_carry_and_what_carries_the_p99(four):
    result, spec = spec_of("StP")
    points = plan.build(spec, result.selection)
    runs = plan.runs(points, spec.repeats, 1)
    said = carry.lines(spec, runs, progress.estimate_s)
    assert said[0].startswith("  Samples a point pools over its 80 runs")
    ten, hundred, thousand = said[1:4]
    assert "10 msg/s: 80 samples (1 a run of 0.1 s): carries p50; refuses p90 p99 p99.9 p99.99" in ten
    # 13 messages at 80 rounds: 1 040 samples. Five points a rate (std and tokio over TCP and UDP, the ICMP
    # reference): runs of 1.3 s at 10 msg/s cost 1.2 s more each, those of 0.13 s at 100 msg/s 0.03 s more.
    more = 80 * (5 * 1.2 + 5 * 0.03)
    assert f"MIN_MESSAGES=13 carries p99 here (runs of 1.3 s), about +{progress.duration(more)}" in ten
    assert "100 msg/s: 800 samples" in hundred and "refuses p99 p99.9 p99.99; MIN_MESSAGES=13" in hundred
    assert "1 k msg/s: 8000 samples" in thousand and "carries p50 p90 p99; refuses p99.9 p99.99" in thousand
    # Under BUDGET longer runs cost rounds: the least MIN_MESSAGES whose rounds still pool 1 000 samples, or none.
    _, hour = spec_of("StP", BUDGET="1h", SEED="1")
    hour = hour.with_knobs(REPEATS=str(int(3600 // progress.estimate_s(plan.runs(points, 1, 1), hour))))
    within = carry.lines(hour, plan.runs(points, hour.repeats, 1), progress.estimate_s)[1]
    assert re.search(r"MIN_MESSAGES=\d+ carries p99 here within BUDGET=1h \(runs of 0\.\d+ s\), at \d+ rounds, not "
                     f"{hour.repeats}$", within), within
    _, short = spec_of("StP", BUDGET="1m", SEED="1")
    assert "no MIN_MESSAGES carries p99 here within BUDGET=1m" in carry.lines(short, runs, progress.estimate_s)[1]
    _, longer = spec_of("StP", MIN_MESSAGES="13")
    assert "10 msg/s: 1040 samples (13 a run of 1.3 s): carries p50 p90 p99;" in carry.lines(
        longer, runs, progress.estimate_s)[1]


def test_a_dry_run_names_the_points_whose_cost_it_can_only_guess(tmp_path):
    require_binaries("std", "tokio")
    run = run_script("run-localhost.sh", ["-St"], tmp_path / "out", DRY_RUN="1", SEED="1", TASKS="0 1000",
                     CONNECTIONS="1 100", INTERVALS="0.001", PROTOCOLS="tcp http", BUDGET="10m", REPEATS="")
    assert run.rc == 0, run.output
    out = "".join(run.stdout)
    assert "What a run costs is a guess for 14 points" in out and "BUDGET's rounds are re-planned from it" in out
    assert "    std-tcp-64B-0.001s-1000t: 1000 decoys\n" in out
    assert "    tokio-http-64B-0.001s-0t-100c: 100 connections, HTTP\n" in out
    assert "    std-tcp-64B-0.001s-0t:" not in out  # what the plan knows it does not name
    across = run_script("run-network.sh", ["--peer", "127.0.0.1", "-St"], tmp_path / "out2", DRY_RUN="1")
    assert across.rc == 0 and ("What a run costs is a guess for every point (across hosts); the first round will "
                               "tell, and the ETA learns it\n") in "".join(across.stdout), across.output


# -- real sweeps with a planted slow point ---------------------------------------------------------------------

def slow_pong(bins, stop_s=1):
    """std's pong, stood in for by one that takes `stop_s` to stop: a point whose runs cost more than the plan knows."""
    real = BIN_DIR / "std-pong"
    shim(bins, "std-pong", f'"{real}" "$@" &\nchild=$!\ntrap \'sleep {stop_s}; kill $child; wait $child; exit 0\' '
                           f'TERM INT\nwait $child')
    for name in ("std-ping", "tokio-ping", "tokio-pong"):
        (bins / name).symlink_to(BIN_DIR / name)


def test_a_budget_with_a_slow_point_is_replanned_after_its_first_round_and_holds(tmp_path):
    require_binaries("std", "tokio")
    bins = tmp_path / "bin"
    bins.mkdir()
    slow_pong(bins)
    budget_s = 10
    run = run_script("run-localhost.sh", ["-St"], tmp_path / "out", timeout=120, BIN_DIR=bins, BUDGET=f"{budget_s}s",
                     REPEATS="", INTERVALS="0", PROTOCOLS="tcp", DURATION="0.1", WARMUP="0.1", SEED="43", TUNE="0")
    assert run.rc == 0, run.output
    doc = load_json(sweep_dir(tmp_path / "out") / "sweep.json")
    budget = doc["budget"]
    planned, replans = budget["rounds"], budget["replans"]
    # The plan guessed 0.23 s a run, so it planned about 21 rounds; std's runs take a second more.
    assert replans[0]["after_round"] == 1 and replans[0]["rounds_before"] == planned
    assert replans[-1]["rounds_after"] == doc["repeats"] < planned
    line = next(x for x in run.stdout if x.startswith("Budget: after round 1"))
    assert f"rounds, not {planned}, fit BUDGET={budget_s}s" in line and "costliest runs: std-tcp-64B-0s-0t" in line
    # The control, measured in the same sweep: its own runs' wall times. Unplanned, its rounds would have
    # overrun the budget; re-planned, it ends within it, and not more than two rounds short of it.
    walls = {}
    for r in doc["runs"]:
        walls.setdefault(r["round"], 0.0)
        walls[r["round"]] += r["wall_s"]
    round_s = max(walls.values())
    assert planned * min(walls.values()) > budget_s
    assert budget_s - 2 * round_s <= doc["wall_s"] <= budget_s + 0.5 * round_s, (doc["wall_s"], walls)
    assert all(r["status"] == "ok" for r in doc["runs"]) and len(doc["runs"]) == 2 * doc["repeats"]
    assert f"Budget of {budget_s}s: {doc['repeats']} rounds in " in "".join(run.stdout)


def test_without_a_budget_the_eta_learns_each_points_cost(tmp_path):
    require_binaries("std", "tokio")
    bins = tmp_path / "bin"
    bins.mkdir()
    slow_pong(bins)
    run = run_script("run-localhost.sh", ["-St"], tmp_path / "out", timeout=120, BIN_DIR=bins, REPEATS="5",
                     INTERVALS="0", PROTOCOLS="tcp", DURATION="0.1", WARMUP="0.1", SEED="43", TUNE="0")
    assert run.rc == 0, run.output
    doc = load_json(sweep_dir(tmp_path / "out") / "sweep.json")
    eta = [re.search(r"ETA (\d+)s$", line.rstrip())[1] for line in progress_lines(run.stdout)]
    # After round 2 (run 4 of 10), the ETA against what the rest then took (its runs' wall times, a control from
    # the same sweep), which the plan's constant (0.23 s a run: 1.4 s for six) misses by far.
    after_round_2 = int(eta[3])
    rest = sum(r["wall_s"] for r in doc["runs"][4:])
    assert rest > 2 * 6 * 0.23 and abs(after_round_2 - rest) <= 0.25 * rest + 1, (eta, rest)


def test_a_point_its_runtime_cannot_finish_is_shown_as_such_and_not_run_again(tmp_path):
    require_binaries("tokio")
    bins = tmp_path / "bin"
    bins.mkdir()
    shim(bins, "std-ping", 'echo "std-ping: error: the run did not end within 15 s: the runtime under test never '
                           'ran the measurement to its end (a task that never yields ...)" >&2\nexit 1')
    (bins / "std-pong").symlink_to(BIN_DIR / "std-pong")
    for name in ("tokio-ping", "tokio-pong"):
        (bins / name).symlink_to(BIN_DIR / name)
    run = run_script("run-localhost.sh", ["-St"], tmp_path / "out", BIN_DIR=bins, REPEATS="4", INTERVALS="0",
                     PROTOCOLS="tcp", DURATION="0.1", WARMUP="0.1", TUNE="0")
    assert run.rc == 0, run.output
    doc = load_json(sweep_dir(tmp_path / "out") / "sweep.json")
    std = [r for r in doc["runs"] if r["point"] == "std-tcp-64B-0s-0t"]
    assert [r["status"] for r in std] == ["skipped"] * 4
    unfinished = ("unfinished: the runtime never ran the measurement to its end within the ping's 15 s (its watchdog "
                  "ended it)")
    assert std[0]["message"] == unfinished
    assert std[1]["message"] == unfinished + "; after 2 such runs its later rounds are not run"
    assert [r["message"] for r in std[2:]] == ["not run: 2 of its runs were unfinished (the runtime never ran the "
                                               "measurement to its end)"] * 2
    assert {p["stem"]: p["status"] for p in doc["points"]} == {"std-tcp-64B-0s-0t": "skipped",
                                                               "tokio-tcp-64B-0s-0t": "ok"}


def test_the_findings_page_names_each_point_without_a_figure_and_why(tmp_path):
    from findings import regenerate

    folder = tmp_path / "decoys"
    folder.mkdir()
    (folder / "sweep.json").write_text('{"points": [{"stem": "a", "status": "ok", "message": null}, '
                                       '{"stem": "std-1000t", "status": "skipped", "message": "unfinished: …"}]}')
    assert regenerate.unmeasured({"decoys": folder}, ["decoys"]) == (
        "\n\nNot measured:\n\n- `std-1000t` (decoys): unfinished: …\n")
    assert regenerate.unmeasured({"decoys": tmp_path / "none"}, ["decoys"]) == ""


def test_a_budget_keeps_room_for_the_probed_runs_after_the_rounds(four):
    """PROBED=3 runs each point 3 more times after the rounds: about 3 rounds' time the rounds cannot have."""
    from sweepkit import prepare
    rounds = {}
    for probed in ("0", "3"):
        result, spec = spec_of("St", BUDGET="60s", REPEATS="", INTERVALS="0.001 0", PROTOCOLS="tcp", PROBED=probed)
        points = plan.build(spec, result.selection)
        fitted, why = prepare.fit_budget({}, spec, points)
        assert why is None, why
        rounds[probed] = fitted.repeats
    assert rounds["0"] - 4 <= rounds["3"] <= rounds["0"] - 2, rounds
