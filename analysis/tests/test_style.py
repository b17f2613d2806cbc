"""style.py: one colour per framework from runtimes.json, and how every number is written."""

import math

import pytest

from analysis import runtimes, style
from analysis.style import rate_label, si


def test_colours_and_order_are_runtimes_json_s_and_strangers_get_a_stable_spare():
    assert style.FRAMEWORK_ORDER == runtimes.labels()
    assert style.FRAMEWORK_ORDER[:4] == ("std", "tokio", "async-std", "smol")
    for entry in runtimes.entries():
        assert style.colour(entry.label) == entry.colour
    stranger = style.colour("seastar")
    assert stranger == style.colour("seastar") and stranger not in {e.colour for e in runtimes.entries()}
    unknown = len(style.FRAMEWORK_ORDER)
    assert style.order_key(["smol", "seastar", "std"], style.FRAMEWORK_ORDER) == [3, unknown, 0]


@pytest.mark.parametrize(("interval", "label"), [
    (0.1, "10"), (0.01, "100"), (0.001, "1 k"), (0.0001, "10 k"), (0.00001, "100 k"),
    (0.0004, "2.5 k"), (0.000001, "1 M"), (2.0, "0.5"), (0, "∞"),
])
def test_rate_labels_match_the_intervals(interval, label):
    assert rate_label(interval) == label


def test_si_prefixes():
    assert [si(v) for v in (7, 999, 1000, 31_000, 1_500_000)] == ["7", "999", "1 k", "31 k", "1.5 M"]
    # Rounding that carries into the next prefix, and rates just below one.
    assert [si(v) for v in (999.9, 10.1, 12_345, 999_999)] == ["1 k", "10.1", "12.3 k", "1 M"]


def test_latencies_never_print_in_exponent_form():
    from analysis.style import us

    assert [us(v) for v in (850, 23_456, 1_710_000, 17_110_000, float("nan"))] == [
        "0.85", "23.46", "1710", "17110", "–"]


@pytest.mark.parametrize(("size", "label"), [(8, "8 B"), (1000, "1000 B"), (1024, "1 KiB"), (16384, "16 KiB"),
                                             (65507, "65507 B"), (1048576, "1 MiB"), (3 * 2**20, "3 MiB")])
def test_size_labels(size, label):
    assert style.size_label(size) == label


def test_counts_bit_rates_windows_shares_and_plain_numbers():
    assert [style.count(v) for v in (None, math.nan, 3, 7.0)] == ["–", "–", "3", "7"]
    assert [style.gbit(v) for v in (0.0123456, 9.87654, 123.4, math.nan)] == ["0.0123", "9.88", "123", "–"]
    assert style.window_label(0.1) == "100 ms" and style.percent(0.999) == "99.9 %"
    assert [style.plain(v) for v in (0.001, 64.0, 1e-05, 2.5)] == ["0.001", "64", "1e-05", "2.5"]


def test_each_variant_gets_its_own_shade_of_its_base_colour_and_a_line_style_of_its_own(monkeypatch):
    monkeypatch.setattr(style, "_variants", {})
    assert style.colour("tokio-ct") == style.colour("tokio-ct") != style.colour("tokio")  # a stranger, until known
    style.add_variants({"tokio-ei8": "tokio", "tokio-ct": "tokio", "smol-1": "smol"})
    tokio = style.colour("tokio")
    shades = [style.colour(label) for label in ("tokio-ct", "tokio-ei8")]
    # By label: the first a darker tokio orange, the second a lighter one; each distinct from every colour.
    assert shades == [style.shade(tokio, 0), style.shade(tokio, 1)] == ["#966700", "#EFC159"]
    assert len({*shades, *(e.colour for e in runtimes.entries())}) == len(runtimes.entries()) + 2
    assert style.colour("smol-1") == style.shade(style.colour("smol"), 0)
    assert [style.shade("#808080", k) for k in range(4)] == ["#535353", "#ACACAC", "#3A3A3A", "#C6C6C6"]
    assert style.shade("#808080", 40) == "#202020"  # never quite black
    # The base's family: next to it in every order, its line styles its own, its base named.
    assert style.series_rank(["smol-1", "tokio-ct", "tokio", "std"]) == [7, 3, 2, 0]
    assert (style.linestyle("tcp", "tokio"), style.linestyle("tcp", "tokio-ct")) == ("-", "-.")
    assert (style.linestyle("udp"), style.linestyle("udp", "tokio-ct")) == ("--", ":")
    assert style.base_of("tokio-ct") == "tokio" and style.base_of("std") == "std"
    assert style.settings({"flavor": "current_thread", "threads": 1, "x": None}) == (
        "flavor=current_thread, threads=1, x=null")
