// Command go-micro is the Go reference of the suite's channel benchmark, as the Go/Rust
// "bench-of-chan" compared them: W worker goroutines, each receiving from its own buffered
// channel of Q events, fed by its own producer goroutine that sends E events (an integer, a
// freshly allocated string, or one shared string). It takes the options of the Rust *-micro
// binaries that apply (--bench channel only) and writes the same log, framework "go".
// Standard library only; see docs/micro.md.
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
	workers   uint64
	events    uint64
	queue     uint64
	eventType string
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
	fs.StringVar(&o.bench, "bench", "", "the benchmark: channel (the only one in Go)")
	fs.Uint64Var(&o.workers, "workers", 100, "workers, each with its own channel and producer")
	fs.Uint64Var(&o.events, "events", 10_000, "events each producer sends")
	fs.Uint64Var(&o.queue, "queue", 256, "the buffer of each worker's channel")
	fs.StringVar(&o.eventType, "event-type", "int", "int, string (fresh) or shared")
	fs.Uint64Var(&o.repeat, "repeat", 10, "timed repeats after one untimed warm-up")
	fs.Float64Var(&o.timeout, "timeout", 120, "seconds the whole run may last")
	fs.Uint64Var(&o.threads, "threads", 0, "GOMAXPROCS [default: the CPUs this process may use]")
	fs.StringVar(&o.out, "out", "", "write the log to STEM.json")
	fs.BoolVar(&o.json, "json", false, "print the JSON log on stdout")
	version := fs.Bool("version", false, "print the version, as every binary of the suite does, and exit")
	// The Rust binaries' other options: accepted by name, refused with a reason.
	refused := map[string]string{
		"tasks":     "the scheduler benchmarks run in Rust only",
		"yields":    "the scheduler benchmarks run in Rust only",
		"instances": "notify and oneshot run in Rust only",
		"hold-ms":   "notify and oneshot run in Rust only",
		"flavor":    "Go has one scheduler; --threads sets GOMAXPROCS",
		"busy-poll": "it applies to std-ping and std-pong only",
	}
	for name := range refused {
		fs.String(name, "", "not for go-micro")
	}
	if err := fs.Parse(args); err != nil {
		usageError("%s", strings.Replace(err.Error(), "-", "--", 1))
	}
	if *version {
		fmt.Printf("go-micro %s\n", suiteVersion)
		os.Exit(0)
	}
	if fs.NArg() > 0 {
		usageError("unexpected argument %q", fs.Arg(0))
	}
	fs.Visit(func(f *flag.Flag) {
		if reason, ok := refused[f.Name]; ok {
			usageError("--%s does not apply to go-micro: %s", f.Name, reason)
		}
		if f.Name == "threads" && o.threads < 1 {
			usageError("invalid value '0' for '--threads': must be 1 to 1024")
		}
	})
	switch o.bench {
	case "channel":
	case "":
		usageError("--bench is required: --bench channel")
	case "spawn_many", "yield_many", "ping_pong", "chained_spawn", "notify", "oneshot":
		usageError("--bench %s: go-micro runs only --bench channel (the others run in Rust only)", o.bench)
	default:
		usageError("--bench %s: unknown benchmark; go-micro runs --bench channel", o.bench)
	}
	for _, size := range []struct {
		name  string
		value uint64
		max   uint64
	}{{"workers", o.workers, 1e9}, {"events", o.events, 1e9}, {"queue", o.queue, 1 << 24}, {"repeat", o.repeat, 10_000}} {
		if size.value < 1 || size.value > size.max {
			usageError("invalid value '%d' for '--%s': must be 1 to %d", size.value, size.name, size.max)
		}
	}
	if o.threads > 1024 {
		usageError("invalid value '%d' for '--threads': must be 1 to 1024", o.threads)
	}
	if o.timeout <= 0 || o.timeout > 86_400 || math.IsNaN(o.timeout) {
		usageError("invalid value '%v' for '--timeout': must be more than 0 and at most 86400 seconds", o.timeout)
	}
	switch o.eventType {
	case "int", "string", "shared":
	default:
		usageError("invalid value '%s' for '--event-type': possible values: int, string, shared", o.eventType)
	}
	return o
}

// Bytes a goroutine holds (its smallest stack and descriptor), and a channel besides its buffer.
const goroutineBytes, channelBytes = 4096, 256

// checkMemory refuses, before allocating, sizes whose estimate exceeds 80 % of MemAvailable.
func checkMemory(o options) {
	available, ok := kilobytesField("/proc/meminfo", "MemAvailable:")
	if !ok {
		return
	}
	eventBytes := map[string]uint64{"int": 8, "string": 16 + 16, "shared": 16}[o.eventType]
	perWorker := 2*goroutineBytes + channelBytes + o.queue*eventBytes
	allowed := uint64(float64(available) * 0.8)
	if needed := perWorker * o.workers; needed/o.workers != perWorker || needed > allowed {
		usageError("--workers %d: --bench channel would need about %.1f GB (%d B per worker), more than 80 %% of the %.1f GB available (MemAvailable); use at most --workers %d",
			o.workers, float64(perWorker)*float64(o.workers)/1e9, perWorker, float64(available)/1e9, allowed/perWorker)
	}
}

func main() {
	o := parseOptions(os.Args[1:])
	checkMemory(o)
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
	log := newLog(o)
	deadline := time.Now().Add(time.Duration(o.timeout * float64(time.Second)))
	results := make(chan result)
	go iterations(o, results)
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
func iterations(o options, results chan<- result) {
	defer close(results)
	for i := uint64(0); i <= o.repeat; i++ {
		elapsed, err := once(o)
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

func once(o options) (time.Duration, error) {
	q := int(o.queue)
	switch o.eventType {
	case "string":
		return channelBench(o.workers, o.events, q, func(uint64) string { return strings.Clone(eventText) }, stringCheck, stringExpected)
	case "shared":
		shared := eventText
		return channelBench(o.workers, o.events, q, func(uint64) string { return shared }, stringCheck, stringExpected)
	default:
		return channelBench(o.workers, o.events, q, func(i uint64) uint64 { return i }, func(v uint64) uint64 { return v }, intExpected)
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
