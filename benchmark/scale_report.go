package benchmark

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rgnn/rgnn/tensor"
)

// Machine describes where a benchmark ran.
type Machine struct {
	CPU        string `json:"cpu"` // /proc/cpuinfo's model name ("" if unknown)
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	MemBytes   int64  `json:"mem_bytes"` // /proc/meminfo's MemTotal (0 if unknown)
	GOOS       string `json:"goos"`
	GOARCH     string `json:"goarch"`
	GoVersion  string `json:"go_version"`
	Kernels    string `json:"kernels"` // tensor.SIMD: the vector kernels of this build
}

// ThisMachine describes the running machine.
func ThisMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), GOOS: runtime.GOOS,
		GOARCH: runtime.GOARCH, GoVersion: runtime.Version(), Kernels: tensor.SIMD}
	procLine("/proc/cpuinfo", "model name", func(v string) { m.CPU = v })
	procLine("/proc/meminfo", "MemTotal", func(v string) {
		var kb int64
		if _, err := fmt.Sscanf(v, "%d kB", &kb); err == nil {
			m.MemBytes = kb << 10
		}
	})
	return m
}

// procLine calls set with the value of the first "key: value" line of a
// /proc file, if there is one.
func procLine(path, key string, set func(string)) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			set(strings.TrimSpace(v))
			return
		}
	}
}

// LoadAverage returns the 1-, 5- and 15-minute load averages of
// /proc/loadavg ("" where there is none).
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// ScaleReport is the output of `rgnn bench --scale` (its --json form).
type ScaleReport struct {
	Command   string     `json:"command"`
	Machine   Machine    `json:"machine"`
	Started   string     `json:"started"` // UTC, RFC 3339
	Finished  string     `json:"finished"`
	LoadStart string     `json:"load_average_start"`
	LoadEnd   string     `json:"load_average_end"`
	Preset    string     `json:"preset"`
	Seed      uint64     `json:"seed"`
	Dir       string     `json:"dir"`
	RSS       string     `json:"rss"` // how peak RSS was measured
	Rows      []ScaleRow `json:"rows"`
}

// NewScaleReport starts the report of s run by command now.
func NewScaleReport(s ScaleSpec, command string) *ScaleReport {
	return &ScaleReport{Command: command, Machine: ThisMachine(), Started: time.Now().UTC().Format(time.RFC3339),
		LoadStart: LoadAverage(), Preset: s.Preset, Seed: s.Seed, Dir: s.Dir,
		RSS: "peak RSS of a child process that ran only that stage (getrusage maxrss; includes loading the graph)"}
}

// Finish records the end time and load.
func (r *ScaleReport) Finish() {
	r.Finished = time.Now().UTC().Format(time.RFC3339)
	r.LoadEnd = LoadAverage()
}

// WriteHeader prints the command line and the machine.
func (r *ScaleReport) WriteHeader(w io.Writer) {
	m := r.Machine
	fmt.Fprintf(w, "command: %s\n", r.Command)
	fmt.Fprintf(w, "machine: %s, %d CPUs, GOMAXPROCS=%d, %.1f GiB, %s/%s %s, kernels: %s\n", orUnknown(m.CPU), m.CPUs,
		m.GOMAXPROCS, float64(m.MemBytes)/(1<<30), m.GOOS, m.GOARCH, m.GoVersion, m.Kernels)
	fmt.Fprintf(w, "graphs: %s-shaped (seed %d) in %s; started %s, load average %s\n", r.Preset, r.Seed, r.Dir,
		r.Started, orUnknown(r.LoadStart))
}

// WriteTable prints the header and one line per row.
func (r *ScaleReport) WriteTable(w io.Writer) error {
	r.WriteHeader(w)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stage\tnodes\tedges\tseconds\tCPU s\tpeak RSS\taccuracy\tnote\t")
	for _, row := range r.Rows {
		fmt.Fprintln(tw, row.cells())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "finished %s, load average %s; training stages: seconds per epoch after the first; accuracy on ≤ 10,000 test nodes (chance: the largest class's share); %s\n",
		r.Finished, orUnknown(r.LoadEnd), r.RSS)
	return nil
}

// cells renders a row for the table (tab-terminated cells).
func (row ScaleRow) cells() string {
	acc, note := "", row.Note
	if row.Epochs > 0 {
		acc = fmt.Sprintf("%.3f (chance %.3f)", row.Accuracy, row.Chance)
		extra := fmt.Sprintf("%d epochs, first %.2f s", row.Epochs, row.FirstEpochSeconds)
		if row.BatchSize > 0 {
			extra += fmt.Sprintf(", batches of %d", row.BatchSize)
		}
		note = strings.TrimPrefix(note+"; "+extra, "; ")
	}
	return fmt.Sprintf("%s\t%d\t%d\t%.2f\t%.2f\t%s\t%s\t%s\t", row.Stage, row.Nodes, row.Edges, row.Seconds,
		row.CPUSeconds, formatBytes(row.PeakRSS), acc, note)
}

// formatBytes renders a byte count in MB or GB (decimal).
func formatBytes(b int64) string {
	switch {
	case b <= 0:
		return "-"
	case b >= 1e9:
		return fmt.Sprintf("%.2f GB", float64(b)/1e9)
	}
	return fmt.Sprintf("%.0f MB", float64(b)/1e6)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
