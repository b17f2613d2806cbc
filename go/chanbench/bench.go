package main

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// eventText is the text of a string event (16 bytes), as in rtt-core's channel benchmark.
const eventText = "event-0123456789"

func stringCheck(s string) uint64 { return uint64(len(s)) }

func stringExpected(n uint64) uint64 { return n * uint64(len(eventText)) }

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
