package autograd

import "math"

// GCNNormValues returns the gcn_norm edge weights ŵ_rc = d_r^{-1/2} w_rc
// d_c^{-1/2} of a graph with structure s (self loops already present) and
// weights vals (nnz×1), where d are COLUMN sums of w (PyG). Differentiable
// with respect to vals, so attacks see through the normalisation.
func (t *Tape) GCNNormValues(s *Sparse, vals *Var) *Var {
	a := s.A
	w := vals.Value.Data
	deg := make([]float64, a.Cols)
	for k, c := range a.Indices {
		deg[c] += float64(w[k])
	}
	dinv := make([]float64, a.Cols)
	for i, d := range deg {
		if d > 0 {
			dinv[i] = 1 / math.Sqrt(d)
		}
	}
	out := t.newVar(a.Nnz(), 1)
	for r := 0; r < a.Rows; r++ {
		for k := a.Indptr[r]; k < a.Indptr[r+1]; k++ {
			out.Value.Data[k] = float32(dinv[r] * float64(w[k]) * dinv[a.Indices[k]])
		}
	}
	t.record(out, func() {
		g := out.grad
		if g == nil {
			return
		}
		gv := t.gradOf(vals).Data
		// dL/dd_m = −½ d_m^{-3/2} Σ_{k touching m} g_k w_k dinv_other.
		gd := make([]float64, a.Cols)
		for r := 0; r < a.Rows; r++ {
			for k := a.Indptr[r]; k < a.Indptr[r+1]; k++ {
				c := a.Indices[k]
				gw := float64(g.Data[k]) * float64(w[k])
				gd[r] += gw * dinv[c]
				gd[c] += gw * dinv[r]
			}
		}
		for m := range gd {
			gd[m] *= -0.5 * dinv[m] * dinv[m] * dinv[m]
		}
		for r := 0; r < a.Rows; r++ {
			for k := a.Indptr[r]; k < a.Indptr[r+1]; k++ {
				c := a.Indices[k]
				gv[k] += float32(float64(g.Data[k])*dinv[r]*dinv[c] + gd[c])
			}
		}
	}, vals)
	return out
}

// Gather returns out[k] = vals[src[k]] (or fill where src[k] < 0) as an
// len(src)×1 Var: it maps edge values onto a structure with added entries
// (e.g. self loops from graph.AddRemainingSelfLoops).
func (t *Tape) Gather(vals *Var, src []int, fill float32) *Var {
	out := t.newVar(len(src), 1)
	for k, j := range src {
		if j < 0 {
			out.Value.Data[k] = fill
		} else {
			out.Value.Data[k] = vals.Value.Data[j]
		}
	}
	t.record(out, func() {
		if out.grad == nil {
			return
		}
		gv := t.gradOf(vals).Data
		for k, j := range src {
			if j >= 0 {
				gv[j] += out.grad.Data[k]
			}
		}
	}, vals)
	return out
}
