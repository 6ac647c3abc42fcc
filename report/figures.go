package report

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/rgnn/rgnn/internal/stats"
)

// Figure is one plot, rendered to PNG and SVG.
type Figure struct {
	Name    string // file base name
	Title   string
	Caption string
	Plot    *plot.Plot
}

// Size of every figure (the legend takes a column on the right).
const figW, figH = 7.5 * vg.Inch, 4 * vg.Inch

// Render returns the figure encoded as format ("png" or "svg"). The
// legend stands in a column right of the plotting area, so it never covers
// a curve.
func (f Figure) Render(format string) ([]byte, error) {
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.New(figW, figH)}
	case "svg":
		c = vgsvg.New(figW, figH)
	default:
		return nil, fmt.Errorf("figure %s: unknown format %q", f.Name, format)
	}
	dc := draw.New(c)
	leg := f.Plot.Legend
	f.Plot.Legend = plot.NewLegend() // drawn outside below
	plotArea, legArea, hasLegend := legendColumn(dc, &leg)
	f.Plot.Draw(plotArea)
	f.Plot.Legend = leg
	if hasLegend {
		leg.Top, leg.Left, leg.XOffs, leg.YOffs = true, true, 0, -vg.Points(24)
		leg.Draw(legArea)
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("figure %s: %w", f.Name, err)
	}
	return b.Bytes(), nil
}

// legendColumn splits the canvas into the plotting area and, right of it,
// a column as wide as the legend's entries (none for an empty legend).
func legendColumn(dc draw.Canvas, leg *plot.Legend) (plotArea, legArea draw.Canvas, ok bool) {
	legW := leg.Rectangle(dc).Size().X
	if legW <= 0 {
		return dc, dc, false
	}
	legW += vg.Points(12)
	plotArea, legArea = dc, dc
	plotArea.Max.X -= legW
	legArea.Min.X = plotArea.Max.X + vg.Points(6)
	return plotArea, legArea, true
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.XOffs = -vg.Points(6)
	p.Legend.YOffs = -vg.Points(6)
	return p
}

// meanCurve averages curves of possibly different lengths (missing tail
// values count as 0, which is what an unreachable radius certifies).
func meanCurve(curves [][]float64) []float64 {
	n := 0
	for _, c := range curves {
		n = max(n, len(c))
	}
	out := make([]float64, n)
	for _, c := range curves {
		for i, v := range c {
			out[i] += v
		}
	}
	for i := range out {
		out[i] /= float64(len(curves))
	}
	return out
}

// ratioCurve extracts R(r, 0) (additions) or R(0, r) (deletions) from a
// certify result's ratio grid.
func ratioCurve(r row, add bool) []float64 {
	grid, _ := r.Metrics["ratio"].([]any)
	if len(grid) == 0 {
		return nil
	}
	if add {
		out := make([]float64, len(grid))
		for i, row := range grid {
			out[i] = floats(row)[0]
		}
		return out
	}
	return floats(grid[0])
}

// certRatioFigures: certification ratio over the radius, one figure per
// dataset and smoothing distribution, one line per model (mean over seeds).
// Add-only distributions plot R(r_a, 0), the others R(0, r_d); Add & del.
// distributions also R(r_a, 0), the paper's second panel.
func certRatioFigures(rs []row) ([]Figure, error) {
	var out []Figure
	ds, by := byDataset(ofKind(rs, "certify"))
	for _, d := range ds {
		// ratio curves per distribution, axis (add: r_a) and model
		type axis struct {
			p   pPair
			add bool
		}
		groups := map[axis]map[modelKey][][]float64{}
		put := func(a axis, r row) {
			if groups[a] == nil {
				groups[a] = map[modelKey][][]float64{}
			}
			groups[a][r.Model] = append(groups[a][r.Model], ratioCurve(r, a.add))
		}
		for _, r := range by[d] {
			p := r.Pair
			put(axis{p, p.Del == 0 && !p.Attr}, r)
			if p.Add > 0 && p.Del > 0 && !p.Attr {
				put(axis{p, true}, r)
			}
		}
		var axes []axis
		for a := range groups {
			axes = append(axes, a)
		}
		sort.Slice(axes, func(i, j int) bool {
			if axes[i].p != axes[j].p {
				return axes[i].p.less(axes[j].p)
			}
			return !axes[i].add && axes[j].add
		})
		for _, a := range axes {
			p := a.p
			xl := "deletion radius r_d (r_a = 0)"
			switch {
			case p.Attr:
				xl = "attribute deletion radius r_d (r_a = 0)"
			case a.add:
				xl = "addition radius r_a (r_d = 0)"
			}
			name := "cert_ratio_" + slugify(d) + "_" + p.slug()
			title := fmt.Sprintf("%s, %s", d, p.plain())
			if a.add && p.Del > 0 {
				name += "_ra"
				title += ", over r_a"
			}
			pl := newPlot(title+paperFigure(d, "ratio", p, a.add), xl, "certification ratio R")
			pl.Y.Min, pl.Y.Max = 0, 1
			pl.X.Tick.Marker = integerTicks{}
			var series []any
			for _, mk := range sortedModelKeys(groups[a]) {
				c := meanCurve(groups[a][mk])
				xy := make(plotter.XYs, len(c))
				for i, v := range c {
					xy[i] = plotter.XY{X: float64(i), Y: v}
				}
				series = append(series, mk.Label(), xy)
			}
			if err := plotutil.AddLinePoints(pl, series...); err != nil {
				return nil, err
			}
			out = append(out, Figure{Name: name, Title: pl.Title.Text, Plot: pl,
				Caption: "Certification ratio over the radius (radius 0 is the smoothed accuracy), " + meanOver(ofKind(rs, "certify")) + "."})
		}
	}
	return out, nil
}

// paperFigure names the paper's figure that a figure of ours reproduces,
// as a title suffix (" (paper Fig. 8c)"), numbered as the paper numbers
// its figures; "" where the paper draws none. what is "ratio" (over r_a
// when add), "degree", "attack", "temperature" or "bias".
func paperFigure(dataset, what string, p pPair, add bool) string {
	var f string
	switch what {
	case "bias":
		f = "Fig. 2"
	case "temperature":
		if dataset == "cora_ml" {
			f = "Fig. 3"
		}
	case "attack":
		switch dataset {
		case "cora_ml":
			f = "Fig. 4"
		case "citeseer":
			f = "Fig. 7"
		}
	case "ratio", "degree":
		if dataset != "cora_ml" || p.Attr {
			break
		}
		both := p.Add > 0 && p.Del > 0
		switch {
		case what == "ratio" && both && !add:
			f = "Figs. 6a, 8a"
		case what == "ratio" && both:
			f = "Figs. 6b, 8b"
		case what == "ratio" && p.Del > 0:
			f = "Fig. 8c"
		case what == "ratio":
			f = "Fig. 8d"
		case both:
			f = "Figs. 5, 9a"
		case p.Del > 0:
			f = "Fig. 9b"
		default:
			f = "Fig. 9c"
		}
	}
	if f == "" {
		return ""
	}
	return " (paper " + f + ")"
}

func sortedPairs[V any](m map[pPair]V) []pPair {
	var ps []pPair
	for p := range m {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].less(ps[j]) })
	return ps
}

func sortedModelKeys[V any](m map[modelKey]V) []modelKey {
	set := map[modelKey]bool{}
	for k := range m {
		set[k] = true
	}
	return sortedKeys(set)
}

// degreeFigures: accumulated certifications over the node degree (equal
// frequency bins), one figure per dataset and smoothing distribution, one
// line per model, bins labelled by their degree range (of the first seed).
func degreeFigures(rs []row) ([]Figure, error) {
	var out []Figure
	ds, by := byDataset(ofKind(rs, "certify"))
	for _, d := range ds {
		type acc struct {
			curves [][]float64
			labels []string
		}
		groups := map[pPair]map[modelKey]*acc{}
		for _, r := range by[d] {
			bins, _ := r.Metrics["degree_bins"].([]any)
			if len(bins) == 0 {
				continue
			}
			p := r.Pair
			if groups[p] == nil {
				groups[p] = map[modelKey]*acc{}
			}
			a := groups[p][r.Model]
			if a == nil {
				a = &acc{}
				groups[p][r.Model] = a
			}
			var c []float64
			var labels []string
			for _, b := range bins {
				bm, _ := b.(map[string]any)
				c = append(c, num(bm, "accumulated_certifications"))
				lo, hi := num(bm, "min_degree"), num(bm, "max_degree")
				if lo == hi {
					labels = append(labels, fmt.Sprintf("%g", lo))
				} else {
					labels = append(labels, fmt.Sprintf("%g–%g", lo, hi))
				}
			}
			a.curves = append(a.curves, c)
			if len(labels) > len(a.labels) {
				a.labels = labels
			}
		}
		for _, p := range sortedPairs(groups) {
			pl := newPlot(fmt.Sprintf("%s, %s", d, p.plain())+paperFigure(d, "degree", p, false), "node degree (equal-frequency bins)", "accumulated certifications")
			var series []any
			var labels []string
			for _, mk := range sortedModelKeys(groups[p]) {
				a := groups[p][mk]
				c := meanCurve(a.curves)
				xy := make(plotter.XYs, len(c))
				for i, v := range c {
					xy[i] = plotter.XY{X: float64(i), Y: v}
				}
				series = append(series, mk.Label(), xy)
				if len(a.labels) > len(labels) {
					labels = a.labels
				}
			}
			if err := plotutil.AddLinePoints(pl, series...); err != nil {
				return nil, err
			}
			pl.Y.Min = 0
			pl.X.Tick.Marker = labelTicks(labels)
			pl.Legend.Left = true // the curves rise with the degree
			pl.Legend.XOffs = vg.Points(6)
			out = append(out, Figure{Name: "accum_certs_degree_" + slugify(d) + "_" + p.slug(), Title: pl.Title.Text, Plot: pl,
				Caption: "Accumulated certifications over the node degree of the clean graph (equal-frequency binning of the test nodes), " + meanOver(ofKind(rs, "certify")) + "."})
		}
	}
	return out, nil
}

// integerTicks labels integers (every few on long axes).
type integerTicks struct{}

func (integerTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 1
	for (hi-lo)/float64(step) > 12 {
		step *= 2
	}
	var ts []plot.Tick
	for v := int(math.Ceil(lo)); float64(v) <= hi; v += step {
		ts = append(ts, plot.Tick{Value: float64(v), Label: fmt.Sprint(v)})
	}
	return ts
}

// valueTicks labels exactly the given values.
type valueTicks []float64

func (v valueTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for _, x := range v {
		ts = append(ts, plot.Tick{Value: x, Label: fmt.Sprintf("%g", x)})
	}
	return ts
}

type labelTicks []string

func (l labelTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for i, s := range l {
		if float64(i) >= lo-0.5 && float64(i) <= hi+0.5 {
			ts = append(ts, plot.Tick{Value: float64(i), Label: s})
		}
	}
	return ts
}

// attackFigures: accuracy over the budget, one figure per dataset and
// attack, one line per model (ε = 0 is the clean accuracy), mean over seeds.
func attackFigures(rs []row) ([]Figure, error) {
	var out []Figure
	ds, by := byDataset(ofKind(rs, "attack"))
	for _, d := range ds {
		attacks := map[string]bool{}
		for _, r := range by[d] {
			attacks[r.Attack] = true
		}
		var as []string
		for a := range attacks {
			as = append(as, a)
		}
		sort.Slice(as, func(i, j int) bool { return attackRank(as[i]) < attackRank(as[j]) })
		for _, a := range as {
			type pt struct{ clean, pert map[float64][]float64 }
			models := map[modelKey]*pt{}
			for _, r := range by[d] {
				if r.Attack != a {
					continue
				}
				m := models[r.Model]
				if m == nil {
					m = &pt{clean: map[float64][]float64{}, pert: map[float64][]float64{}}
					models[r.Model] = m
				}
				seed := r.Seed
				m.clean[seed] = []float64{num(r.Metrics, "clean_acc")}
				e := r.Epsilon
				m.pert[e] = append(m.pert[e], num(r.Metrics, "perturbed_acc"))
			}
			fig := ""
			if a == "dice" || a == "fgsm" || a == "pgd" {
				fig = paperFigure(d, "attack", pPair{}, false)
			}
			pl := newPlot(fmt.Sprintf("%s, %s", d, attackName(a))+fig, "budget ε (fraction of edges)", "test accuracy")
			var series []any
			for _, mk := range sortedModelKeys(models) {
				m := models[mk]
				var clean []float64
				for _, v := range m.clean {
					clean = append(clean, v[0])
				}
				c, _ := stats.MeanSE(clean)
				xy := plotter.XYs{{X: 0, Y: c}}
				var eps []float64
				for e := range m.pert {
					eps = append(eps, e)
				}
				sort.Float64s(eps)
				for _, e := range eps {
					v, _ := stats.MeanSE(m.pert[e])
					xy = append(xy, plotter.XY{X: e, Y: v})
				}
				series = append(series, mk.Label(), xy)
			}
			if err := plotutil.AddLinePoints(pl, series...); err != nil {
				return nil, err
			}
			pl.Legend.Top = false
			pl.Legend.Left = true
			pl.Legend.YOffs = vg.Points(6)
			pl.Legend.XOffs = vg.Points(6)
			out = append(out, Figure{Name: "acc_budget_" + slugify(d) + "_" + slugify(a), Title: pl.Title.Text, Plot: pl,
				Caption: "Test accuracy over the attack budget (ε = 0: clean), " + meanOver(ofKind(rs, "attack")) + "."})
		}
	}
	return out, nil
}

// temperatureFigures: the influence of the temperature T of the Soft
// Medoid models: accumulated certifications (solid, left) per smoothing
// distribution and the clean accuracy (dashed), over T, per dataset and
// model (paper Fig. 3, on Cora ML).
func temperatureFigures(rs []row) ([]Figure, error) {
	var out []Figure
	ds, by := byDataset(rs)
	for _, d := range ds {
		// model -> series name -> T -> values
		type series map[string]map[float64][]float64
		perModel := map[string]series{}
		for _, r := range by[d] {
			m := r.Model.Model
			if !isSoft(m) || r.Model.Alt {
				continue
			}
			T := r.Model.T
			var name string
			var v float64
			switch r.Kind {
			case "train":
				name, v = "clean accuracy", num(r.Metrics, "test_accuracy")
			case "certify":
				p := r.Pair
				name, v = "A.cert. "+p.plain(), num(r.Metrics, "accumulated_certifications")
			default:
				continue
			}
			if perModel[m] == nil {
				perModel[m] = series{}
			}
			if perModel[m][name] == nil {
				perModel[m][name] = map[float64][]float64{}
			}
			perModel[m][name][T] = append(perModel[m][name][T], v)
		}
		var ms []string
		for m := range perModel {
			ms = append(ms, m)
		}
		sort.Slice(ms, func(i, j int) bool { return rank(ms[i]) < rank(ms[j]) })
		for _, m := range ms {
			temps := map[float64]bool{}
			for _, s := range perModel[m] {
				for T := range s {
					temps[T] = true
				}
			}
			if len(temps) < 2 {
				continue // no influence to show with one temperature
			}
			pl := newPlot(fmt.Sprintf("%s, %s: temperature", d, modelName(m))+paperFigure(d, "temperature", pPair{}, false), "temperature T (log scale)", "accumulated certifications / accuracy")
			pl.X.Scale = plot.LogScale{}
			var tv []float64
			for T := range temps {
				tv = append(tv, T)
			}
			sort.Float64s(tv)
			pl.X.Tick.Marker = valueTicks(tv)
			var names []string
			for n := range perModel[m] {
				names = append(names, n)
			}
			sort.Strings(names)
			for i, n := range names {
				var ts []float64
				for T := range perModel[m][n] {
					ts = append(ts, T)
				}
				sort.Float64s(ts)
				xy := make(plotter.XYs, len(ts))
				for j, T := range ts {
					v, _ := stats.MeanSE(perModel[m][n][T])
					xy[j] = plotter.XY{X: T, Y: v}
				}
				l, pts, err := plotter.NewLinePoints(xy)
				if err != nil {
					return nil, err
				}
				l.Color = plotutil.Color(i)
				pts.Color = plotutil.Color(i)
				pts.Shape = plotutil.Shape(i)
				if n == "clean accuracy" {
					l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
				}
				pl.Add(l, pts)
				pl.Legend.Add(n, l, pts)
			}
			out = append(out, Figure{Name: "temperature_" + slugify(d) + "_" + slugify(m), Title: pl.Title.Text, Plot: pl,
				Caption: "Influence of the temperature T on the accumulated certifications (solid) and the clean accuracy of the base classifier (dashed), " + meanOver(ofKind(rs, "certify")) + "."})
		}
	}
	return out, nil
}

// biasFigures: the bias curves of the paper's Figure 2 from results of kind "bias",
// one figure per perturbation norm, one line per estimator (and
// temperature), mean over rows with the same ε grid. Two row shapes are
// read:
//
//   - one curve per row: params {aggregation (or estimator), temperature?,
//     norm?}, metrics {epsilon: [...], bias: [...]};
//   - all curves in one row (as package bias computes them): metrics
//     {epsilon: [...], curves: [{estimator, temperature, norm, bias: [...]}]}.
func biasFigures(rs []row) ([]Figure, error) {
	type curve struct {
		name string
		eps  []float64
		bias []float64
	}
	byNorm := map[float64][]curve{}
	label := func(name string, T float64) string {
		if !math.IsNaN(T) && T > 0 {
			return fmt.Sprintf("%s (T=%g)", name, T)
		}
		return name
	}
	for _, r := range ofKind(rs, "bias") {
		eps := floats(r.Metrics["epsilon"])
		if cs, ok := r.Metrics["curves"].([]any); ok {
			for _, c := range cs {
				cm, _ := c.(map[string]any)
				n := num(cm, "norm")
				if math.IsNaN(n) {
					n = 0
				}
				byNorm[n] = append(byNorm[n], curve{label(str(cm, "estimator"), num(cm, "temperature")), eps, floats(cm["bias"])})
			}
			continue
		}
		// the one-curve-per-row shape names its curve by parameters no
		// kind declares (stores written by other tools): read them as stored
		name := str(r.Params, "aggregation")
		if name == "" {
			name = str(r.Params, "estimator")
		}
		n := num(r.Params, "norm")
		if math.IsNaN(n) {
			n = 0
		}
		byNorm[n] = append(byNorm[n], curve{label(name, num(r.Params, "temperature")), eps, floats(r.Metrics["bias"])})
	}
	var norms []float64
	for n := range byNorm {
		norms = append(norms, n)
	}
	sort.Float64s(norms)
	var out []Figure
	for _, n := range norms {
		groups := map[string][]curve{}
		for _, c := range byNorm[n] {
			groups[c.name] = append(groups[c.name], c)
		}
		var names []string
		for k := range groups {
			names = append(names, k)
		}
		sort.Strings(names)
		title, file := "Bias under perturbation"+paperFigure("", "bias", pPair{}, false), "bias_curve"
		if n != 0 {
			title += fmt.Sprintf(", perturbation norm %g", n)
			file += fmt.Sprintf("_norm%g", n)
		}
		pl := newPlot(title, "fraction of perturbed inputs ε", "bias ‖μ̂(X̃) − μ̂(X)‖")
		pl.Legend.Left = true
		pl.Legend.XOffs = vg.Points(6)
		var series []any
		for _, name := range names {
			cs := groups[name]
			eps := cs[0].eps
			var ys [][]float64
			for _, c := range cs {
				if len(c.bias) == len(eps) {
					ys = append(ys, c.bias)
				}
			}
			y := meanCurve(ys)
			xy := make(plotter.XYs, min(len(eps), len(y)))
			for i := range xy {
				xy[i] = plotter.XY{X: eps[i], Y: y[i]}
			}
			series = append(series, name, xy)
		}
		if err := plotutil.AddLinePoints(pl, series...); err != nil {
			return nil, err
		}
		out = append(out, Figure{Name: file, Title: title, Plot: pl,
			Caption: "Bias of the location estimators over the fraction of perturbed inputs (results of kind \"bias\"), mean over rows."})
	}
	return out, nil
}

// meanOver says what a figure's curves are: means over the seeds of rs, or
// one seed's values.
func meanOver(rs []row) string {
	seeds := seedsOf(rs)
	if !strings.Contains(seeds, ",") {
		return "seed " + seeds
	}
	return "mean over seeds " + seeds
}
