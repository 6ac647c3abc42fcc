package aggregate

import (
	"fmt"
	"math"
	"sort"

	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
)

// Aggregator is implemented by every aggregation. Forward overwrites out
// (a.Rows × x.Cols) and returns the state Backward needs; Backward
// accumulates into gradX and gradVals (either may be nil). An Aggregator
// keeps buffers between calls: use one per layer and goroutine. An
// aggregation may also have ForwardForBackward (autograd.BackwardAggregator:
// Forward for a call whose Backward can follow, keeping what Backward would
// otherwise recompute); autograd.Tape.Aggregate calls it when it records
// the op.
type Aggregator interface {
	Name() string
	Forward(a *tensor.CSR, x, out *tensor.Dense) any
	Backward(state any, gradOut, gradX *tensor.Dense, gradVals []float32)
}

// DefaultK is the top-k of the aggregations when Options.K is 0: the
// reference's 64, shared with GDC (graph.DefaultK).
const DefaultK = graph.DefaultK

// DefaultTemperature is the Soft Medoid's and the Soft Median's temperature
// T when Options.Temperature is 0: the reference's 1.
const DefaultTemperature = 1.0

// Options parameterise the aggregations; zero values mean the reference's
// defaults (DefaultK, DefaultTemperature, weight correction on). Values
// reach New checked by the spec that took them from a user (package
// task); New's errors are for programmer misuse.
type Options struct {
	K           int     // neighbourhood size of the top-k aggregations
	Temperature float64 // softmax temperature T
	// NoWeightCorrection disables Eq. 6-7's weight correction (the
	// "weighted Soft Medoid" of Appendix C.4).
	NoWeightCorrection bool
	// Normalization "alt" selects SM†, the appendix's alternative
	// normalisation (softmax weights renormalised by the edge weights, the
	// result scaled by the row sum of the top-k weights only).
	Normalization string
	// MaxStateBytes bounds what a forward pass of the Soft Medoid or the
	// Soft Median keeps for its Backward beyond O(rows) scalars: 0 means
	// DefaultMaxStateBytes, a negative value no bound. What is not kept,
	// Backward recomputes row by row, with the same values and gradients
	// bit for bit (see state.go).
	MaxStateBytes int64
}

// Spec describes a registered aggregation.
type Spec struct {
	Name, Description string
	New               func(o Options) Aggregator
}

var specs = []Spec{
	{"sum", "weighted sum A·x (the GCN case)", func(o Options) Aggregator { return &Sum{} }},
	{"soft_k_medoid", "Soft Medoid over the top-k neighbours (temperature T, weight correction)",
		func(o Options) Aggregator { return &SoftKMedoid{opts: o} }},
	{"k_medoid", "weighted Medoid over the top-k neighbours", func(o Options) Aggregator { return &KMedoid{k: o.K} }},
	{"medoid", "weighted Medoid over all neighbours", func(o Options) Aggregator { return &KMedoid{k: math.MaxInt32} }},
	{"dimmedian", "weighted dimension-wise median", func(o Options) Aggregator { return &DimMedian{} }},
	{"soft_median", "Soft Median (Geisler et al. 2021)", func(o Options) Aggregator { return &SoftMedian{t: o.Temperature, maxState: o.MaxStateBytes} }},
}

// Names lists the registered aggregations.
func Names() []string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	sort.Strings(names)
	return names
}

// New returns the named aggregation.
func New(name string, o Options) (Aggregator, error) {
	if o.K == 0 {
		o.K = DefaultK
	}
	if o.Temperature == 0 {
		o.Temperature = DefaultTemperature
	}
	switch {
	case o.K < 1:
		return nil, fmt.Errorf("aggregation %s: k must be ≥ 1, got %d", name, o.K)
	case !(o.Temperature > 0) || math.IsInf(o.Temperature, 0):
		return nil, fmt.Errorf("aggregation %s: temperature must be positive and finite, got %v", name, o.Temperature)
	case o.Normalization != "" && o.Normalization != "alt":
		return nil, fmt.Errorf("aggregation %s: normalization must be \"\" or \"alt\", got %q", name, o.Normalization)
	}
	for _, s := range specs {
		if s.Name == name {
			return s.New(o), nil
		}
	}
	return nil, fmt.Errorf("unknown aggregation %q (known: %v)", name, Names())
}

// ForModel is the factory the model registry uses.
func ForModel(name string, k int, temperature float64, normalization string) (Aggregator, error) {
	return New(name, Options{K: k, Temperature: temperature, Normalization: normalization})
}

// checkShapes panics on internal shape mismatches (programmer errors).
func checkShapes(name string, a *tensor.CSR, x, out *tensor.Dense) {
	if a.Cols != x.Rows || out.Rows != a.Rows || out.Cols != x.Cols {
		panic(fmt.Sprintf("aggregate.%s: A %d×%d, x %s, out %s", name, a.Rows, a.Cols, x.Shape(), out.Shape()))
	}
}

// scatterGrads collects gradients with respect to x that the rows of A send
// to arbitrary rows of x (its columns). The backward passes run over the
// fixed chunks of runFixed, and chunk c adds into its own private x.Rows × d
// buffer, in row order; reduce then adds the buffers into gradX in chunk
// order. The chunks depend only on A's row count, so the result is the same
// bits for any GOMAXPROCS. Memory is min(4, max(1, rows/256)) × x.Rows × d
// floats (2.9 MB for cora_ml with d = 64), much less than one slot per edge
// (46 MB there). Fewer chunks mean fewer cold first touches of the buffers'
// rows: 4 measured 6% less CPU time than 8 for the Soft Medoid backward.
//
// Between passes the whole of buf (its capacity) is zero: it is allocated
// zero, the backward passes write only through row, and reduce clears every
// part it adds (all the chunks, all the x rows). A new pass with a
// different layout over the same memory thus needs no clearing.
type scatterGrads struct {
	buf      []float32 // chunk c, x row j: buf[(c*xRows+j)*d:][:d]
	xRows, d int
	dirty    bool // a reset was not followed by its reduce: clear first
	par      par
	gradX    *tensor.Dense
	reduceFn func(chunk, lo, hi int)
	count    int // chunks of the current pass
}

// rowPass is what the row-parallel aggregations' passes share: the worker
// pool, gradX's per-chunk parts and Backward's arguments, kept for the row
// chunks while a backward pass runs.
type rowPass struct {
	g              scatterGrads
	par            par
	gradOut, gradX *tensor.Dense
	gradVals       []float32
}

// backward is Backward's pass: bwd over the rows of a in fixed chunks
// (par.runFixed) with the arguments set for the chunks, gradX's parts (x
// with cols columns) reset before and summed into gradX after.
func (p *rowPass) backward(a *tensor.CSR, cols int, gradOut, gradX *tensor.Dense, gradVals []float32, bwd func(chunk, lo, hi int)) {
	if gradX != nil {
		p.g.reset(a, cols)
	}
	p.gradOut, p.gradX, p.gradVals = gradOut, gradX, gradVals
	p.par.runFixed(a.Rows, bwd)
	p.gradOut, p.gradX, p.gradVals = nil, nil, nil
	if gradX != nil {
		p.g.reduce(gradX)
	}
}

// reset prepares the buffers for a backward pass over the rows of a into an
// x with d columns; the buffers are all zero afterwards.
func (e *scatterGrads) reset(a *tensor.CSR, d int) {
	count, _ := fixedChunks(a.Rows)
	need := count * a.Cols * d
	if cap(e.buf) < need {
		e.buf = make([]float32, need)
	} else if e.dirty {
		// An interrupted pass (a panic in a backward kernel) left partial
		// sums, possibly beyond this pass's length.
		clear(e.buf[:cap(e.buf)])
	}
	e.buf = e.buf[:need]
	e.xRows, e.d, e.count = a.Cols, d, count
	e.dirty = true
}

// row returns chunk's gradient row for x row j.
func (e *scatterGrads) row(chunk, j int) []float32 {
	o := (chunk*e.xRows + j) * e.d
	return e.buf[o : o+e.d : o+e.d]
}

// chunkBuf returns chunk's gradient rows (row j at j·d).
func (e *scatterGrads) chunkBuf(chunk int) []float32 {
	n := e.xRows * e.d
	return e.buf[chunk*n : (chunk+1)*n : (chunk+1)*n]
}

// prefetchRow starts loading the rows of x that row r of a reads and,
// with g, chunk's gradient rows for them: the rows a kernel needs next,
// requested while it still computes the current row.
func prefetchRow(a *tensor.CSR, r int, x *tensor.Dense, g *scatterGrads, chunk int) {
	idx := a.Indices[a.Indptr[r]:a.Indptr[r+1]]
	tensor.PrefetchRows(x.Data, x.Cols, x.Cols, idx)
	if g != nil {
		tensor.PrefetchRows(g.buf[chunk*g.xRows*g.d:(chunk+1)*g.xRows*g.d], g.d, g.d, idx)
	}
}

// prefetchAhead is how many entries ahead a backward pass requests the x
// and gradient rows it will need (prefetchEntry). A whole next row at once
// (prefetchRow: 64 entries, 512 cache lines) overflows the core's queue of
// outstanding misses, and the prefetch instructions stall; a few entries
// ahead keep it full without that. Measured on the Soft Median's backward
// at arXiv size (AMD EPYC): 8 took it from ~1.4 to ~0.7 CPU s.
const prefetchAhead = 8

// prefetchEntry starts loading the x row of entry k of a and, with g,
// chunk's gradient row for it.
func prefetchEntry(a *tensor.CSR, k int, x *tensor.Dense, g *scatterGrads, chunk int) {
	idx := a.Indices[k : k+1]
	tensor.PrefetchRows(x.Data, x.Cols, x.Cols, idx)
	if g != nil {
		tensor.PrefetchRows(g.buf[chunk*g.xRows*g.d:(chunk+1)*g.xRows*g.d], g.d, g.d, idx)
	}
}

// reduce adds the chunk buffers into gradX in chunk order (parallel over the
// rows of gradX) and leaves them zero for the next pass.
func (e *scatterGrads) reduce(gradX *tensor.Dense) {
	if gradX.Rows != e.xRows || gradX.Cols != e.d {
		panic(fmt.Sprintf("aggregate: gradient %s for an x of %d×%d", gradX.Shape(), e.xRows, e.d))
	}
	if e.reduceFn == nil {
		e.reduceFn = e.reduceRows // bound once: method values allocate
	}
	e.gradX = gradX
	e.par.run(gradX.Rows, 64, e.reduceFn)
	e.gradX = nil
	e.dirty = false
}

func (e *scatterGrads) reduceRows(_, lo, hi int) {
	gradX := e.gradX
	d, stride := e.d, e.xRows*e.d
	for c := 0; c < e.count; c++ {
		part := e.buf[c*stride+lo*d : c*stride+hi*d]
		tensor.Axpy(gradX.Data[lo*d:hi*d], part, 1)
		clear(part)
	}
}

// rowSums returns the full row sums of a in float64.
func rowSums(a *tensor.CSR, into []float64) []float64 {
	if cap(into) < a.Rows {
		into = make([]float64, a.Rows)
	}
	into = into[:a.Rows]
	for r := 0; r < a.Rows; r++ {
		var s float64
		for k := a.Indptr[r]; k < a.Indptr[r+1]; k++ {
			s += float64(a.Values[k])
		}
		into[r] = s
	}
	return into
}

// grow returns s resized to n (contents undefined).
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// addRowScaleGrad adds ∂L/∂(row sum) = g·y to the gradient of every entry of
// row r: each aggregation is y scaled by the row sum Σ_j A_rj, so every
// entry of the row receives g·y (y = out/rowSum, the unscaled aggregate).
func addRowScaleGrad(gradVals []float32, a *tensor.CSR, r int, g, out []float32, rowSum float64) {
	if gradVals == nil || rowSum == 0 {
		return
	}
	gy := float32(float64(tensor.Dot(g, out)) / rowSum)
	for k := a.Indptr[r]; k < a.Indptr[r+1]; k++ {
		gradVals[k] += gy
	}
}
