"""The statistics: exact nearest-rank percentiles, and the shapes the figures are drawn from."""

import numpy as np
import pytest

from analysis import stats
from suite import percentile

from .logs import reference_percentile, samples


@pytest.mark.parametrize("n", [1, 2, 7, 50, 997, 1234, 3001, 100_003])
def test_percentiles_equal_numpys_inverted_cdf(n):
    x = samples(n, n)
    ours = stats.percentiles(np.sort(x), [50, 90, 99, 99.9, 99.99])
    theirs = np.percentile(x, [50, 90, 99, 99.9, 99.99], method="inverted_cdf")
    assert ours.tolist() == theirs.astype(np.int64).tolist()
    assert ours.dtype == np.int64


def test_percentiles_follow_the_exact_definition_where_numpy_rounds():
    # p99.9 of 1000 samples is rank ceil(999.0) = 999, as rtt-core computes it; numpy's float
    # 0.999 * 1000 = 999.0000000000001 puts it at rank 1000.
    x = np.arange(1, 1001, dtype=np.int64)
    assert stats.percentiles(x, [99.9]).tolist() == [999]
    assert reference_percentile(x, 99.9) == 999
    for n in (1000, 3000, 20_000):
        x = samples(n, n)
        assert stats.percentiles(np.sort(x), [99.9])[0] == reference_percentile(x, 99.9)


def test_describe_gives_json_style_statistics():
    x = samples(3, 5000)
    scalars, shape = stats.describe(x)
    assert scalars["n"] == 5000
    assert scalars["min"] == x.min() and scalars["max"] == x.max()
    assert scalars["mean"] == pytest.approx(x.mean())
    for key, p in stats.PERCENTILES.items():
        assert scalars[key] == reference_percentile(x, p), key
    assert len(shape.time_s) == 0  # no send times given


def test_describe_without_samples_is_all_nan():
    scalars, shape = stats.describe(np.empty(0, dtype=np.int64))
    assert shape is None and scalars["n"] == 0
    assert np.isnan(scalars["p50"]) and np.isnan(scalars["max"])


def test_histograms_hold_every_sample():
    x = samples(4, 10_000)
    _, shape = stats.describe(x)
    log_share = (shape.log_density * np.diff(np.log10(shape.log_edges_ns))).sum()
    assert log_share == pytest.approx(1.0)
    lin_share = (shape.lin_density * np.diff(shape.lin_edges_ns) / 1e3).sum()
    assert lin_share == pytest.approx((x <= np.sort(x)[stats.ranks(len(x), [99.9])[0]]).mean())


def test_ecdf_is_increasing_and_spans_the_samples():
    x = samples(5, 50_000)
    _, shape = stats.describe(x)
    assert shape.ecdf_ns[0] == x.min() and shape.ecdf_ns[-1] == x.max()
    assert np.all(np.diff(shape.ecdf_ns) >= 0) and np.all(np.diff(shape.ecdf_p) > 0)
    assert 0 < shape.ecdf_p[0] < shape.ecdf_p[-1] < 1
    assert len(shape.ecdf_ns) < 1000  # a few hundred points, whatever the run's size


def test_small_runs_are_drawn_sample_by_sample_over_time():
    x = samples(6, 300)
    t = np.arange(300, dtype=np.int64) * 1_000_000
    _, shape = stats.describe(x, t)
    assert shape.time_s.tolist() == (t / 1e9).tolist()
    assert shape.time_p50_ns.tolist() == x.tolist()
    assert len(shape.time_p99_ns) == 0


def test_time_bins_hold_each_bins_median_and_p99():
    n = 30_000
    x = samples(7, n)
    t = np.arange(n, dtype=np.int64) * 100_000  # 10 k msg/s for 3 s
    _, shape = stats.describe(x, t)
    bins = len(shape.time_s)
    assert bins == stats.TIME_BINS
    # The same thing the slow way, bin by bin.
    edges = np.linspace(0, t[-1], bins + 1)
    which = np.minimum(np.searchsorted(edges, t, side="right") - 1, bins - 1)
    for b in (0, 17, bins - 1):
        in_bin = x[which == b]
        assert shape.time_p50_ns[b] == reference_percentile(in_bin, 50)
        assert shape.time_p99_ns[b] == reference_percentile(in_bin, 99)
    assert shape.time_s[0] == pytest.approx(edges[1] / 2e9)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 10, 99, 100, 101, 999, 1000, 1001, 10_000, 123_457])
def test_the_one_percentile_follows_the_counting_definition(n):
    x = np.arange(1, n + 1, dtype=np.int64)
    for p in (0.001, 1, 5, 10, 33.3, 50, 90, 95, 99, 99.9, 99.99, 99.999, 100):
        assert percentile.of(x, p) == reference_percentile(x, p), (n, p)
        assert percentile.of(x.tolist(), p) == reference_percentile(x, p), (n, p)  # lists, no numpy


def test_the_one_percentile_takes_arrays_of_counts_and_refuses_nonsense():
    counts = np.array([1, 2, 100, 1000, 1001], dtype=np.int64)
    assert percentile.index(counts, 99.9).tolist() == [percentile.index(int(c), 99.9) for c in counts]
    assert percentile.index(1000, 99.9) == 998  # 0-based: rank 999, not numpy's 1000
    for p in (0, -1, 100.5):
        with pytest.raises(ValueError):
            percentile.index(10, p)
