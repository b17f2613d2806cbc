package main

import (
	"encoding/json"
	"testing"
)

func TestMedianIntervalRanksMatchRttCore(t *testing.T) {
	for _, c := range []struct{ n, low, high int }{{6, 1, 6}, {10, 2, 9}, {20, 6, 15}} {
		low, high, ok := medianIntervalRanks(c.n)
		if !ok || low != c.low || high != c.high {
			t.Errorf("n = %d: got (%d, %d, %v), want (%d, %d)", c.n, low, high, ok, c.low, c.high)
		}
	}
	if _, _, ok := medianIntervalRanks(5); ok {
		t.Error("5 repeats give no interval")
	}
}

func TestFiguresOfTenRepeats(t *testing.T) {
	times := []uint64{10000, 9000, 8000, 7000, 6000, 5000, 4000, 3000, 2000, 1000}
	perOp, rate := figures(times, 10)
	if *perOp.Median != 500 || *perOp.Low != 200 || *perOp.High != 900 {
		t.Errorf("ns per op: %v %v %v", *perOp.Median, *perOp.Low, *perOp.High)
	}
	if *rate.Median != 2e6 || *rate.High != 10*1e9/2000 {
		t.Errorf("rate: %v %v", *rate.Median, *rate.High)
	}
}

func TestChecksumsAreTheSumsOfTheEvents(t *testing.T) {
	for _, n := range []uint64{0, 1, 2, 7, 1001} {
		var sum uint64
		for i := uint64(0); i < n; i++ {
			sum += i
		}
		if got := intExpected(n); got != sum {
			t.Errorf("n = %d: %d, want %d", n, got, sum)
		}
	}
}

// A whole figure is written with its ".0", as serde_json writes an f64.
func TestWholeFiguresKeepTheirDecimalPoint(t *testing.T) {
	for value, want := range map[figure]string{430: "430.0", 436.42: "436.42", 2e6: "2000000.0", 0.5: "0.5"} {
		if text, err := json.Marshal(value); err != nil || string(text) != want {
			t.Errorf("%v: %s, want %s (%v)", float64(value), text, want, err)
		}
	}
}
