package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

// microLog is the suite's "micro" log (crates/rtt-core/src/log/micro.rs, MicroLog), field for field:
// the Rust tests read it back as the typed struct and require the very same JSON.
type microLog struct {
	Kind             string         `json:"kind"`
	Schema           string         `json:"schema"`
	Framework        string         `json:"framework"`
	FrameworkVersion string         `json:"framework_version"`
	Flavor           string         `json:"flavor"`
	Threads          int            `json:"threads"`
	Host             *string        `json:"host"`
	Kernel           *string        `json:"kernel"`
	CPUModel         *string        `json:"cpu_model"`
	CPUsAllowed      *string        `json:"cpus_allowed"`
	Rustc            *string        `json:"rustc"`
	SuiteVersion     string         `json:"suite_version"`
	StartedAt        string         `json:"started_at"`
	Complete         bool           `json:"complete"`
	Error            *string        `json:"error"`
	Bench            string         `json:"bench"`
	Primitive        string         `json:"primitive"`
	Params           params         `json:"params"`
	Ops              uint64         `json:"ops"`
	Repeat           uint64         `json:"repeat"`
	Warmup           uint64         `json:"warmup"`
	TimesNs          []uint64       `json:"times_ns"`
	NsPerOp          medianInterval `json:"ns_per_op"`
	OpsPerS          medianInterval `json:"ops_per_s"`
	PeakRssBytes     *uint64        `json:"peak_rss_bytes"`
	NotRun           *string        `json:"not_run"`
}

// params are the sizes; those of other benchmarks are null.
type params struct {
	Tasks     *uint64 `json:"tasks"`
	Yields    *uint64 `json:"yields"`
	Instances *uint64 `json:"instances"`
	HoldMs    *uint64 `json:"hold_ms"`
	Workers   *uint64 `json:"workers"`
	Events    *uint64 `json:"events"`
	Queue     *uint64 `json:"queue"`
	EventType *string `json:"event_type"`
	EventSize *uint64 `json:"event_size"`
}

func newLog(o options, p plan) *microLog {
	return &microLog{
		Kind:             "micro",
		Schema:           "rtt-log/1",
		Framework:        "go",
		FrameworkVersion: strings.TrimPrefix(runtime.Version(), "go"),
		Flavor:           "goroutines",
		Threads:          runtime.GOMAXPROCS(0),
		Host:             firstLine("/proc/sys/kernel/hostname"),
		Kernel:           firstLine("/proc/sys/kernel/osrelease"),
		CPUModel:         field("/proc/cpuinfo", "model name"),
		CPUsAllowed:      field("/proc/self/status", "Cpus_allowed_list"),
		SuiteVersion:     suiteVersion,
		StartedAt:        time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
		Bench:            o.bench,
		Primitive:        primitive(o.bench),
		Params:           p.params,
		Ops:              p.ops,
		Repeat:           o.repeat,
		Warmup:           1,
		TimesNs:          []uint64{},
	}
}

// human is the one line printed without --out or --json.
func (l *microLog) human() string {
	what := fmt.Sprintf("go %s (%s; %s, %d threads): %d ops", l.Bench, l.Primitive, l.Flavor, l.Threads, l.Ops)
	if l.NsPerOp.Median == nil {
		return what + ", no repeat finished\n"
	}
	interval := ""
	if l.NsPerOp.Low != nil {
		interval = fmt.Sprintf(" (95 %% CI %.1f to %.1f)", *l.NsPerOp.Low, *l.NsPerOp.High)
	}
	return fmt.Sprintf("%s, median of %d repeats %.1f ns/op%s, %.3f M ops/s\n",
		what, len(l.TimesNs), *l.NsPerOp.Median, interval, *l.OpsPerS.Median/1e6)
}

func firstLine(path string) *string {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	line := strings.TrimSpace(strings.SplitN(string(text), "\n", 2)[0])
	return &line
}

func field(path, key string) *string {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(line, key) {
			if _, value, ok := strings.Cut(line, ":"); ok {
				value = strings.TrimSpace(value)
				return &value
			}
		}
	}
	return nil
}
