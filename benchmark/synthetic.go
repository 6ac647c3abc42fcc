package benchmark

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/tensor"
)

// PubMed's shape (Planetoid PubMed as used by the paper): nodes, undirected
// edges, features, mean feature nonzeros per node, and the class sizes.
const (
	PubMedNodes    = 19717
	PubMedEdges    = 44324
	PubMedFeatures = 500
	pubMedNnzMean  = 50
)

var pubMedClassSizes = []int{4103, 7739, 7875}

// PubMedLikeName is the dataset name of PubMedLike in reports.
const PubMedLikeName = "pubmed_synthetic"

// PubMedLike returns a deterministic PubMed-shaped graph generated from
// seed: 19,717 nodes with PubMed's three class sizes, exactly 44,324
// undirected edges and 500 sparse TF-IDF-like features.
//
// Structure: a degree-corrected stochastic block model. Every node gets a
// Pareto(γ = 2.5) degree propensity θ (capped at 200, so degrees are
// power-law-ish with hubs); an edge picks u ∝ θ, then with probability 0.8 v
// ∝ θ within u's class, else v ∝ θ among all nodes; self loops and repeated
// pairs are redrawn until the edge count is reached. Isolated nodes remain
// (the graph is not reduced to its largest component).
//
// Features: each node has 25–75 distinct words (mean 50, like PubMed); a word
// is drawn with probability 0.5 from its class's Zipf(1.1) ranking of the 500
// words (a class-specific permutation), else from a global Zipf ranking; its
// value is (1 + Exp(1))·idf(word) with idf = log(n/expected document
// frequency), and rows are L2-normalised like TF-IDF vectors.
func PubMedLike(seed uint64) (*data.Graph, error) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed0f9b3d))
	n := PubMedNodes
	labels := make([]int32, 0, n)
	for c, s := range pubMedClassSizes {
		for range s {
			labels = append(labels, int32(c))
		}
	}
	rng.Shuffle(n, func(i, j int) { labels[i], labels[j] = labels[j], labels[i] })

	theta := make([]float64, n)
	for i := range theta {
		theta[i] = math.Min(200, math.Pow(1-rng.Float64(), -1/1.5))
	}
	global := newSampler(theta, nil)
	byClass := make([]*sampler, len(pubMedClassSizes))
	for c := range byClass {
		byClass[c] = newSampler(theta, func(i int) bool { return labels[i] == int32(c) })
	}
	seen := make(map[uint64]struct{}, PubMedEdges)
	es := make([]tensor.Entry, 0, 2*PubMedEdges)
	for len(seen) < PubMedEdges {
		u := global.draw(rng)
		var v int
		if rng.Float64() < 0.8 {
			v = byClass[labels[u]].draw(rng)
		} else {
			v = global.draw(rng)
		}
		if u == v {
			continue
		}
		key := uint64(min(u, v))<<32 | uint64(max(u, v))
		if _, dup := seen[key]; dup {
			continue
		}
		seen[key] = struct{}{}
		es = append(es, tensor.Entry{Row: int32(u), Col: int32(v), Val: 1}, tensor.Entry{Row: int32(v), Col: int32(u), Val: 1})
	}
	adj, err := tensor.FromCOO(n, n, es)
	if err != nil {
		return nil, fmt.Errorf("pubmed-like adjacency: %w", err)
	}

	d := PubMedFeatures
	zipf := make([]float64, d)
	for r := range zipf {
		zipf[r] = math.Pow(float64(r+1), -1.1)
	}
	wordSampler := newSampler(zipf, nil)
	perm := make([][]int, len(pubMedClassSizes)+1) // last: the global ranking
	for c := range perm {
		perm[c] = rng.Perm(d)
	}
	// Expected document frequency of word w ≈ n·(mean words)·P(w).
	pw := make([]float64, d)
	var zs float64
	for _, z := range zipf {
		zs += z
	}
	for c := range perm {
		share := 0.5 / float64(len(pubMedClassSizes))
		if c == len(perm)-1 {
			share = 0.5
		}
		for r, w := range perm[c] {
			pw[w] += share * zipf[r] / zs
		}
	}
	idf := make([]float64, d)
	for w := range idf {
		idf[w] = math.Log(1 + 1/math.Min(1, pubMedNnzMean*pw[w]))
	}
	fs := make([]tensor.Entry, 0, n*pubMedNnzMean)
	words := map[int]bool{}
	for i := range n {
		clear(words)
		m := pubMedNnzMean/2 + rng.IntN(pubMedNnzMean+1)
		for len(words) < m {
			p := perm[len(perm)-1]
			if rng.Float64() < 0.5 {
				p = perm[labels[i]]
			}
			words[p[wordSampler.draw(rng)]] = true
		}
		ws := make([]int, 0, m)
		for w := range words {
			ws = append(ws, w)
		}
		sort.Ints(ws) // map order is random: fix it before drawing values
		vals := make([]float64, m)
		var norm float64
		for j, w := range ws {
			vals[j] = (1 + rng.ExpFloat64()) * idf[w]
			norm += vals[j] * vals[j]
		}
		norm = math.Sqrt(norm)
		for j, w := range ws {
			fs = append(fs, tensor.Entry{Row: int32(i), Col: int32(w), Val: float32(vals[j] / norm)})
		}
	}
	x, err := tensor.FromCOO(n, d, fs)
	if err != nil {
		return nil, fmt.Errorf("pubmed-like features: %w", err)
	}
	return &data.Graph{Name: PubMedLikeName, Adj: adj, Features: x, Labels: labels,
		NumClasses: len(pubMedClassSizes), RawNodes: n}, nil
}

// sampler draws indices proportionally to non-negative weights.
type sampler struct {
	idx []int
	cum []float64
}

func newSampler(w []float64, keep func(int) bool) *sampler {
	s := &sampler{}
	var c float64
	for i, x := range w {
		if keep != nil && !keep(i) {
			continue
		}
		c += x
		s.idx = append(s.idx, i)
		s.cum = append(s.cum, c)
	}
	return s
}

func (s *sampler) draw(rng *rand.Rand) int {
	u := rng.Float64() * s.cum[len(s.cum)-1]
	j := sort.SearchFloat64s(s.cum, u)
	if j == len(s.cum) {
		j--
	}
	return s.idx[j]
}
