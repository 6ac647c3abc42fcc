package synth

import (
	"fmt"
	"math"
	"sort"
)

// MaxNodes is the largest graph Generate accepts.
const MaxNodes = 10_000_000

// Preset is the shape of a generated graph and the strength of its planted
// signal. The zero value is not usable; start from [LookupPreset].
type Preset struct {
	Name        string  `json:"name"`
	Nodes       int     `json:"nodes"`
	Edges       int64   `json:"edges"` // undirected edges targeted (the expected count; arXiv and Products land within 0.05%)
	Features    int     `json:"features"`
	Classes     int     `json:"classes"`
	Homophily   float64 `json:"homophily"`    // expected share of block-model edges within a class
	DegreeSigma float64 `json:"degree_sigma"` // σ of the lognormal degree propensity
	ClassSkew   float64 `json:"class_skew"`   // class c has weight (c+1)^−ClassSkew
	Words       int     `json:"words"`        // mean feature nonzeros per node
	Signal      float64 `json:"signal"`       // probability that a word comes from the class's ranking
	// TrainFrac and ValidFrac, when positive, store a fixed split of that
	// shape in the file (random nodes; the rest is the test set), like the
	// real dataset's official split. Zero: no stored split (random
	// 20-per-class splits per seed).
	TrainFrac float64 `json:"train_frac,omitempty"`
	ValidFrac float64 `json:"valid_frac,omitempty"`
}

// presets are shaped like the real graphs: ogbn-arxiv (OGB's published
// sizes; edge homophily 0.65), ogbn-products (0.81) and Planetoid PubMed
// (0.80). Features are sparse bag-of-words rows of the real width. The OGB
// shapes store a split of the official split's sizes (arXiv 54/18/29%,
// Products 8/2/90%); PubMed's paper protocol splits 20 per class at random.
var presets = map[string]Preset{
	"arxiv": {Name: "arxiv", Nodes: 169_343, Edges: 1_166_243, Features: 128, Classes: 40,
		Homophily: 0.65, DegreeSigma: 1.2, ClassSkew: 1, Words: 16, Signal: 0.5,
		TrainFrac: 90_941.0 / 169_343, ValidFrac: 29_799.0 / 169_343},
	"products": {Name: "products", Nodes: 2_449_029, Edges: 61_859_140, Features: 100, Classes: 47,
		Homophily: 0.81, DegreeSigma: 1.1, ClassSkew: 1, Words: 12, Signal: 0.5,
		TrainFrac: 196_615.0 / 2_449_029, ValidFrac: 39_323.0 / 2_449_029},
	"pubmed": {Name: "pubmed", Nodes: 19_717, Edges: 44_324, Features: 500, Classes: 3,
		Homophily: 0.80, DegreeSigma: 1.0, ClassSkew: 0.3, Words: 50, Signal: 0.05},
}

// Presets lists the preset names.
func Presets() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LookupPreset returns a preset by name.
func LookupPreset(name string) (Preset, error) {
	p, ok := presets[name]
	if !ok {
		return Preset{}, fmt.Errorf("unknown preset %q (known: %v)", name, Presets())
	}
	return p, nil
}

// Scaled returns p with nodes nodes and the edges scaled to keep the mean
// degree (features, classes and signal unchanged).
func (p Preset) Scaled(nodes int) (Preset, error) {
	if nodes < 2 || nodes > MaxNodes {
		return Preset{}, fmt.Errorf("preset %s: %d nodes outside [2, %d]", p.Name, nodes, MaxNodes)
	}
	if nodes == p.Nodes {
		return p, nil
	}
	q := p
	q.Edges = int64(math.Round(float64(p.Edges) * float64(nodes) / float64(p.Nodes)))
	q.Nodes = nodes
	return q, q.Validate()
}

// Validate checks that the preset describes a graph Generate can build.
func (p Preset) Validate() error {
	switch {
	case p.Nodes < 2 || p.Nodes > MaxNodes:
		return fmt.Errorf("preset %s: %d nodes outside [2, %d]", p.Name, p.Nodes, MaxNodes)
	case p.Edges < int64(p.Nodes) || p.Edges > int64(p.Nodes)*int64(p.Nodes-1)/4:
		return fmt.Errorf("preset %s: %d edges for %d nodes (need a mean degree of at least 2 and a sparse graph)", p.Name, p.Edges, p.Nodes)
	case p.Classes < 1 || p.Classes > 1<<15:
		return fmt.Errorf("preset %s: %d classes", p.Name, p.Classes)
	case p.Features < 1 || p.Features > 1<<20:
		return fmt.Errorf("preset %s: %d features", p.Name, p.Features)
	case p.Words < 1 || p.Words*3/2 > p.Features:
		return fmt.Errorf("preset %s: %d words per node for %d features (need 1.5×words ≤ features)", p.Name, p.Words, p.Features)
	case !(p.Homophily >= 0 && p.Homophily <= 1) || !(p.Signal >= 0 && p.Signal <= 1):
		return fmt.Errorf("preset %s: homophily %v and signal %v must lie in [0, 1]", p.Name, p.Homophily, p.Signal)
	case !(p.TrainFrac >= 0 && p.ValidFrac >= 0 && p.TrainFrac+p.ValidFrac < 1):
		return fmt.Errorf("preset %s: split fractions %v + %v must be non-negative and below 1", p.Name, p.TrainFrac, p.ValidFrac)
	case !(p.DegreeSigma >= 0 && p.DegreeSigma <= 3) || !(p.ClassSkew >= 0 && p.ClassSkew <= 4):
		return fmt.Errorf("preset %s: degree sigma %v (in [0, 3]) or class skew %v (in [0, 4])", p.Name, p.DegreeSigma, p.ClassSkew)
	}
	return nil
}

// classWeights returns the normalised class probabilities.
func (p Preset) classWeights() []float64 {
	w := make([]float64, p.Classes)
	var s float64
	for c := range w {
		w[c] = math.Pow(float64(c+1), -p.ClassSkew)
		s += w[c]
	}
	for c := range w {
		w[c] /= s
	}
	return w
}

// cumulative returns the running sums of w with a leading 0 (len(w)+1).
func cumulative(w []float64) []float64 {
	c := make([]float64, len(w)+1)
	for i, x := range w {
		c[i+1] = c[i] + x
	}
	return c
}

// searchCum returns the i in [lo, hi) with cum[i] ≤ r < cum[i+1] (clamped
// to the range when rounding puts r on its edge). A plain loop: the generic
// slices.BinarySearch pays for NaN ordering on every float comparison.
func searchCum(cum []float64, lo, hi int, r float64) int {
	a, b := lo+1, hi // the smallest j in [a, b] with cum[j] > r, else b
	for a < b {
		m := int(uint(a+b) >> 1)
		if cum[m] > r {
			b = m
		} else {
			a = m + 1
		}
	}
	return a - 1
}
