package main

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// fill is the byte a string event is made of, as in rtt-micro's channel.rs.
const fill = "e"

// channelRun is one iteration of --bench channel with the event type of o: int, string (built
// afresh for each event, from nothing), string_copy (a copy of one shared original for each
// event) or shared (the original's header: a pointer nobody counts; the GC owns the string).
func channelRun(o options, original string) (time.Duration, error) {
	w, e, q := o.workers, o.events, int(o.queue)
	size := uint64(len(original))
	stringExpected := func(n uint64) uint64 { return n * size }
	switch o.eventType {
	case "string":
		return channelBench(w, e, q, func(uint64) string { return fresh(int(size)) }, stringCheck, stringExpected)
	case "string_copy":
		return channelBench(w, e, q, func(uint64) string { return strings.Clone(original) }, stringCheck, stringExpected)
	case "shared":
		return channelBench(w, e, q, func(uint64) string { return original }, stringCheck, stringExpected)
	default:
		return channelBench(w, e, q, func(i uint64) uint64 { return i }, func(v uint64) uint64 { return v }, intExpected)
	}
}

// fresh is a new string of n bytes, one allocation: strings.Repeat, except for one byte, where
// it would return its argument unallocated.
func fresh(n int) string {
	if n == 1 {
		return strings.Clone(fill)
	}
	return strings.Repeat(fill, n)
}

func stringCheck(s string) uint64 { return uint64(len(s)) }

// intExpected is the sum of 0 .. n-1, wrapping as the running sum does.
func intExpected(n uint64) uint64 {
	if n%2 == 0 {
		return (n / 2) * (n - 1)
	}
	return n * ((n - 1) / 2)
}

// channelBench is one iteration: from before the first goroutine starts until every worker has
// drained its channel. Every event is counted and checksummed on arrival.
func channelBench[T any](workers, events uint64, queue int, newEvent func(uint64) T, check func(T) uint64, expected func(uint64) uint64) (time.Duration, error) {
	var received, checksum atomic.Uint64
	var wg sync.WaitGroup
	wg.Add(int(workers))
	start := time.Now()
	for w := uint64(0); w < workers; w++ {
		ch := make(chan T, queue)
		go func() {
			defer wg.Done()
			var n, sum uint64
			for event := range ch {
				n++
				sum += check(event)
			}
			received.Add(n)
			checksum.Add(sum)
		}()
		go func() {
			for i := uint64(0); i < events; i++ {
				ch <- newEvent(i)
			}
			close(ch)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if got, want := received.Load(), workers*events; got != want {
		return 0, fmt.Errorf("%d of %d events received", got, want)
	}
	if checksum.Load() != expected(events)*workers {
		return 0, fmt.Errorf("the events received are not the events sent (checksum)")
	}
	return elapsed, nil
}
