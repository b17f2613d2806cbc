// Command go-micro is the Go reference of the suite's in-process benchmarks: the scheduler
// (spawn_many, yield_many, ping_pong, chained_spawn) with goroutines and runtime.Gosched,
// notify and oneshot with a channel per waiter (a send; a close), and the channel throughput
// of the Go/Rust "bench-of-chan" (W worker goroutines, each receiving from its own buffered
// channel fed by its own producer). It takes the Rust *-micro binaries' options (--flavor
// aside) and writes the same log, framework "go". Standard library only; see docs/micro.md.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Set at build time by the Makefile (-ldflags -X): the suite's version and git commit.
var suiteVersion = "unknown"

// usageError is bad input: one line on stderr, exit 2.
func usageError(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "go-micro: error: "+format+"\n", args...)
	os.Exit(2)
}

type options struct {
	bench     string
	tasks     uint64
	yields    uint64
	instances uint64
	holdMs    uint64
	workers   uint64
	events    uint64
	queue     uint64
	eventType string
	eventSize uint64
	repeat    uint64
	timeout   float64
	threads   uint64
	out       string
	json      bool
}

func parseOptions(args []string) options {
	fs := flag.NewFlagSet("go-micro", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o options
	fs.StringVar(&o.bench, "bench", "", "the benchmark: "+oneOf(benches))
	// 0: the benchmark's default (resolve); given as 0, refused below.
	fs.Uint64Var(&o.tasks, "tasks", 0, "spawn_many: goroutines [10000]; yield_many: [200]; ping_pong: round trips [1000]; chained_spawn: depth [1000]")
	fs.Uint64Var(&o.yields, "yields", 0, "yield_many: yields per goroutine [1000]")
	fs.Uint64Var(&o.instances, "instances", 0, "notify, oneshot: holder and waiter pairs [10000]")
	fs.Uint64Var(&o.holdMs, "hold-ms", 100, "notify, oneshot: how long each holder sleeps")
	fs.Uint64Var(&o.workers, "workers", 100, "channel: workers, each with its own channel and producer")
	fs.Uint64Var(&o.events, "events", 10_000, "channel: events each producer sends")
	fs.Uint64Var(&o.queue, "queue", 256, "channel: the buffer of each worker's channel")
	fs.StringVar(&o.eventType, "event-type", "int", "channel: "+oneOf(eventTypes))
	fs.Uint64Var(&o.eventSize, "event-size", 16, "channel, string event types: bytes of each string")
	fs.Uint64Var(&o.repeat, "repeat", 10, "timed repeats after one untimed warm-up")
	fs.Float64Var(&o.timeout, "timeout", 120, "seconds the whole run may last")
	fs.Uint64Var(&o.threads, "threads", 0, "GOMAXPROCS [default: the CPUs this process may use]")
	fs.StringVar(&o.out, "out", "", "write the log to STEM.json")
	fs.BoolVar(&o.json, "json", false, "print the JSON log on stdout")
	version := fs.Bool("version", false, "print the version, as every binary of the suite does, and exit")
	// The Rust binaries' other options: accepted by name, refused with a reason.
	refused := map[string]string{
		"flavor":    "Go has one scheduler; --threads sets GOMAXPROCS",
		"busy-poll": "it applies to std-ping and std-pong only",
	}
	for name := range refused {
		fs.String(name, "", "not for go-micro")
	}
	if err := fs.Parse(args); err != nil {
		usageError("%s", strings.ReplaceAll(err.Error(), " -", " --"))
	}
	if *version {
		fmt.Printf("go-micro %s\n", suiteVersion)
		os.Exit(0)
	}
	if fs.NArg() > 0 {
		usageError("unexpected argument %q", fs.Arg(0))
	}
	switch {
	case o.bench == "":
		usageError("--bench is required: one of %s", oneOf(benches))
	case !contains(benches, o.bench):
		usageError("invalid value '%s' for '--bench': possible values: %s", o.bench, oneOf(benches))
	}
	sizes := []string{"tasks", "yields", "instances", "hold-ms", "workers", "events", "queue", "event-type", "event-size"}
	fs.Visit(func(f *flag.Flag) {
		if reason, ok := refused[f.Name]; ok {
			usageError("--%s does not apply to go-micro: %s", f.Name, reason)
		}
		if f.Name == "threads" && o.threads < 1 {
			usageError("invalid value '0' for '--threads': must be 1 to 1024")
		}
		if contains(sizes, f.Name) && !contains(sizeFlags[o.bench], f.Name) {
			usageError("--%s does not apply to --bench %s; see --help for the sizes of each benchmark", f.Name, o.bench)
		}
		if f.Name == "event-size" && o.eventType == "int" {
			usageError("--event-size applies to the string event types only (--event-type %s)", oneOf(eventTypes[1:]))
		}
		for _, size := range []struct {
			name  string
			value uint64
			max   uint64
		}{{"tasks", o.tasks, 1e9}, {"yields", o.yields, 1e9}, {"instances", o.instances, 1e12}, {"event-size", o.eventSize, 1 << 20}} {
			if f.Name == size.name && (size.value < 1 || size.value > size.max) {
				usageError("invalid value '%d' for '--%s': must be 1 to %d", size.value, size.name, size.max)
			}
		}
	})
	for _, size := range []struct {
		name  string
		value uint64
		min   uint64
		max   uint64
	}{{"hold-ms", o.holdMs, 0, 60_000}, {"workers", o.workers, 1, 1e9}, {"events", o.events, 1, 1e9}, {"queue", o.queue, 1, 1 << 24}, {"repeat", o.repeat, 1, 10_000}} {
		if size.value < size.min || size.value > size.max {
			usageError("invalid value '%d' for '--%s': must be %d to %d", size.value, size.name, size.min, size.max)
		}
	}
	if o.threads > 1024 {
		usageError("invalid value '%d' for '--threads': must be 1 to 1024", o.threads)
	}
	if o.timeout <= 0 || o.timeout > 86_400 || math.IsNaN(o.timeout) {
		usageError("invalid value '%v' for '--timeout': must be more than 0 and at most 86400 seconds", o.timeout)
	}
	switch {
	case o.eventType == "shared_arc":
		usageError("--event-type shared_arc: a Go string has no reference count to share (the GC owns it); it runs in Rust only")
	case !contains(eventTypes, o.eventType):
		usageError("invalid value '%s' for '--event-type': possible values: %s", o.eventType, oneOf(eventTypes))
	}
	return o
}

func main() {
	o := parseOptions(os.Args[1:])
	p := resolve(&o)
	checkMemory(o, p)
	if o.threads > 0 {
		runtime.GOMAXPROCS(int(o.threads))
	}
	var file *os.File
	if o.out != "" {
		path := o.out + ".json"
		if dir := dirOf(path); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				fmt.Fprintf(os.Stderr, "go-micro: error: creating the log folder %s: %v\n", dir, err)
				os.Exit(1)
			}
		}
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "go-micro: error: creating %s (check --out): %v\n", path, err)
			os.Exit(1)
		}
		file = f
	}
	log := newLog(o, p)
	deadline := time.Now().Add(time.Duration(o.timeout * float64(time.Second)))
	results := make(chan result)
	go iterations(o, p, results)
	timer := time.NewTimer(time.Until(deadline))
	for done := false; !done; {
		select {
		case r, open := <-results:
			switch {
			case !open:
				done = true
			case r.err != "":
				log.Error = &r.err
			default:
				log.TimesNs = append(log.TimesNs, r.ns)
			}
		case <-timer.C:
			msg := fmt.Sprintf("timeout: --timeout %v s passed with %d of %d repeats finished", o.timeout, len(log.TimesNs), o.repeat)
			log.Error = &msg
			done = true
		}
	}
	os.Exit(finish(log, o, file))
}

type result struct {
	ns  uint64
	err string
}

// iterations runs the warm-up, then the timed repeats, each sent as it finishes.
func iterations(o options, p plan, results chan<- result) {
	defer close(results)
	original := strings.Repeat(fill, int(o.eventSize))
	for i := uint64(0); i <= o.repeat; i++ {
		elapsed, err := once(o, p, original)
		switch {
		case err != nil && i == 0:
			results <- result{err: "warm-up: " + err.Error()}
			return
		case err != nil:
			results <- result{err: fmt.Sprintf("repeat %d: %v", i, err)}
			return
		case i > 0:
			ns := uint64(elapsed.Nanoseconds())
			if ns == 0 {
				ns = 1
			}
			results <- result{ns: ns}
		}
	}
}

// once is one iteration of the benchmark; `original` is the shared string of the channel's
// string events, made once per process.
func once(o options, p plan, original string) (time.Duration, error) {
	hold := time.Duration(o.holdMs) * time.Millisecond
	switch o.bench {
	case "spawn_many":
		return spawnMany(*p.params.Tasks)
	case "yield_many":
		return yieldMany(*p.params.Tasks, *p.params.Yields)
	case "ping_pong":
		return pingPong(*p.params.Tasks)
	case "chained_spawn":
		return chainedSpawn(*p.params.Tasks)
	case "notify":
		return notify(*p.params.Instances, hold)
	case "oneshot":
		return oneshot(*p.params.Instances, hold)
	default:
		return channelRun(o, original)
	}
}

func dirOf(path string) string {
	if i := strings.LastIndex(path, "/"); i > 0 {
		return path[:i]
	}
	return ""
}

// kilobytesField reads a "Key: N kB" line of /proc/meminfo or /proc/self/status, in bytes.
func kilobytesField(path, key string) (uint64, bool) {
	text, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(line, key) {
			fields := strings.Fields(line)
			if len(fields) >= 2 {
				kb, err := strconv.ParseUint(fields[1], 10, 64)
				return kb * 1024, err == nil
			}
		}
	}
	return 0, false
}

// finish computes the figures, writes and prints the log, and gives the exit code.
func finish(log *microLog, o options, file *os.File) int {
	if log.Error == nil && uint64(len(log.TimesNs)) != o.repeat {
		msg := "the run ended before its repeats"
		log.Error = &msg
	}
	log.Complete = log.Error == nil
	log.NsPerOp, log.OpsPerS = figures(log.TimesNs, log.Ops)
	if rss, ok := kilobytesField("/proc/self/status", "VmHWM:"); ok {
		log.PeakRssBytes = &rss
	}
	text, err := json.MarshalIndent(log, "", "  ")
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-micro: error: %v\n", err)
		return 1
	}
	if file != nil {
		if _, err := file.Write(append(text, '\n')); err != nil {
			fmt.Fprintf(os.Stderr, "go-micro: error: writing %s: %v\n", file.Name(), err)
			return 1
		}
		file.Close()
	}
	if o.json {
		fmt.Println(string(text))
	} else if file == nil {
		fmt.Print(log.human())
	}
	if log.Error != nil {
		fmt.Fprintf(os.Stderr, "go-micro: error: %s (the finished repeats are kept)\n", *log.Error)
		return 1
	}
	return 0
}
