package benchmark

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"text/tabwriter"
	"time"
)

// Report is a measurement with its setting (the JSON output of
// `rgnn bench --json`).
type Report struct {
	Warmup     int    `json:"warmup_epochs"`
	Epochs     int    `json:"timed_epochs"`
	Seed       int    `json:"seed"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	GOARCH     string `json:"goarch"`
	GoVersion  string `json:"go_version"`
	Date       string `json:"date"` // UTC, RFC 3339
	Rows       []Row  `json:"rows"`
}

// NewReport is the report of rows measured with cfg, now, on this machine.
func NewReport(cfg Config, rows []Row) *Report {
	return &Report{Warmup: cfg.Warmup, Epochs: cfg.Epochs, Seed: int(cfg.Seed), GOMAXPROCS: runtime.GOMAXPROCS(0),
		GOARCH: runtime.GOARCH, GoVersion: runtime.Version(), Date: time.Now().UTC().Format(time.RFC3339), Rows: rows}
}

// ReadReport reads a report saved as JSON.
func ReadReport(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &rep, nil
}

// labels renders a row's GDC flag and the paper's figure ("-" if none).
func labels(r Row) (gdc, paper string) {
	gdc, paper = "no", "-"
	if r.GDC {
		gdc = "yes"
	}
	if r.PaperMs > 0 {
		paper = fmt.Sprintf("%.1f", r.PaperMs)
	}
	return gdc, paper
}

// WriteTable prints the report as an aligned text table.
func (rep *Report) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "ms per training epoch: %d warm-up + %d timed epochs, GOMAXPROCS=%d, %s, %s\n",
		rep.Warmup, rep.Epochs, rep.GOMAXPROCS, rep.GoVersion, rep.Date)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "dataset\tarchitecture\tGDC\tmodel (graph)\tprep ms\tepoch mean\tmedian\tmin\tCPU/epoch\tmean+prep/200\tpaper (GPU)\t")
	for _, r := range rep.Rows {
		gdc, paper := labels(r)
		if r.Skipped != "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\tskipped: %s\t\t\t\t\t\t\t%s\t\n", r.Dataset, r.Architecture, gdc, r.Skipped, paper)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s (%s)\t%.1f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%s\t\n", r.Dataset, r.Architecture, gdc,
			r.Model, r.Graph, r.PrepMs, r.EpochMeanMs, r.EpochMedMs, r.EpochMinMs, r.EpochCPUMs, r.TotalMs, paper)
	}
	return tw.Flush()
}

// WriteMarkdown prints the report as a Markdown table (for BENCHMARKS.md).
func (rep *Report) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "%d warm-up + %d timed epochs, GOMAXPROCS=%d, %s, %s\n\n",
		rep.Warmup, rep.Epochs, rep.GOMAXPROCS, rep.GoVersion, rep.Date)
	fmt.Fprintln(w, "| dataset | architecture | GDC | model (graph) | prep ms | epoch mean ms | median | CPU ms/epoch | mean + prep/200 | paper (GPU) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rep.Rows {
		gdc, paper := labels(r)
		if r.Skipped != "" {
			fmt.Fprintf(w, "| %s | %s | %s | skipped: %s | | | | | | %s |\n", r.Dataset, r.Architecture, gdc, r.Skipped, paper)
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s (%s) | %.1f | %.2f | %.2f | %.2f | %.2f | %s |\n", r.Dataset, r.Architecture, gdc,
			r.Model, r.Graph, r.PrepMs, r.EpochMeanMs, r.EpochMedMs, r.EpochCPUMs, r.TotalMs, paper)
	}
	_, err := fmt.Fprintln(w)
	return err
}
