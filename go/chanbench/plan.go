package main

import "strings"

// The benchmarks, in the order of the Rust binaries' --bench.
var benches = []string{"spawn_many", "yield_many", "ping_pong", "chained_spawn", "notify", "oneshot", "channel"}

// The event types; shared_arc (one reference-counted string) has no Go counterpart.
var eventTypes = []string{"int", "string", "string_copy", "shared"}

// sizeFlags are the size options of each benchmark; any other size given is refused, as the
// Rust binaries refuse it.
var sizeFlags = map[string][]string{
	"spawn_many":    {"tasks"},
	"yield_many":    {"tasks", "yields"},
	"ping_pong":     {"tasks"},
	"chained_spawn": {"tasks"},
	"notify":        {"instances", "hold-ms"},
	"oneshot":       {"instances", "hold-ms"},
	"channel":       {"workers", "events", "queue", "event-type", "event-size"},
}

// Bytes a goroutine holds (its smallest stack and descriptor), and a channel or notification
// besides its tasks (rtt-micro's PRIMITIVE_BYTES).
const goroutineBytes, primitiveBytes = 4096, 256

// plan is a run resolved: its sizes, the operations of one repeat, and what the memory grows with.
type plan struct {
	params    params
	ops       uint64
	peakTasks uint64 // goroutines alive at once, by the benchmark's design
	extra     uint64 // bytes besides the goroutines
	driver    string // the option the memory grows with
	units     uint64
}

// resolve fills in each benchmark's defaults (those of docs/micro.md) and counts its operations.
func resolve(o *options) plan {
	var p plan
	given := func(value, fallback uint64) *uint64 {
		if value == 0 {
			value = fallback
		}
		return &value
	}
	switch o.bench {
	case "spawn_many", "ping_pong", "chained_spawn":
		fallback := uint64(1000)
		if o.bench == "spawn_many" {
			fallback = 10_000
		}
		tasks := given(o.tasks, fallback)
		p.params.Tasks = tasks
		p.ops, p.driver, p.units = *tasks, "--tasks", *tasks
		p.peakTasks = map[string]uint64{"spawn_many": *tasks, "ping_pong": 2 * *tasks, "chained_spawn": 2}[o.bench]
		p.extra = primitiveBytes * *tasks
	case "yield_many":
		p.params.Tasks, p.params.Yields = given(o.tasks, 200), given(o.yields, 1000)
		p.ops, p.driver, p.units = *p.params.Tasks**p.params.Yields, "--tasks", *p.params.Tasks
		p.peakTasks = *p.params.Tasks
	case "notify", "oneshot":
		p.params.Instances = given(o.instances, 10_000)
		hold := o.holdMs
		p.params.HoldMs = &hold
		n := *p.params.Instances
		p.ops, p.driver, p.units, p.peakTasks, p.extra = n, "--instances", n, 2*n, primitiveBytes*n
	case "channel":
		workers, events, queue := o.workers, o.events, o.queue
		eventType := o.eventType
		p.params.Workers, p.params.Events, p.params.Queue, p.params.EventType = &workers, &events, &queue, &eventType
		if eventType != "int" {
			size := o.eventSize
			p.params.EventSize = &size
		}
		p.ops, p.driver, p.units, p.peakTasks = workers*events, "--workers", workers, 2*workers
		p.extra = saturatingMul(workers, primitiveBytes+saturatingMul(queue, eventBytes(eventType, o.eventSize)))
	}
	return p
}

// eventBytes is what one queued event holds: a string header and its block, or its header alone.
func eventBytes(eventType string, size uint64) uint64 {
	switch eventType {
	case "int":
		return 8
	case "string", "string_copy":
		return 16 + (size+15)/16*16
	default:
		return 16
	}
}

func saturatingMul(a, b uint64) uint64 {
	if a != 0 && a*b/a != b {
		return ^uint64(0)
	}
	return a * b
}

// checkMemory refuses, before anything is allocated, sizes whose estimate exceeds 80 % of
// MemAvailable, with the largest size that would fit.
func checkMemory(o options, p plan) {
	available, ok := kilobytesField("/proc/meminfo", "MemAvailable:")
	if !ok {
		return
	}
	needed := saturatingMul(p.peakTasks, goroutineBytes)
	if needed+p.extra < needed {
		needed = ^uint64(0)
	} else {
		needed += p.extra
	}
	allowed := uint64(float64(available) * 0.8)
	if needed > allowed {
		perUnit := max(needed/p.units, 1)
		usageError("%s %d: --bench %s would need about %.1f GB (%d B per goroutine, %d B per unit of %s), more than 80 %% of the %.1f GB available (MemAvailable); use at most %s %d",
			p.driver, p.units, o.bench, float64(needed)/1e9, goroutineBytes, perUnit, p.driver, float64(available)/1e9, p.driver, allowed/perUnit)
	}
}

// primitive says what a benchmark measures in Go, as the log's `primitive` names it.
func primitive(bench string) string {
	switch bench {
	case "spawn_many", "chained_spawn":
		return "go statement"
	case "yield_many":
		return "go statement + runtime.Gosched"
	case "ping_pong":
		return "go statement + chan struct{} (buffer 1)"
	case "notify":
		return "chan struct{} (buffer 1) per waiter, send"
	case "oneshot":
		return "chan struct{} per waiter, close"
	default:
		return "go chan"
	}
}

func oneOf(list []string) string { return strings.Join(list, ", ") }

func contains(list []string, name string) bool {
	for _, x := range list {
		if x == name {
			return true
		}
	}
	return false
}
