package main

import "testing"

// The defaults and operation counts are docs/micro.md's, as the Rust binaries resolve them.
func TestResolveGivesEachBenchmarkItsDefaultsAndOps(t *testing.T) {
	for _, c := range []struct {
		bench string
		ops   uint64
		peak  uint64
	}{
		{"spawn_many", 10_000, 10_000},
		{"yield_many", 200 * 1000, 200},
		{"ping_pong", 1000, 2000},
		{"chained_spawn", 1000, 2},
		{"notify", 10_000, 20_000},
		{"oneshot", 10_000, 20_000},
		{"channel", 100 * 10_000, 200},
	} {
		o := options{bench: c.bench, holdMs: 100, workers: 100, events: 10_000, queue: 256, eventType: "int", eventSize: 16}
		p := resolve(&o)
		if p.ops != c.ops || p.peakTasks != c.peak {
			t.Errorf("%s: ops %d, peak %d; want %d, %d", c.bench, p.ops, p.peakTasks, c.ops, c.peak)
		}
	}
	o := options{bench: "channel", workers: 1, events: 1, queue: 1, eventType: "string_copy", eventSize: 64}
	if p := resolve(&o); p.params.EventSize == nil || *p.params.EventSize != 64 {
		t.Errorf("a string event's size is recorded: %v", p.params.EventSize)
	}
	o.eventType = "int"
	if p := resolve(&o); p.params.EventSize != nil {
		t.Errorf("an int event has no size: %v", *p.params.EventSize)
	}
}

// Each string kind makes strings of the size asked, a fresh one where it should.
func TestStringEventsHaveTheirSize(t *testing.T) {
	for _, n := range []int{1, 2, 16, 1000} {
		if s := fresh(n); len(s) != n {
			t.Errorf("fresh(%d) has %d bytes", n, len(s))
		}
	}
	if intExpected(5) != 0+1+2+3+4 || intExpected(4) != 0+1+2+3 {
		t.Errorf("intExpected is the sum of 0 .. n-1")
	}
}
