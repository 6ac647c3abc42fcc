package messages

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

var (
	cleanColor = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	advColor   = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	estColors  = [3]color.Color{color.RGBA{R: 0xff, G: 0x7f, A: 0xff}, color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
		color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}}
)

// Plot draws panel i of f: the clean and adversarial messages, and the
// three estimates on the perturbed neighbourhood (filled) and on the clean
// one (hollow).
func Plot(f *Figure, i int) (*plot.Plot, error) {
	if i < 0 || i >= len(f.Panels) {
		return nil, fmt.Errorf("messages plot: panel %d of %d", i, len(f.Panels))
	}
	pn := f.Panels[i]
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s, node %d (degree %d), %d perturbations", f.Model, f.Target, f.Degree, pn.Flips)
	p.X.Label.Text = fmt.Sprintf("PC 1 (%.0f%% of the variance)", 100*f.Explained[0])
	p.Y.Label.Text = fmt.Sprintf("PC 2 (%.0f%%)", 100*f.Explained[1])
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	add := func(pts []Point, label string, c color.Color, shape draw.GlyphDrawer, r vg.Length) error {
		if len(pts) == 0 {
			return nil
		}
		xy := make(plotter.XYs, len(pts))
		for k, q := range pts {
			xy[k] = plotter.XY{X: q.X, Y: q.Y}
		}
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return fmt.Errorf("messages plot: %w", err)
		}
		s.GlyphStyle = draw.GlyphStyle{Color: c, Shape: shape, Radius: r}
		p.Add(s)
		p.Legend.Add(label, s)
		return nil
	}
	if err := add(pn.Clean, "clean messages", cleanColor, draw.CircleGlyph{}, vg.Points(2.5)); err != nil {
		return nil, err
	}
	if err := add(pn.Adversarial, "perturbed messages", advColor, draw.CrossGlyph{}, vg.Points(3)); err != nil {
		return nil, err
	}
	names := [3]string{"mean", "Medoid", fmt.Sprintf("Soft Medoid (T=%g)", f.Temperature)}
	for k, e := range [3][2]Point{{pn.Estimates.Mean, f.CleanEstimates.Mean}, {pn.Estimates.Medoid, f.CleanEstimates.Medoid},
		{pn.Estimates.SoftMedoid, f.CleanEstimates.SoftMedoid}} {
		if err := add([]Point{e[0]}, names[k], estColors[k], draw.PyramidGlyph{}, vg.Points(6)); err != nil {
			return nil, err
		}
		if err := add([]Point{e[1]}, names[k]+", clean graph", estColors[k], draw.RingGlyph{}, vg.Points(6)); err != nil {
			return nil, err
		}
	}
	return p, nil
}
