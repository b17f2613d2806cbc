package main

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
)

// The scheduler benchmarks (after tokio's benches/rt_multi_threaded.rs) and notify vs oneshot,
// with goroutines: each the Go form of rtt-micro's scheduler.rs and wake.rs, timed
// and checked the same way.

// countdown is n goroutines still to finish; the last one to tick signals done.
type countdown struct {
	left atomic.Int64
	done chan struct{}
}

func newCountdown(n uint64) *countdown {
	c := &countdown{done: make(chan struct{}, 1)}
	c.left.Store(int64(n))
	return c
}

func (c *countdown) tick() {
	if c.left.Add(-1) == 0 {
		c.done <- struct{}{}
	}
}

// finished waits for the signal and checks that the count really reached zero.
func (c *countdown) finished(what string) error {
	<-c.done
	if left := c.left.Load(); left != 0 {
		return fmt.Errorf("%d %s did not finish", left, what)
	}
	return nil
}

// spawnMany: one goroutine starts n goroutines, each of which counts itself done.
func spawnMany(n uint64) (time.Duration, error) {
	c := newCountdown(n)
	start := time.Now()
	for i := uint64(0); i < n; i++ {
		go c.tick()
	}
	err := c.finished("spawned goroutines")
	return time.Since(start), err
}

// yieldMany: n goroutines each yield the processor `yields` times, then count themselves done.
func yieldMany(n, yields uint64) (time.Duration, error) {
	c := newCountdown(n)
	start := time.Now()
	for i := uint64(0); i < n; i++ {
		go func() {
			for y := uint64(0); y < yields; y++ {
				runtime.Gosched()
			}
			c.tick()
		}()
	}
	err := c.finished("yielding goroutines")
	return time.Since(start), err
}

// pingPong: n goroutines, started at once, each start a partner, send it a ping and wait for
// its pong, over channels of one slot (Go's oneshot); each counts itself done once answered.
func pingPong(n uint64) (time.Duration, error) {
	c := newCountdown(n)
	start := time.Now()
	for i := uint64(0); i < n; i++ {
		go func() {
			ping, pong := make(chan struct{}, 1), make(chan struct{}, 1)
			go func() {
				if _, ok := <-ping; ok {
					pong <- struct{}{}
				}
			}()
			ping <- struct{}{}
			if _, ok := <-pong; ok {
				c.tick()
			}
		}()
	}
	err := c.finished("round trips")
	return time.Since(start), err
}

// chainedSpawn: each goroutine starts the next, depth deep; the last reports the chain's length.
func chainedSpawn(depth uint64) (time.Duration, error) {
	done := make(chan uint64, 1)
	start := time.Now()
	link(1, depth, done)
	links := <-done
	elapsed := time.Since(start)
	if links != depth {
		return elapsed, fmt.Errorf("the chain had %d links, not %d", links, depth)
	}
	return elapsed, nil
}

func link(n, depth uint64, done chan<- uint64) {
	go func() {
		if n == depth {
			done <- n
		} else {
			link(n+1, depth, done)
		}
	}()
}

// notify: n holders each sleep `hold`, then wake their own waiter by a send on its channel of
// one slot, which keeps the wake-up if the waiter is not waiting yet (as tokio's Notify keeps a
// permit). The time is less `hold`.
func notify(n uint64, hold time.Duration) (time.Duration, error) {
	c := newCountdown(n)
	start := time.Now()
	for i := uint64(0); i < n; i++ {
		wake := make(chan struct{}, 1)
		go func() {
			<-wake
			c.tick()
		}()
		go func() {
			time.Sleep(hold)
			wake <- struct{}{}
		}()
	}
	err := c.finished("waiters")
	return max(time.Since(start)-hold, 0), err
}

// oneshot: the same, but each holder closes its waiter's channel unused, as a dropped oneshot
// sender: the waiter counts itself only when woken by the close, not by a value.
func oneshot(n uint64, hold time.Duration) (time.Duration, error) {
	c := newCountdown(n)
	start := time.Now()
	for i := uint64(0); i < n; i++ {
		wake := make(chan struct{})
		go func() {
			if _, ok := <-wake; !ok {
				c.tick()
			}
		}()
		go func() {
			time.Sleep(hold)
			close(wake)
		}()
	}
	err := c.finished("waiters")
	return max(time.Since(start)-hold, 0), err
}
