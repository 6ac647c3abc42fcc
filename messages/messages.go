package messages

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/rgnn/rgnn/aggregate"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

// Point is a position in the plane of the first two principal components.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// Estimates are the three location estimates of a neighbourhood's
// messages, projected.
type Estimates struct {
	Mean       Point `json:"mean"`
	Medoid     Point `json:"medoid"`
	SoftMedoid Point `json:"soft_medoid"`
}

// Panel is the target's neighbourhood with the first Flips flips of the
// attack applied.
type Panel struct {
	Flips int `json:"flips"`
	// Clean are the messages of neighbours the target also has in the
	// clean graph, Adversarial those of the neighbours the attack added.
	Clean       []Point   `json:"clean"`
	Adversarial []Point   `json:"adversarial"`
	Estimates   Estimates `json:"estimates"`
}

// Figure is Figure 1 for one target.
type Figure struct {
	Model       string  `json:"model"`
	Target      int     `json:"target"`
	Degree      int     `json:"degree"`
	Temperature float64 `json:"temperature"`
	// Explained is the variance fraction of the two components.
	Explained [2]float64 `json:"explained"`
	// CleanEstimates are the estimates on the clean neighbourhood.
	CleanEstimates Estimates `json:"clean_estimates"`
	Panels         []Panel   `json:"panels"`
}

// Compute builds the figure of target for model m (trained on p) under
// flips (edge flips in the attack's order); one panel per budget, each the
// first budget flips. temperature is the Soft Medoid's T (0: 1). The PCA is
// fitted once, on the messages of every edge of the clean graph.
func Compute(m model.Model, p *data.Problem, target int, flips [][2]int, budgets []int, temperature float64) (*Figure, error) {
	ll, ok := m.(model.LastLayerer)
	if !ok {
		return nil, fmt.Errorf("model %s: no message-passing output layer to draw", m.Name())
	}
	if target < 0 || target >= p.NumNodes() {
		return nil, fmt.Errorf("target %d: not a node (the graph has %d)", target, p.NumNodes())
	}
	if temperature == 0 {
		temperature = 1
	}
	for _, b := range budgets {
		if b < 0 || b > len(flips) {
			return nil, fmt.Errorf("budget %d: the attack made %d flips", b, len(flips))
		}
	}
	x := autograd.NewSparse(p.Features)
	clean, err := layer(ll, m, p.Adj, p.Features, x)
	if err != nil {
		return nil, err
	}
	pc, err := fitPCA(clean)
	if err != nil {
		return nil, err
	}
	f := &Figure{Model: m.Name(), Target: target, Degree: len(neighbours(p.Adj, target)), Temperature: temperature,
		Explained: pc.explained}
	cleanNbrs := map[int]bool{}
	for _, w := range neighbours(p.Adj, target) {
		cleanNbrs[w] = true
	}
	if f.CleanEstimates, _, _, err = clean.around(target, cleanNbrs, pc, temperature); err != nil {
		return nil, err
	}
	for _, b := range budgets {
		adj, err := graph.FlipEdges(p.Adj, flips[:b])
		if err != nil {
			return nil, fmt.Errorf("flips: %w", err)
		}
		l, err := layer(ll, m, adj, p.Features, x)
		if err != nil {
			return nil, err
		}
		est, cl, adv, err := l.around(target, cleanNbrs, pc, temperature)
		if err != nil {
			return nil, err
		}
		f.Panels = append(f.Panels, Panel{Flips: b, Clean: cl, Adversarial: adv, Estimates: est})
	}
	return f, nil
}

// lastLayer is a model's output-layer input on one graph.
type lastLayer struct {
	a    *tensor.CSR   // row v: v's neighbours and weights
	msgs *tensor.Dense // n × C
}

func layer(ll model.LastLayerer, m model.Model, adj, feats *tensor.CSR, x *autograd.Sparse) (*lastLayer, error) {
	g, err := m.Preprocess(adj, feats)
	if err != nil {
		return nil, err
	}
	a, msgs, err := ll.LastLayer(g, x)
	if err != nil {
		return nil, err
	}
	return &lastLayer{a: a, msgs: msgs}, nil
}

func neighbours(a *tensor.CSR, v int) []int {
	var out []int
	for j := a.Indptr[v]; j < a.Indptr[v+1]; j++ {
		if w := int(a.Indices[j]); w != v {
			out = append(out, w)
		}
	}
	return out
}

// around returns the estimates of v's messages in l and the projected
// messages of its neighbours, split into those in clean and the others.
func (l *lastLayer) around(v int, clean map[int]bool, pc *pca, temperature float64) (Estimates, []Point, []Point, error) {
	lo, hi := l.a.Indptr[v], l.a.Indptr[v+1]
	k := hi - lo
	if k == 0 {
		return Estimates{}, nil, nil, fmt.Errorf("node %d has no neighbours in the output layer", v)
	}
	c := l.msgs.Cols
	row := &tensor.CSR{Rows: 1, Cols: k, Indptr: []int{0, k}, Indices: make([]int32, k), Values: make([]float32, k)}
	xs := tensor.NewDense(k, c)
	var cl, adv []Point
	var wsum float64
	for i := range k {
		w := int(l.a.Indices[lo+i])
		row.Indices[i] = int32(i)
		row.Values[i] = l.a.Values[lo+i]
		wsum += float64(row.Values[i])
		copy(xs.Data[i*c:(i+1)*c], l.msgs.Data[w*c:(w+1)*c])
		if w == v {
			continue // the self loop is the target's own message
		}
		pt := pc.project(xs.Data[i*c : (i+1)*c])
		if clean[w] {
			cl = append(cl, pt)
		} else {
			adv = append(adv, pt)
		}
	}
	est := func(name string) (Point, error) {
		agg, err := aggregate.New(name, aggregate.Options{K: k, Temperature: temperature})
		if err != nil {
			return Point{}, err
		}
		out := tensor.NewDense(1, c)
		agg.Forward(row, xs, out)
		loc := make([]float32, c)
		for j := range c {
			loc[j] = float32(float64(out.Data[j]) / wsum)
		}
		return pc.project(loc), nil
	}
	var e Estimates
	var err error
	if e.Mean, err = est("sum"); err != nil {
		return e, nil, nil, err
	}
	if e.Medoid, err = est("medoid"); err != nil {
		return e, nil, nil, err
	}
	if e.SoftMedoid, err = est("soft_k_medoid"); err != nil {
		return e, nil, nil, err
	}
	return e, cl, adv, nil
}

// pca is the projection onto the first two principal components.
type pca struct {
	mean      []float64
	vecs      *mat.Dense // C × 2
	explained [2]float64
}

// fitPCA fits on the message of every edge (one row per nonzero, so a
// node's message counts once per edge it sends).
func fitPCA(l *lastLayer) (*pca, error) {
	c := l.msgs.Cols
	if c < 2 {
		return nil, fmt.Errorf("messages have %d dimensions; the figure needs 2 or more", c)
	}
	nnz := l.a.Nnz()
	obs := mat.NewDense(nnz, c, nil)
	for i, w := range l.a.Indices[:nnz] {
		for j := range c {
			obs.Set(i, j, float64(l.msgs.Data[int(w)*c+j]))
		}
	}
	var pc stat.PC
	if !pc.PrincipalComponents(obs, nil) {
		return nil, fmt.Errorf("PCA of %d messages failed", nnz)
	}
	var vecs mat.Dense
	pc.VectorsTo(&vecs)
	vars := pc.VarsTo(nil)
	total := 0.0
	for _, v := range vars {
		total += v
	}
	out := &pca{mean: make([]float64, c), vecs: mat.DenseCopyOf(vecs.Slice(0, c, 0, 2))}
	for j := range c {
		out.mean[j] = stat.Mean(mat.Col(nil, j, obs), nil)
	}
	if total > 0 {
		out.explained = [2]float64{vars[0] / total, vars[1] / total}
	}
	// A principal direction's sign is arbitrary; fix it (largest entry
	// positive) so that the figure does not flip between runs.
	for k := range 2 {
		col := mat.Col(nil, k, out.vecs)
		i := slices.IndexFunc(col, func(v float64) bool {
			return math.Abs(v) == slices.MaxFunc(col, func(a, b float64) int { return cmpAbs(a, b) })
		})
		if i >= 0 && col[i] < 0 {
			for r := range c {
				out.vecs.Set(r, k, -out.vecs.At(r, k))
			}
		}
	}
	return out, nil
}

func cmpAbs(a, b float64) int {
	switch {
	case math.Abs(a) < math.Abs(b):
		return -1
	case math.Abs(a) > math.Abs(b):
		return 1
	}
	return 0
}

func (p *pca) project(v []float32) Point {
	var x, y float64
	for j, m := range p.mean {
		d := float64(v[j]) - m
		x += d * p.vecs.At(j, 0)
		y += d * p.vecs.At(j, 1)
	}
	return Point{x, y}
}
