package aggregate

import (
	"math"

	"github.com/rgnn/rgnn/tensor"
)

// KMedoid is the weighted Medoid in the top-k neighbourhood (reference
// weighted_medoid_k_neighborhood): out_v = (Σ_j A_vj) · x_{j*} with
// j* = argmin_a Σ_b w_b ‖x_{j_a} − x_{j_b}‖ over the top-k entries (first
// minimum in column order). The argmin is a constant of the backward pass.
type KMedoid struct {
	k  int
	st struct {
		a      *tensor.CSR
		x, out *tensor.Dense
		rowSum []float64
		arg    []int // entry position of the medoid per row (−1: empty row)
		ws     []workspace
		rowPass
	}
	fwd, bwd func(chunk, lo, hi int)
}

// Name implements Aggregator.
func (m *KMedoid) Name() string {
	if m.k == math.MaxInt32 {
		return "medoid"
	}
	return "k_medoid"
}

func (m *KMedoid) bind() {
	if m.fwd == nil {
		m.fwd, m.bwd = m.forwardRows, m.backwardRows
	}
}

// Forward implements Aggregator.
func (m *KMedoid) Forward(a *tensor.CSR, x, out *tensor.Dense) any {
	checkShapes("KMedoid", a, x, out)
	st := &m.st
	st.a, st.x, st.out = a, x, out
	st.rowSum = rowSums(a, st.rowSum)
	st.arg = grow(st.arg, a.Rows)
	chunks, _ := chunking(a.Rows, 16)
	st.ws = grow(st.ws, chunks)
	m.bind()
	st.par.run(a.Rows, 16, m.fwd)
	return st
}

func (m *KMedoid) forwardRows(chunk, lo, hi int) {
	st := &m.st
	a, x, out := st.a, st.x, st.out
	ws := &st.ws[chunk]
	for r := lo; r < hi; r++ {
		sel := selectTopK(a, r, m.k, ws.sel[:0])
		ws.sel = sel
		o := out.Row(r)
		clear(o)
		st.arg[r] = -1
		if len(sel) == 0 {
			continue
		}
		nk := len(sel)
		dist := grow(ws.c, nk*nk)
		ws.c = dist
		ws.distances(sel, a, x, dist)
		w := ws.weights(sel, a)
		// c_i = Σ_j w_j·D_ij, each summed over j in order. D is symmetric
		// bit for bit (distances), so D_ij = D_ji: the sums run along the
		// rows of D, all of them at once, the same operations per c_i as a
		// dot product with row i (no dependency chain across j per c_i).
		crit := grow(ws.crit, nk)
		ws.crit = crit
		clear(crit)
		for j, v := range w {
			wj := float64(v)
			for i, d := range dist[j*nk : (j+1)*nk] {
				crit[i] += wj * float64(d)
			}
		}
		best, bestC := 0, math.Inf(1)
		for i, c := range crit {
			if c < bestC {
				best, bestC = i, c
			}
		}
		st.arg[r] = sel[best]
		tensor.Axpy(o, x.Row(int(a.Indices[sel[best]])), float32(st.rowSum[r]))
	}
}

// Backward implements Aggregator.
func (m *KMedoid) Backward(_ any, gradOut, gradX *tensor.Dense, gradVals []float32) {
	m.bind()
	m.st.backward(m.st.a, m.st.x.Cols, gradOut, gradX, gradVals, m.bwd)
}

func (m *KMedoid) backwardRows(chunk, lo, hi int) {
	st := &m.st
	a, x := st.a, st.x
	gradOut, gradX, gradVals := st.gradOut, st.gradX, st.gradVals
	for r := lo; r < hi; r++ {
		p := st.arg[r]
		if p < 0 {
			continue
		}
		g := gradOut.Row(r)
		if gradVals != nil {
			gy := tensor.Dot(g, x.Row(int(a.Indices[p])))
			for k := a.Indptr[r]; k < a.Indptr[r+1]; k++ {
				gradVals[k] += gy
			}
		}
		if gradX != nil {
			tensor.Axpy(st.g.row(chunk, int(a.Indices[p])), g, float32(st.rowSum[r]))
		}
	}
}
