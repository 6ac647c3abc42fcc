package bias

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"

	"github.com/rgnn/rgnn/npz"
)

// Report is a Result in its JSON form (the output of `rgnn bias --json`).
type Report struct {
	Samples      int           `json:"samples"`
	Dim          int           `json:"dim"`
	Trials       int           `json:"trials"`
	Seed         uint64        `json:"seed"`
	Norms        []float64     `json:"norms"`
	Temperatures []float64     `json:"temperatures"`
	Perturbed    []int         `json:"perturbed"`
	Eps          []float64     `json:"eps"`
	Curves       []ReportCurve `json:"curves"`
	Files        []string      `json:"files"` // the files written (WriteFiles)
}

// ReportCurve is a Curve in its JSON form.
type ReportCurve struct {
	Norm        float64   `json:"norm"`
	Estimator   string    `json:"estimator"`
	Temperature float64   `json:"temperature,omitempty"`
	Label       string    `json:"label"`
	Bias        []float64 `json:"bias"`
	SD          []float64 `json:"sd"`
}

// Report returns r in its JSON form, listing files as written.
func (r *Result) Report(files []string) Report {
	c := r.Config
	rep := Report{Samples: c.Samples, Dim: c.Dim, Trials: c.Trials, Seed: c.Seed, Norms: c.Norms,
		Temperatures: c.Temperatures, Perturbed: r.Perturbed, Eps: r.Eps, Files: files}
	for _, cv := range r.Curves {
		rep.Curves = append(rep.Curves, ReportCurve{Norm: cv.Norm, Estimator: cv.Estimator.Name,
			Temperature: cv.Estimator.Temperature, Label: cv.Estimator.Label(), Bias: cv.Bias, SD: cv.SD})
	}
	return rep
}

// WriteFiles writes dir/bias.csv (WriteCSV) and, per norm p, the plot
// dir/bias_norm<p>.png and .svg, each atomically, creating dir. It returns
// the paths written, the CSV first.
func (r *Result) WriteFiles(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("bias: output directory: %w", err)
	}
	var csv bytes.Buffer
	if err := WriteCSV(&csv, r); err != nil {
		return nil, fmt.Errorf("bias: csv: %w", err)
	}
	path := filepath.Join(dir, "bias.csv")
	if err := npz.AtomicWrite(path, csv.Bytes()); err != nil {
		return nil, err
	}
	files := []string{path}
	for _, p := range r.Config.Norms {
		pl, err := Plot(r, p)
		if err != nil {
			return nil, err
		}
		for _, format := range []string{"png", "svg"} {
			b, err := Render(pl, format)
			if err != nil {
				return nil, err
			}
			path := filepath.Join(dir, "bias_norm"+strconv.FormatFloat(p, 'g', -1, 64)+"."+format)
			if err := npz.AtomicWrite(path, b); err != nil {
				return nil, err
			}
			files = append(files, path)
		}
	}
	return files, nil
}

// WriteTable prints one table per norm: ε down, the estimators' B(ε)
// across.
func (r *Result) WriteTable(w io.Writer) error {
	for _, p := range r.Config.Norms {
		fmt.Fprintf(w, "Empirical bias B(ε), point mass of norm %g (%d samples, %d trials, seed %d)\n",
			p, r.Config.Samples, r.Config.Trials, r.Config.Seed)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		var curves []Curve
		fmt.Fprint(tw, "ε\t")
		for _, c := range r.Curves {
			if c.Norm == p {
				curves = append(curves, c)
				fmt.Fprintf(tw, "%s\t", c.Estimator.Label())
			}
		}
		fmt.Fprintln(tw)
		for i, e := range r.Eps {
			fmt.Fprintf(tw, "%.2f\t", e)
			for _, c := range curves {
				fmt.Fprintf(tw, "%.4g\t", c.Bias[i])
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
	}
	return nil
}
