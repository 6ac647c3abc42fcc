package certify

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/rgnn/rgnn/tensor"
)

// SampleParams are the flip probabilities of the smoothing distribution.
type SampleParams struct {
	PPlusAdj  float64 `json:"pf_plus_adj"`  // absent edge → present
	PMinusAdj float64 `json:"pf_minus_adj"` // present edge → absent
	PPlusAtt  float64 `json:"pf_plus_att"`  // attribute 0 → 1
	PMinusAtt float64 `json:"pf_minus_att"` // attribute 1 → 0
}

// Validate checks that all probabilities lie in [0, 1), the range the
// specs give users (task.Certify), and that something is perturbed: a
// programmer's check, the user-facing one is the spec's.
func (p SampleParams) Validate() error {
	for _, v := range []float64{p.PPlusAdj, p.PMinusAdj, p.PPlusAtt, p.PMinusAtt} {
		if !(v >= 0 && v < 1) {
			return fmt.Errorf("sample params %+v: probabilities must lie in [0, 1)", p)
		}
	}
	if p.PPlusAdj == 0 && p.PMinusAdj == 0 && p.PPlusAtt == 0 && p.PMinusAtt == 0 {
		return fmt.Errorf("sample params: all flip probabilities are 0")
	}
	return nil
}

func (p SampleParams) perturbsAttributes() bool { return p.PPlusAtt > 0 || p.PMinusAtt > 0 }

// Sampler draws independent random perturbations of an undirected graph:
// each existing edge is deleted with probability p₋, each absent node pair
// {i, j} (i ≠ j) added with probability p₊, independently; optionally each
// binary attribute flips 1→0 with p₋ᵃᵗᵗ and 0→1 with p₊ᵃᵗᵗ. It never
// touches the n² absent pairs one by one: additions are found by geometric
// skipping over the upper triangle (the gap to the next added pair is
// Geometric(p₊)), so a sample costs O(|E| + p₊·n²/2).
//
// A Sampler is read-only after construction and safe for concurrent use.
type Sampler struct {
	n      int
	adj    *tensor.CSR // base adjacency (symmetric)
	feats  *tensor.CSR // base features (binary if attributes are perturbed)
	params SampleParams
	// upper[i] is the position of row i's first entry above the diagonal.
	upper []int
}

// NewSampler validates the base graph (square symmetric adjacency without
// self loops; features with one row per node, 0/1 valued if attributes are
// perturbed; feats may be nil if they are not).
func NewSampler(adj, feats *tensor.CSR, p SampleParams) (*Sampler, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if adj == nil || adj.Rows != adj.Cols {
		return nil, fmt.Errorf("sampler: adjacency must be square")
	}
	if err := adj.Validate(); err != nil {
		return nil, fmt.Errorf("sampler: adjacency: %w", err)
	}
	for i := range adj.Rows {
		lo, hi := adj.RowRange(i)
		for _, j := range adj.Indices[lo:hi] {
			if int(j) == i {
				return nil, fmt.Errorf("sampler: adjacency has a self loop at node %d", i)
			}
			if _, ok := adj.Find(int(j), i); !ok {
				return nil, fmt.Errorf("sampler: adjacency is not symmetric: (%d, %d) without (%d, %d)", i, j, j, i)
			}
		}
	}
	if feats != nil {
		if feats.Rows != adj.Rows {
			return nil, fmt.Errorf("sampler: %d feature rows for %d nodes", feats.Rows, adj.Rows)
		}
		if err := feats.Validate(); err != nil {
			return nil, fmt.Errorf("sampler: features: %w", err)
		}
	}
	if p.perturbsAttributes() {
		if feats == nil {
			return nil, fmt.Errorf("sampler: attribute flips need features")
		}
		for k, v := range feats.Values {
			if v != 1 && v != 0 {
				return nil, fmt.Errorf("sampler: attribute flips need binary features; value %v at entry %d (load with binary attributes)", v, k)
			}
		}
	}
	upper := make([]int, adj.Rows)
	for i := range upper {
		lo, hi := adj.RowRange(i)
		k := lo
		for k < hi && int(adj.Indices[k]) < i { // no self loops
			k++
		}
		upper[i] = k
	}
	return &Sampler{n: adj.Rows, adj: adj, feats: feats, params: p, upper: upper}, nil
}

// Params returns the flip probabilities.
func (s *Sampler) Params() SampleParams { return s.params }

// Nodes returns the number of nodes.
func (s *Sampler) Nodes() int { return s.n }

// Base returns the unperturbed adjacency and features.
func (s *Sampler) Base() (adj, feats *tensor.CSR) { return s.adj, s.feats }

// Sample draws one perturbed graph: a symmetric unweighted adjacency and
// the features (the base features themselves, shared, if attributes are not
// perturbed; callers must not modify either).
func (s *Sampler) Sample(rng *rand.Rand) (adj, feats *tensor.CSR) {
	adj = s.sampleAdj(rng)
	feats = s.feats
	if s.params.perturbsAttributes() {
		feats = s.sampleFeats(rng)
	}
	return adj, feats
}

// SampleAt draws sample i of the stream (seed, stream): the same triple
// always gives the same sample, independent of any other sample.
func (s *Sampler) SampleAt(seed, stream uint64, i int) (adj, feats *tensor.CSR) {
	return s.Sample(SampleRNG(seed, stream, i))
}

// SampleRNG returns the random generator of sample i of the stream (seed,
// stream): a PCG seeded from a SplitMix64 hash of the triple.
func SampleRNG(seed, stream uint64, i int) *rand.Rand {
	h := splitmix64(seed)
	h = splitmix64(h ^ splitmix64(stream+0x632be59bd9b4e019))
	h1 := splitmix64(h ^ uint64(i))
	h2 := splitmix64(h1 ^ 0xd1b54a32d192ed03)
	return rand.New(rand.NewPCG(h1, h2))
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// geometricSkipper yields the positions of successes of independent
// Bernoulli(p) trials at 0, 1, 2, ... < total, by geometric gaps.
type geometricSkipper struct {
	rng   *rand.Rand
	logQ  float64 // log(1−p)
	p     float64
	next  int64
	total int64
}

func newSkipper(rng *rand.Rand, p float64, total int64) *geometricSkipper {
	g := &geometricSkipper{rng: rng, p: p, logQ: math.Log1p(-p), total: total, next: -1}
	return g
}

// Next returns the next success position, or −1 when past total.
func (g *geometricSkipper) Next() int64 {
	if g.p <= 0 {
		return -1
	}
	gap := int64(0)
	if g.p < 1 {
		// Failures before the next success: ⌊log U / log(1−p)⌋, U ∈ (0, 1].
		f := math.Floor(math.Log(1-g.rng.Float64()) / g.logQ)
		if f >= float64(g.total) {
			g.next = g.total
			return -1
		}
		gap = int64(f)
	}
	g.next += gap + 1
	if g.next >= g.total {
		g.next = g.total
		return -1
	}
	return g.next
}

// sampleAdj perturbs the structure.
func (s *Sampler) sampleAdj(rng *rand.Rand) *tensor.CSR {
	n := s.n
	// Kept edges of the upper triangle, row by row (deletions).
	keep := make([]bool, s.adj.Nnz())
	for i := range n {
		_, hi := s.adj.RowRange(i)
		for k := s.upper[i]; k < hi; k++ {
			keep[k] = s.params.PMinusAdj == 0 || rng.Float64() >= s.params.PMinusAdj
		}
	}
	// Additions: successes over the n(n−1)/2 upper-triangle pairs in
	// row-major order; hits on existing edges are ignored (those are
	// subject to deletion only).
	total := int64(n) * int64(n-1) / 2
	sk := newSkipper(rng, s.params.PPlusAdj, total)
	var addI, addJ []int32
	row, rowStart := 0, int64(0) // pairs of row i: (i, i+1..n−1), starting at rowStart
	for pos := sk.Next(); pos >= 0; pos = sk.Next() {
		for pos >= rowStart+int64(n-1-row) {
			rowStart += int64(n - 1 - row)
			row++
		}
		j := row + 1 + int(pos-rowStart)
		if _, ok := s.adj.Find(row, j); ok {
			continue
		}
		addI = append(addI, int32(row))
		addJ = append(addJ, int32(j))
	}
	// The upper-triangle pairs of the result in row-major order with
	// ascending columns: kept edges merged with the additions.
	pi := make([]int32, 0, s.adj.Nnz()/2+len(addI))
	pj := make([]int32, 0, cap(pi))
	a := 0
	for i := range n {
		k, hi := s.upper[i], s.adj.Indptr[i+1]
		for k < hi || a < len(addI) && int(addI[a]) == i {
			if a < len(addI) && int(addI[a]) == i && (k >= hi || addJ[a] < s.adj.Indices[k]) {
				pi, pj = append(pi, int32(i)), append(pj, addJ[a])
				a++
				continue
			}
			if keep[k] {
				pi, pj = append(pi, int32(i)), append(pj, s.adj.Indices[k])
			}
			k++
		}
	}
	// Assemble the symmetric result: count, then fill in that order, which
	// leaves every row sorted (entries (r, i<r) arrive before (r, j>r)).
	counts := make([]int, n+1)
	for e, i := range pi {
		counts[i+1]++
		counts[pj[e]+1]++
	}
	for i := range n {
		counts[i+1] += counts[i]
	}
	nnz := counts[n]
	out := &tensor.CSR{Rows: n, Cols: n, Indptr: counts, Indices: make([]int32, nnz), Values: make([]float32, nnz)}
	fill := make([]int, n)
	copy(fill, counts[:n])
	for e, i := range pi {
		j := pj[e]
		out.Indices[fill[i]] = j
		fill[i]++
		out.Indices[fill[j]] = i
		fill[j]++
	}
	for k := range out.Values {
		out.Values[k] = 1
	}
	return out
}

// sampleFeats perturbs the binary attributes.
func (s *Sampler) sampleFeats(rng *rand.Rand) *tensor.CSR {
	f := s.feats
	n, d := f.Rows, f.Cols
	sk := newSkipper(rng, s.params.PPlusAtt, int64(n)*int64(d))
	pos := sk.Next()
	// Room for the kept ones and the expected additions (a hint: the
	// appends below grow it if a sample draws more).
	adds := int(s.params.PPlusAtt*float64(n)*float64(d)) + 64
	out := &tensor.CSR{Rows: n, Cols: d, Indptr: make([]int, n+1), Indices: make([]int32, 0, f.Nnz()+adds)}
	for i := range n {
		lo, hi := f.RowRange(i)
		k := lo
		rowEnd := int64(i+1) * int64(d)
		for k < hi || pos >= 0 && pos < rowEnd {
			if pos >= 0 && pos < rowEnd {
				j := int32(pos - int64(i)*int64(d))
				if k >= hi || j < f.Indices[k] {
					out.Indices = append(out.Indices, j)
					pos = sk.Next()
					continue
				}
				if j == f.Indices[k] {
					pos = sk.Next()
					if f.Values[k] == 0 { // stored zero: a 0 that flipped
						out.Indices = append(out.Indices, j)
						k++
					}
					// else: an existing 1, subject to deletion only
					continue
				}
			}
			if f.Values[k] != 0 && (s.params.PMinusAtt == 0 || rng.Float64() >= s.params.PMinusAtt) {
				out.Indices = append(out.Indices, f.Indices[k])
			}
			k++
		}
		out.Indptr[i+1] = len(out.Indices)
	}
	out.Values = make([]float32, len(out.Indices))
	for k := range out.Values {
		out.Values[k] = 1
	}
	return out
}
