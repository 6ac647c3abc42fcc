package synth

import (
	"math"
	"math/rand/v2"
	"slices"
)

// featureModel draws bag-of-words rows: a word comes from the node's
// class's Zipf ranking with probability Signal, else from a global one.
type featureModel struct {
	d, words int
	signal   float64
	zipf     []float64 // running Zipf(1.1) weights over ranks (d+1)
	rank     [][]int32 // per class, then global (last): rank → word
	idf      []float64
}

func newFeatureModel(p Preset, seed uint64) *featureModel {
	d := p.Features
	f := &featureModel{d: d, words: p.Words, signal: p.Signal}
	z := make([]float64, d)
	for r := range z {
		z[r] = math.Pow(float64(r+1), -1.1)
	}
	f.zipf = cumulative(z)
	rng := rand.New(rand.NewPCG(seed, tagRankings))
	f.rank = make([][]int32, p.Classes+1)
	for c := range f.rank {
		f.rank[c] = make([]int32, d)
		for i, w := range rng.Perm(d) {
			f.rank[c][i] = int32(w)
		}
	}
	// idf(w) = log(1 + 1/min(1, words·P(w))), P(w) the word's share of draws
	// under the class mix.
	pw := make([]float64, d)
	cw := p.classWeights()
	zs := f.zipf[d]
	for c, rk := range f.rank {
		share := 1 - p.Signal
		if c < p.Classes {
			share = p.Signal * cw[c]
		}
		for r, w := range rk {
			pw[w] += share * z[r] / zs
		}
	}
	f.idf = make([]float64, d)
	for w := range f.idf {
		f.idf[w] = math.Log(1 + 1/math.Min(1, float64(p.Words)*pw[w]))
	}
	return f
}

// wordScratch marks the words of the row being drawn.
type wordScratch struct {
	seen  []bool
	words []int32
	vals  []float64
}

func newWordScratch(d int) *wordScratch { return &wordScratch{seen: make([]bool, d)} }

// row appends node u's sorted columns and values.
func (f *featureModel) row(seed uint64, u int, class int32, ws *wordScratch, cols []uint32, vals []float32) ([]uint32, []float32) {
	rng := rand.New(rand.NewPCG(seed^tagFeatures, uint64(u)))
	m := f.words/2 + rng.IntN(f.words+1)
	m = min(max(m, 1), f.d)
	ws.words = ws.words[:0]
	for len(ws.words) < m {
		rk := f.rank[len(f.rank)-1]
		if rng.Float64() < f.signal {
			rk = f.rank[class]
		}
		w := rk[searchCum(f.zipf, 0, f.d, rng.Float64()*f.zipf[f.d])]
		if !ws.seen[w] {
			ws.seen[w] = true
			ws.words = append(ws.words, w)
		}
	}
	// Values in the order the words were drawn, then sorted by column.
	ws.vals = ws.vals[:0]
	var norm float64
	for _, w := range ws.words {
		v := (1 + rng.ExpFloat64()) * f.idf[w]
		ws.vals = append(ws.vals, v)
		norm += v * v
		ws.seen[w] = false
	}
	norm = math.Sqrt(norm)
	idx := make([]int, len(ws.words))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return int(ws.words[a]) - int(ws.words[b]) })
	for _, i := range idx {
		cols = append(cols, uint32(ws.words[i]))
		vals = append(vals, float32(ws.vals[i]/norm))
	}
	return cols, vals
}
