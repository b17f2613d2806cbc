package main

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
)

// confidence of the interval of the median, as in crates/rtt-core/src/stats.rs.
const confidence = 0.95

// medianIntervalRanks gives the 1-based ranks (k, n+1-k) of the distribution-free 95 %
// interval of the median: the largest k with P(B <= k-1) <= 2.5 %, B ~ Binomial(n, 1/2).
// ok is false for n < 6, too few for any such interval. The same rule as rtt-core's
// median_interval_ranks, summed in logarithms the same way.
func medianIntervalRanks(n int) (low, high int, ok bool) {
	tail := (1 - confidence) / 2
	lnHalfN := float64(n) * math.Log(0.5)
	lnChoose, cumulative, k := 0.0, 0.0, 0
	for j := 0; j < n; j++ {
		if j > 0 {
			lnChoose += math.Log(float64(n-j+1) / float64(j))
		}
		cumulative += math.Exp(lnChoose + lnHalfN)
		if cumulative > tail+1e-12 {
			break
		}
		k = j + 1
	}
	if k >= 1 && k <= n+1-k {
		return k, n + 1 - k, true
	}
	return 0, 0, false
}

// nearestRank is the p-th percentile of sorted data by nearest rank: rank ceil(p/100 * n).
func nearestRank(sorted []uint64, p float64) uint64 {
	n := len(sorted)
	parts := uint64(math.Round(p * 10_000))
	rank := (parts*uint64(n) + 999_999) / 1_000_000
	if rank < 1 {
		rank = 1
	}
	if rank > uint64(n) {
		rank = uint64(n)
	}
	return sorted[rank-1]
}

// medianInterval holds a median across repeats and its 95 % interval (nil: none).
type medianInterval struct {
	Median *figure `json:"median"`
	Low    *figure `json:"low"`
	High   *figure `json:"high"`
}

// figure is a float written as the Rust logs write it: a whole value keeps its ".0" (430.0, not
// Go's 430), so that the log reads back as the typed Rust struct into the very same JSON.
type figure float64

func (f figure) MarshalJSON() ([]byte, error) {
	text, err := json.Marshal(float64(f))
	if err == nil && !bytes.ContainsAny(text, ".eE") {
		text = append(text, ".0"...)
	}
	return text, err
}

// figures gives ns per operation and operations per second, as rtt-micro's report does:
// both monotone in the time, so their order statistics are the times' own.
func figures(times []uint64, ops uint64) (perOp, rate medianInterval) {
	if len(times) == 0 || ops == 0 {
		return
	}
	sorted := append([]uint64(nil), times...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	o := float64(ops)
	pf := func(ns uint64) *figure { v := figure(float64(ns) / o); return &v }
	rf := func(ns uint64) *figure { v := figure(o * 1e9 / float64(ns)); return &v }
	median := nearestRank(sorted, 50)
	perOp.Median, rate.Median = pf(median), rf(median)
	if low, high, ok := medianIntervalRanks(len(sorted)); ok {
		perOp.Low, perOp.High = pf(sorted[low-1]), pf(sorted[high-1])
		rate.Low, rate.High = rf(sorted[high-1]), rf(sorted[low-1])
	}
	return
}
