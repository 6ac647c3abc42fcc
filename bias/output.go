package bias

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// WriteCSV writes one line per (norm, estimator, ε):
// norm,estimator,temperature,label,m,eps,bias,sd.
func WriteCSV(w io.Writer, r *Result) error {
	cw := csv.NewWriter(w)
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if err := cw.Write([]string{"norm", "estimator", "temperature", "label", "m", "eps", "bias", "sd"}); err != nil {
		return err
	}
	for _, c := range r.Curves {
		for i, m := range r.Perturbed {
			rec := []string{f(c.Norm), c.Estimator.Name, f(c.Estimator.Temperature), c.Estimator.Label(),
				strconv.Itoa(m), f(r.Eps[i]), f(c.Bias[i]), f(c.SD[i])}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// palette: one colour per estimator family; temperatures differ by dashes.
var palette = map[string]color.Color{
	"mean":        color.RGBA{R: 214, G: 39, B: 40, A: 255},
	"medoid":      color.RGBA{R: 31, G: 119, B: 180, A: 255},
	"dimmedian":   color.RGBA{R: 44, G: 160, B: 44, A: 255},
	"soft_median": color.RGBA{R: 148, G: 103, B: 189, A: 255},
	"soft_medoid": color.RGBA{R: 255, G: 127, B: 14, A: 255},
}

var dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)},
	{vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)}}

// Plot draws B(ε) of every estimator for one perturbation norm (one panel
// of Figure 2).
func Plot(r *Result, norm float64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Empirical bias, %d samples, point mass of norm %g", r.Config.Samples, norm)
	p.X.Label.Text = "fraction of perturbed points ε"
	p.Y.Label.Text = "bias B(ε)"
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(8)
	p.Legend.YOffs = -vg.Points(4)
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	found := false
	temp := map[string]int{}
	for _, c := range r.Curves {
		if c.Norm != norm {
			continue
		}
		found = true
		xy := make(plotter.XYs, len(r.Eps))
		for i := range xy {
			xy[i] = plotter.XY{X: r.Eps[i], Y: c.Bias[i]}
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, fmt.Errorf("bias plot: %w", err)
		}
		l.Color = palette[c.Estimator.Name]
		l.Width = vg.Points(1.5)
		k := temp[c.Estimator.Name]
		temp[c.Estimator.Name]++
		l.Dashes = dashes[k%len(dashes)]
		p.Add(l)
		p.Legend.Add(c.Estimator.Label(), l)
	}
	if !found {
		return nil, fmt.Errorf("bias plot: no curves for norm %g", norm)
	}
	p.X.Min = 0
	p.Y.Min = 0
	return p, nil
}

// Render encodes p in the given format ("png", "svg", …) at 6×4 inches.
func Render(p *plot.Plot, format string) ([]byte, error) {
	w, err := p.WriterTo(6*vg.Inch, 4*vg.Inch, format)
	if err != nil {
		return nil, fmt.Errorf("bias plot %s: %w", format, err)
	}
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("bias plot %s: %w", format, err)
	}
	return b.Bytes(), nil
}
