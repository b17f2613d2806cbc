"""suite/palette.py and suite/fmt.py: one colour per framework from runtimes.json, and how every number is written."""

import math

import pytest

from suite import fmt, palette, runtimes
from suite.fmt import rate_label, si
from suite.palette import Palette


def test_colours_and_order_are_runtimes_json_s_and_strangers_get_a_stable_spare():
    assert palette.FRAMEWORK_ORDER == runtimes.labels()
    assert palette.FRAMEWORK_ORDER[:4] == ("std", "tokio", "async-std", "smol")
    for entry in runtimes.entries():
        assert palette.NO_VARIANTS.colour(entry.label) == entry.colour
    stranger = palette.NO_VARIANTS.colour("seastar")
    assert stranger == palette.NO_VARIANTS.colour("seastar") and stranger not in {e.colour for e in runtimes.entries()}
    unknown = len(palette.FRAMEWORK_ORDER)
    assert palette.order_key(["smol", "seastar", "std"], palette.FRAMEWORK_ORDER) == [3, unknown, 0]


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
    from suite.fmt import us

    assert [us(v) for v in (850, 23_456, 1_710_000, 17_110_000, float("nan"))] == [
        "0.85", "23.46", "1710", "17110", "–"]


@pytest.mark.parametrize(("size", "label"), [(8, "8 B"), (1000, "1000 B"), (1024, "1 KiB"), (16384, "16 KiB"),
                                             (65507, "65507 B"), (1048576, "1 MiB"), (3 * 2**20, "3 MiB")])
def test_size_labels(size, label):
    assert fmt.size_label(size) == label


def test_counts_bit_rates_windows_shares_and_plain_numbers():
    assert [fmt.count(v) for v in (None, math.nan, 3, 7.0)] == ["–", "–", "3", "7"]
    assert [fmt.gbit(v) for v in (0.0123456, 9.87654, 123.4, math.nan)] == ["0.0123", "9.88", "123", "–"]
    assert fmt.window_label(0.1) == "100 ms" and fmt.percent(0.999) == "99.9 %"
    assert [fmt.plain(v) for v in (0.001, 64.0, 1e-05, 2.5)] == ["0.001", "64", "1e-05", "2.5"]


def test_each_variant_gets_its_own_shade_of_its_base_colour_and_a_line_style_of_its_own():
    assert palette.NO_VARIANTS.colour("tokio-ct") != palette.NO_VARIANTS.colour("tokio")  # a stranger, unless passed
    style = Palette({"tokio-ei8": "tokio", "tokio-ct": "tokio", "smol-1": "smol"})
    tokio = style.colour("tokio")
    shades = [style.colour(label) for label in ("tokio-ct", "tokio-ei8")]
    # By label: the first a darker tokio orange, the second a lighter one; each distinct from every colour.
    assert shades == [palette.shade(tokio, 0), palette.shade(tokio, 1)] == ["#966700", "#EFC159"]
    assert len({*shades, *(e.colour for e in runtimes.entries())}) == len(runtimes.entries()) + 2
    assert style.colour("smol-1") == palette.shade(style.colour("smol"), 0)
    assert [palette.shade("#808080", k) for k in range(4)] == ["#535353", "#ACACAC", "#3A3A3A", "#C6C6C6"]
    assert palette.shade("#808080", 40) == "#202020"  # never quite black
    # The base's family: next to it in every order, its line styles its own, its base named.
    assert style.series_rank(["smol-1", "tokio-ct", "tokio", "std"]) == [7, 3, 2, 0]
    assert (style.linestyle("tcp", "tokio"), style.linestyle("tcp", "tokio-ct")) == ("-", "-.")
    assert (style.linestyle("udp"), style.linestyle("udp", "tokio-ct")) == ("--", ":")
    assert style.base_of("tokio-ct") == "tokio" and style.base_of("std") == "std"
    # Another set of logs, another palette: nothing is remembered between them.
    assert Palette({"tokio-ct": "tokio"}).colour("tokio-ct") == palette.shade(tokio, 0)
    assert not Palette().is_variant("tokio-ei8") and palette.NO_VARIANTS.variants == {}
    assert fmt.settings({"flavor": "current_thread", "threads": 1, "x": None}) == (
        "flavor=current_thread, threads=1, x=null")


def test_durations_and_seconds_as_the_sweep_writes_them():
    assert [fmt.duration(v) for v in (12, 425, 3720, -3, math.inf)] == ["12s", "7m05s", "1h02m", "0s", "0s"]
    assert [fmt.seconds(v) for v in (3.2, 11.314, 0.354, 1025.4, 0.0004, None, math.nan)] == [
        "3.2", "11.3", "0.354", "1025", "0", "–", "–"]
