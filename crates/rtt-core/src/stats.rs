//! Summary statistics of a run's RTTs. Percentiles are exact, by nearest rank on the sorted
//! samples: p is the value at 1-based rank ⌈p/100 · n⌉ (numpy's `method="inverted_cdf"`), so
//! every percentile is a latency that was really observed. No histogram, no interpolation.
//! Across repeats (the micro-benchmarks), the median and its 95 % interval by order statistics.

/// The RTT distribution of one run, in ns.
#[derive(Clone, Debug, PartialEq)]
pub struct RttStats {
    pub n: usize,
    pub min: u64,
    pub mean: f64,
    /// Sample standard deviation (divides by n − 1; 0 for a single sample).
    pub stdev: f64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
    pub p9999: u64,
    pub max: u64,
}

impl RttStats {
    /// Statistics of `rtts_ns`, which it sorts in place; `None` when there are no samples.
    pub fn from_samples(rtts_ns: &mut [u64]) -> Option<Self> {
        rtts_ns.sort_unstable();
        let sorted = &*rtts_ns;
        let n = sorted.len();
        let (&min, &max) = (sorted.first()?, sorted.last()?);
        let mean = sorted.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
        let squares: f64 = sorted.iter().map(|&x| (x as f64 - mean).powi(2)).sum();
        let stdev = if n > 1 {
            (squares / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        Some(Self {
            n,
            min,
            mean,
            stdev,
            p50: nearest_rank(sorted, 50.0),
            p90: nearest_rank(sorted, 90.0),
            p99: nearest_rank(sorted, 99.0),
            p999: nearest_rank(sorted, 99.9),
            p9999: nearest_rank(sorted, 99.99),
            max,
        })
    }
}

/// The `p`-th percentile of non-empty sorted data, by nearest rank: the sample at 1-based rank
/// ⌈p/100 · n⌉. `p` is taken at its decimal value to four places (99.9 is 999 000 parts per
/// million, not the binary float just above it) and the rank computed in integers, so p99.9 of
/// 1000 samples is rank 999. suite/percentile.py computes the same rank in Python.
pub fn nearest_rank(sorted: &[u64], p: f64) -> u64 {
    sorted[rank(sorted.len(), p) - 1]
}

/// The 1-based rank ⌈p/100 · n⌉ of the `p`-th percentile among `n` ≥ 1 samples, in integers.
fn rank(n: usize, p: f64) -> usize {
    const PER_MILLION: u128 = 1_000_000;
    let parts = (p * 10_000.0).round() as u128;
    let rank = (parts * n as u128).div_ceil(PER_MILLION);
    rank.clamp(1, n as u128) as usize
}

/// The confidence of [`median_interval`].
pub const CONFIDENCE: f64 = 0.95;

/// The median of non-empty sorted data by nearest rank (rank ⌈n/2⌉), and the distribution-free
/// 95 % confidence interval of the population median: the order statistics at ranks k and
/// n + 1 − k, for the largest k with P(B ≤ k − 1) ≤ 2.5 %, B ~ Binomial(n, ½) (Conover,
/// *Practical Nonparametric Statistics*, §3.2: the interval covers the median with probability
/// 1 − 2·P(B ≤ k − 1) ≥ 95 %, whatever the distribution). `None` for fewer than 6 samples, too
/// few for any such interval. 10 repeats give ranks 2 and 9 (97.9 %).
pub fn median_interval(sorted: &[u64]) -> (u64, Option<(u64, u64)>) {
    let n = sorted.len();
    let median = nearest_rank(sorted, 50.0);
    let interval = median_interval_ranks(n).map(|(low, high)| (sorted[low - 1], sorted[high - 1]));
    (median, interval)
}

/// The 1-based ranks (k, n + 1 − k) of [`median_interval`], or `None` when n < 6.
pub fn median_interval_ranks(n: usize) -> Option<(usize, usize)> {
    let tail = (1.0 - CONFIDENCE) / 2.0;
    // P(B ≤ j) for j = 0, 1, …, summed in logarithms so that large n do not underflow.
    let ln_half_n = n as f64 * 0.5f64.ln();
    let (mut ln_choose, mut cumulative, mut k) = (0.0f64, 0.0f64, 0usize);
    for j in 0..n {
        if j > 0 {
            ln_choose += ((n - j + 1) as f64 / j as f64).ln();
        }
        cumulative += (ln_choose + ln_half_n).exp();
        // A tiny tolerance: P(B ≤ j) exactly at 2.5 % still qualifies.
        if cumulative > tail + 1e-12 {
            break;
        }
        k = j + 1;
    }
    (k >= 1 && k <= n + 1 - k).then_some((k, n + 1 - k))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The textbook definition, written as plainly as possible, to check the fast one against.
    fn reference_percentile(data: &[u64], p: f64) -> u64 {
        let mut sorted = data.to_vec();
        sorted.sort();
        // The smallest value with at least p % of the samples at or below it.
        for &candidate in &sorted {
            let at_or_below = sorted.iter().filter(|&&x| x <= candidate).count();
            if at_or_below as f64 * 100.0 >= p * sorted.len() as f64 - 1e-6 {
                return candidate;
            }
        }
        unreachable!()
    }

    #[test]
    fn percentiles_match_the_reference_definition() {
        // A deterministic, skewed sample set with ties, of several sizes.
        for n in [1usize, 2, 3, 10, 99, 100, 101, 1000, 1234] {
            let data: Vec<u64> = (0..n as u64)
                .map(|i| (i * 7919) % 1009 + (i % 13) * 1000)
                .collect();
            let stats = RttStats::from_samples(&mut data.clone()).expect("non-empty");
            for (p, got) in [
                (50.0, stats.p50),
                (90.0, stats.p90),
                (99.0, stats.p99),
                (99.9, stats.p999),
                (99.99, stats.p9999),
            ] {
                assert_eq!(got, reference_percentile(&data, p), "p{p} of {n} samples");
            }
            assert_eq!(stats.min, *data.iter().min().expect("non-empty"));
            assert_eq!(stats.max, *data.iter().max().expect("non-empty"));
        }
    }

    #[test]
    fn known_small_cases() {
        let stats = RttStats::from_samples(&mut [40, 10, 30, 20]).expect("non-empty");
        assert_eq!((stats.p50, stats.p90, stats.p99), (20, 40, 40));
        assert_eq!(stats.mean, 25.0);
        // Sample stdev of 10, 20, 30, 40: sqrt(500/3).
        assert!((stats.stdev - (500.0f64 / 3.0).sqrt()).abs() < 1e-9);
        let p999 = nearest_rank(&(1..=1000).collect::<Vec<u64>>(), 99.9);
        assert_eq!(p999, 999);
    }

    #[test]
    fn ranks_are_exact_where_floating_point_would_round_up() {
        // 99.9 / 100 · 2·10⁷ is 19 980 000.000000004 in binary floating point.
        let n = 20_000_000;
        for (p, expected) in [(99.9, 19_980_000), (99.99, 19_998_000), (50.0, 10_000_000)] {
            assert_eq!(rank(n, p), expected, "p{p}");
        }
        assert_eq!((rank(1, 0.001), rank(3, 100.0)), (1, 3));
    }

    #[test]
    fn no_samples_give_no_statistics() {
        assert_eq!(RttStats::from_samples(&mut []), None);
    }

    /// P(B ≤ k − 1) for B ~ Binomial(n, ½), exactly, in integers (n ≤ 60).
    fn binomial_tail(n: u32, k: u32) -> f64 {
        let choose = |n: u64, j: u64| (0..j).fold(1u64, |c, i| c * (n - i) / (i + 1));
        let below: u64 = (0..k as u64).map(|j| choose(n.into(), j)).sum();
        below as f64 / 2f64.powi(n as i32)
    }

    #[test]
    fn median_intervals_are_the_widest_ranks_with_95_percent_coverage() {
        assert_eq!(median_interval_ranks(5), None);
        assert_eq!(median_interval_ranks(6), Some((1, 6)));
        assert_eq!(median_interval_ranks(10), Some((2, 9)));
        assert_eq!(median_interval_ranks(20), Some((6, 15)));
        for n in 6..=60u32 {
            let (k, high) = median_interval_ranks(n as usize).expect("n ≥ 6");
            assert_eq!(high, n as usize + 1 - k);
            assert!(binomial_tail(n, k as u32) <= 0.025, "n = {n}, k = {k}");
            assert!(
                binomial_tail(n, k as u32 + 1) > 0.025,
                "n = {n}, k = {k} is not the largest"
            );
        }
        // Large n: the normal approximation n/2 − 1.96·√n/2 is close.
        let (k, _) = median_interval_ranks(10_000).expect("large n");
        assert!((k as f64 - (5000.0 - 1.96 * 50.0)).abs() <= 2.0, "{k}");
    }

    #[test]
    fn the_median_of_repeats_is_a_repeat_and_lies_in_its_interval() {
        let sorted: Vec<u64> = (1..=10).map(|x| x * 100).collect();
        assert_eq!(median_interval(&sorted), (500, Some((200, 900))));
        assert_eq!(median_interval(&[7, 8, 9]), (8, None));
    }
}
