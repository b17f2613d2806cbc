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
    stranger = style.colour("glommio")
    assert stranger == style.colour("glommio") and stranger not in {e.colour for e in runtimes.entries()}
    unknown = len(style.FRAMEWORK_ORDER)
    assert style.order_key(["smol", "glommio", "std"], style.FRAMEWORK_ORDER) == [3, unknown, 0]


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
