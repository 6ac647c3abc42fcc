package certplot

import (
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/rgnn/rgnn/certify"
	"github.com/rgnn/rgnn/internal/outfile"
)

// RatioOverRadius plots the certification ratio over the radius: one curve
// for additions (R(r_a, 0)), one for deletions (R(0, r_d)), and, when the
// grid certifies joint perturbations, one curve R(r_a = k, r_d) per further
// k. Radius 0 is the smoothed accuracy.
func RatioOverRadius(m certify.Metrics, title string) (*plot.Plot, error) {
	if len(m.Ratio) == 0 || len(m.Ratio[0]) == 0 {
		return nil, fmt.Errorf("certplot: empty certification ratio grid")
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "radius (number of perturbed edges)"
	p.Y.Label.Text = "certification ratio R"
	p.Y.Min, p.Y.Max = 0, 1
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.XOffs = -vg.Points(8)
	p.Legend.YOffs = -vg.Points(8)
	p.X.Tick.Marker = integerTicks{}

	var series []any
	add := make(plotter.XYs, len(m.Ratio))
	for ra := range m.Ratio {
		add[ra] = plotter.XY{X: float64(ra), Y: m.Ratio[ra][0]}
	}
	del := make(plotter.XYs, len(m.Ratio[0]))
	for rd := range m.Ratio[0] {
		del[rd] = plotter.XY{X: float64(rd), Y: m.Ratio[0][rd]}
	}
	series = append(series, "additions r_a (r_d = 0)", add, "deletions r_d (r_a = 0)", del)
	for ra := 1; ra < len(m.Ratio); ra++ {
		row := m.Ratio[ra]
		nonzero := false
		for rd := 1; rd < len(row); rd++ {
			nonzero = nonzero || row[rd] > 0
		}
		if !nonzero {
			continue
		}
		xy := make(plotter.XYs, len(row))
		for rd := range row {
			xy[rd] = plotter.XY{X: float64(rd), Y: row[rd]}
		}
		series = append(series, fmt.Sprintf("deletions r_d (r_a = %d)", ra), xy)
	}
	if err := plotutil.AddLinePoints(p, series...); err != nil {
		return nil, err
	}
	return p, nil
}

// integerTicks labels every integer (every few when the axis is long).
type integerTicks struct{}

func (integerTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 1
	for (hi-lo)/float64(step) > 12 {
		step *= 2
	}
	var ts []plot.Tick
	for v := int(lo); float64(v) <= hi; v += step {
		ts = append(ts, plot.Tick{Value: float64(v), Label: fmt.Sprint(v)})
	}
	return ts
}

// AccumulatedOverDegree plots the accumulated certifications per degree bin
// as bars labelled with the bins' degree ranges and node counts.
func AccumulatedOverDegree(bins []certify.DegreeBin, title string) (*plot.Plot, error) {
	if len(bins) == 0 {
		return nil, fmt.Errorf("certplot: no degree bins")
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "node degree (clean graph)"
	p.Y.Label.Text = "accumulated certifications"
	vals := make(plotter.Values, len(bins))
	names := make([]string, len(bins))
	for i, b := range bins {
		vals[i] = b.AccumulatedCertifications
		if b.MinDegree == b.MaxDegree {
			names[i] = fmt.Sprintf("%d\n(n=%d)", b.MinDegree, b.Nodes)
		} else {
			names[i] = fmt.Sprintf("%d–%d\n(n=%d)", b.MinDegree, b.MaxDegree, b.Nodes)
		}
	}
	bars, err := plotter.NewBarChart(vals, vg.Points(28))
	if err != nil {
		return nil, err
	}
	bars.Color = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	bars.LineStyle.Width = 0
	p.Add(plotter.NewGrid(), bars)
	p.NominalX(names...)
	p.Y.Min = 0
	return p, nil
}

// Save writes p as dir/base.png and dir/base.svg (6×4 inches) and returns
// the paths.
func Save(p *plot.Plot, dir, base string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	var paths []string
	for _, ext := range []string{".png", ".svg"} {
		path := filepath.Join(dir, base+ext)
		c, err := p.WriterTo(6*vg.Inch, 4*vg.Inch, ext[1:])
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", path, err)
		}
		// Through outfile: a failed write (a full disk) leaves no empty file.
		if err := outfile.Write(path, func(w io.Writer) error { _, err := c.WriteTo(w); return err }); err != nil {
			return nil, fmt.Errorf("plot: %w", err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// SaveAll draws the certification ratio over the radii (<base>_cert_ratio)
// and the accumulated certifications per degree bin
// (<base>_accum_certs_degree) into dir as PNG and SVG and returns the
// files written.
func SaveAll(m certify.Metrics, bins []certify.DegreeBin, dir, base, title string) ([]string, error) {
	rp, err := RatioOverRadius(m, title)
	if err != nil {
		return nil, err
	}
	paths, err := Save(rp, dir, base+"_cert_ratio")
	if err != nil {
		return nil, err
	}
	dp, err := AccumulatedOverDegree(bins, title)
	if err != nil {
		return nil, err
	}
	more, err := Save(dp, dir, base+"_accum_certs_degree")
	return append(paths, more...), err
}
