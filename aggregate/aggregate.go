package aggregate

import (
	"fmt"
	"math"
	"sort"

	"github.com/rgnn/rgnn/tensor"
)

// Aggregator is implemented by every aggregation. Forward overwrites out
// (a.Rows × x.Cols) and returns the state Backward needs; Backward
// accumulates into gradX and gradVals (either may be nil). An Aggregator
// keeps buffers between calls: use one per layer and goroutine.
type Aggregator interface {
	Name() string
	Forward(a *tensor.CSR, x, out *tensor.Dense) any
	Backward(state any, gradOut, gradX *tensor.Dense, gradVals []float32)
}

// Options parameterise the aggregations; zero values mean the reference's
// defaults (k = 64, T = 1, weight correction on).
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
	{"soft_median", "Soft Median (Geisler et al. 2021)", func(o Options) Aggregator { return &SoftMedian{t: o.Temperature} }},
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
		o.K = 64
	}
	if o.Temperature == 0 {
		o.Temperature = 1
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

// edgeGrads collects per-edge gradients with respect to x (nnz × d) and
// reduces them per column in a fixed order, so that gradients landing on
// other rows are deterministic.
type edgeGrads struct {
	buf    []float32
	colPtr []int // CSC pointers over entries
	colEnt []int // entry positions in column order (rows ascending)
	fill   []int

	par      par
	gradX    *tensor.Dense
	reduceFn func(chunk, lo, hi int)
}

func (e *edgeGrads) reset(a *tensor.CSR, d int) {
	need := a.Nnz() * d
	if cap(e.buf) < need {
		e.buf = make([]float32, need)
	}
	e.buf = e.buf[:need] // rows clear their own slots (clearRow), in parallel
	if cap(e.colPtr) < a.Cols+1 {
		e.colPtr = make([]int, a.Cols+1)
	}
	e.colPtr = e.colPtr[:a.Cols+1]
	clear(e.colPtr)
	if cap(e.colEnt) < a.Nnz() {
		e.colEnt = make([]int, a.Nnz())
	}
	e.colEnt = e.colEnt[:a.Nnz()]
	for _, c := range a.Indices {
		e.colPtr[c+1]++
	}
	for i := 0; i < a.Cols; i++ {
		e.colPtr[i+1] += e.colPtr[i]
	}
	e.fill = grow(e.fill, a.Cols)
	copy(e.fill, e.colPtr[:a.Cols])
	for r := 0; r < a.Rows; r++ {
		for k := a.Indptr[r]; k < a.Indptr[r+1]; k++ {
			c := a.Indices[k]
			e.colEnt[e.fill[c]] = k
			e.fill[c]++
		}
	}
}

// clearRow zeroes the gradient slots of row r's entries; every row's
// backward calls it first, so the buffer needs no global clear.
func (e *edgeGrads) clearRow(a *tensor.CSR, r, d int) {
	clear(e.buf[a.Indptr[r]*d : a.Indptr[r+1]*d])
}

// row returns the gradient slot of entry k.
func (e *edgeGrads) row(k, d int) []float32 { return e.buf[k*d : (k+1)*d] }

// reduce adds the per-edge gradients into gradX (parallel over columns).
func (e *edgeGrads) reduce(gradX *tensor.Dense) {
	if e.reduceFn == nil {
		e.reduceFn = e.reduceRows // bound once: method values allocate
	}
	e.gradX = gradX
	e.par.run(gradX.Rows, 64, e.reduceFn)
	e.gradX = nil
}

func (e *edgeGrads) reduceRows(_, lo, hi int) {
	gradX := e.gradX
	d := gradX.Cols
	for j := lo; j < hi; j++ {
		g := gradX.Row(j)
		for p := e.colPtr[j]; p < e.colPtr[j+1]; p++ {
			tensor.Axpy(g, e.buf[e.colEnt[p]*d:(e.colEnt[p]+1)*d], 1)
		}
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
