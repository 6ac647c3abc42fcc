package aggregate

import (
	"math"

	"github.com/rgnn/rgnn/tensor"
)

// SoftMedian is the Soft Median of Geisler et al. (NeurIPS 2021; the
// at-scale reference's rgnn_at_scale/aggregation.py:soft_median): with x̄_v
// the weighted dimension-wise median of the neighbours (its indices are
// constants of the backward pass; its values are gathered from x, so
// gradients flow through them),
//
//	dist_vj = ‖x̄_v − x_j‖ / √d,   s = softmax_j(−dist / T) over row v,
//	out_v   = (Σ_j A_vj) · Σ_j [s_j A_vj / Σ_j' s_j' A_vj'] x_j.
type SoftMedian struct {
	t        float64
	maxState int64 // Options.MaxStateBytes
	st       struct {
		a      *tensor.CSR
		x, out *tensor.Dense
		rowSum []float64
		// level is what the forward pass kept (state.go): med, pick, soft
		// and dist at keepEntries; at keepRows Backward recomputes them.
		level keepLevel
		med   []float32 // x̄ per row (n × d)
		soft  []float64 // s per entry
		dist  []float64 // dist per entry (unscaled by √d)
		norm  []float64 // Σ s A per row
		pick  []int32
		ws    []workspace
		rowPass
	}
	fwd, bwd func(chunk, lo, hi int) // bound once: method values allocate
}

// Name implements Aggregator.
func (m *SoftMedian) Name() string { return "soft_median" }

// Forward implements Aggregator. It keeps nothing but O(rows) scalars:
// Backward after it recomputes every row (the same bits).
func (m *SoftMedian) Forward(a *tensor.CSR, x, out *tensor.Dense) any {
	return m.forward(a, x, out, false)
}

// ForwardForBackward is Forward for a call whose Backward can follow
// (autograd.Tape.Aggregate calls it when it records the op): it keeps the
// medians and softmax weights (8 bytes per row and dimension plus 16 per
// entry) for Backward as far as they fit Options.MaxStateBytes; Backward
// recomputes what was not kept, the same bits.
func (m *SoftMedian) ForwardForBackward(a *tensor.CSR, x, out *tensor.Dense) any {
	return m.forward(a, x, out, true)
}

func (m *SoftMedian) forward(a *tensor.CSR, x, out *tensor.Dense, keep bool) any {
	checkShapes("SoftMedian", a, x, out)
	st := &m.st
	st.a, st.x, st.out = a, x, out
	st.rowSum = rowSums(a, st.rowSum)
	d := x.Cols
	st.level = keepRows
	if keep {
		bytes := 8*int64(a.Rows)*int64(d) + 16*int64(a.Nnz())
		st.level = chooseKeep(keepEntries, m.maxState, [...]int64{0, bytes, bytes})
	}
	if st.level >= keepEntries {
		st.med = grow(st.med, a.Rows*d)
		st.pick = grow(st.pick, a.Rows*d)
		st.soft = grow(st.soft, a.Nnz())
		st.dist = grow(st.dist, a.Nnz())
	}
	st.norm = grow(st.norm, a.Rows)
	chunks, _ := chunking(a.Rows, 16)
	st.ws = grow(st.ws, chunks)
	m.bind()
	st.par.run(a.Rows, 16, m.fwd)
	return st
}

func (m *SoftMedian) bind() {
	if m.fwd == nil {
		m.fwd, m.bwd = m.forwardRows, m.backwardRows
	}
}

// rowBufs returns the buffers of row r's median picks and values (d each)
// and its entries' distances and softmax weights: the kept ones, or
// (keepRows) the chunk's scratch.
func (m *SoftMedian) rowBufs(ws *workspace, r int) (pick []int32, med []float32, dist, s []float64) {
	st := &m.st
	d := st.x.Cols
	k0, k1 := st.a.Indptr[r], st.a.Indptr[r+1]
	if st.level >= keepEntries {
		return st.pick[r*d : (r+1)*d], st.med[r*d : (r+1)*d], st.dist[k0:k1], st.soft[k0:k1]
	}
	ws.pick, ws.med = grow(ws.pick, d), grow(ws.med, d)
	ws.dist64, ws.soft = grow(ws.dist64, k1-k0), grow(ws.soft, k1-k0)
	return ws.pick, ws.med, ws.dist64, ws.soft
}

// rowState computes row r's median picks and values, the distances of its
// entries to the median and their softmax weights into the given buffers,
// and returns Σ s A (0 for an empty row). It uses ws.crit, ws.xt and
// ws.keys.
func (m *SoftMedian) rowState(ws *workspace, r int, pick []int32, med []float32, dist, s []float64) float64 {
	st := &m.st
	a, x := st.a, st.x
	sqrtD := math.Sqrt(float64(x.Cols))
	medianPicks(a, x, r, st.rowSum[r], pick, ws)
	k0, k1 := a.Indptr[r], a.Indptr[r+1]
	if k0 == k1 {
		return 0
	}
	for c, p := range pick {
		med[c] = x.At(int(a.Indices[p]), c)
	}
	z := grow(ws.crit, k1-k0)
	ws.crit = z
	for k := k0; k < k1; k++ {
		dd := math.Sqrt(float64(tensor.SqDist(med, x.Row(int(a.Indices[k])))))
		dist[k-k0] = dd
		z[k-k0] = -dd / sqrtD / m.t
	}
	softmax64(s, z)
	var norm float64
	for k := k0; k < k1; k++ {
		norm += s[k-k0] * float64(a.Values[k])
	}
	return norm
}

func (m *SoftMedian) forwardRows(chunk, lo, hi int) {
	st := &m.st
	a, x, out := st.a, st.x, st.out
	ws := &st.ws[chunk]
	for r := lo; r < hi; r++ {
		if r+1 < hi {
			prefetchRow(a, r+1, x, nil, chunk)
		}
		o := out.Row(r)
		clear(o)
		pick, med, dist, s := m.rowBufs(ws, r)
		norm := m.rowState(ws, r, pick, med, dist, s)
		st.norm[r] = norm
		k0, k1 := a.Indptr[r], a.Indptr[r+1]
		if norm == 0 {
			continue
		}
		for k := k0; k < k1; k++ {
			wt := s[k-k0] * float64(a.Values[k]) / norm * st.rowSum[r]
			tensor.Axpy(o, x.Row(int(a.Indices[k])), float32(wt))
		}
	}
}

// Backward implements Aggregator.
func (m *SoftMedian) Backward(_ any, gradOut, gradX *tensor.Dense, gradVals []float32) {
	st := &m.st
	chunks, _ := fixedChunks(st.a.Rows)
	st.ws = grow(st.ws, chunks)
	m.bind()
	st.backward(st.a, st.x.Cols, gradOut, gradX, gradVals, m.bwd)
}

func (m *SoftMedian) backwardRows(chunk, lo, hi int) {
	st := &m.st
	a, x := st.a, st.x
	gradOut, gradX, gradVals := st.gradOut, st.gradX, st.gradVals
	d := x.Cols
	sqrtD := math.Sqrt(float64(d))
	ws := &st.ws[chunk]
	gy, gmed := grow(ws.gy, d), grow(ws.w, d)
	ws.gy, ws.w = gy, gmed
	var pg *scatterGrads // the gradient rows to prefetch (none without ∂x)
	if gradX != nil {
		pg = &st.g
	}
	// The x and gradient rows of the entry prefetchAhead entries on are
	// requested while this one is computed (rows of the next row included).
	end := a.Indptr[hi]
	for k := a.Indptr[lo]; k < min(a.Indptr[lo]+prefetchAhead, end); k++ {
		prefetchEntry(a, k, x, pg, chunk)
	}
	for r := lo; r < hi; r++ {
		k0, k1 := a.Indptr[r], a.Indptr[r+1]
		scale, norm := st.rowSum[r], st.norm[r]
		if k0 == k1 || norm == 0 {
			continue
		}
		g := gradOut.Row(r)
		addRowScaleGrad(gradVals, a, r, g, st.out.Row(r), scale)
		for i := range gy {
			gy[i] = float32(float64(g[i]) * scale)
		}
		pick, med, dist, s := m.rowBufs(ws, r)
		if st.level == keepRows {
			m.rowState(ws, r, pick, med, dist, s) // what Forward computed
		}
		e := grow(ws.e, k1-k0)
		ws.e = e
		var ebar float64 // Σ ŝ e with ŝ = s A / norm
		for k := k0; k < k1; k++ {
			if k+prefetchAhead < end {
				prefetchEntry(a, k+prefetchAhead, x, pg, chunk)
			}
			e[k-k0] = float64(tensor.Dot(gy, x.Row(int(a.Indices[k]))))
			ebar += s[k-k0] * float64(a.Values[k]) / norm * e[k-k0]
		}
		// ∂L/∂s_j = A_j/norm (e_j − ē); ∂L/∂A_j (direct) = s_j/norm (e_j − ē).
		var sg float64
		gs := grow(ws.gs, k1-k0)
		ws.gs = gs
		for k := k0; k < k1; k++ {
			i := k - k0
			gs[i] = float64(a.Values[k]) / norm * (e[i] - ebar)
			sg += s[i] * gs[i]
			if gradVals != nil {
				gradVals[k] += float32(s[i] / norm * (e[i] - ebar))
			}
		}
		if gradX == nil {
			continue
		}
		clear(gmed)
		for k := k0; k < k1; k++ {
			i := k - k0
			xr := x.Row(int(a.Indices[k]))
			gk := st.g.row(chunk, int(a.Indices[k]))
			// Direct term of the weighted mean.
			tensor.Axpy(gk, gy, float32(s[i]*float64(a.Values[k])/norm))
			// Through the softmax: z = −dist/(√d T), ∂dist/∂x_j = (x_j − x̄)/dist.
			gz := s[i] * (gs[i] - sg)
			if dist[i] == 0 || gz == 0 {
				continue
			}
			coef := float32(-gz / (sqrtD * m.t) / dist[i])
			tensor.AxpyDiff(gk, gmed, xr, med, coef) // gk += coef·(xr − med); gmed −= the same
		}
		// x̄ is gathered from x (the median index is constant), so its
		// gradient flows to the picked entries.
		for c, p := range pick {
			if p >= 0 {
				st.g.row(chunk, int(a.Indices[p]))[c] += gmed[c]
			}
		}
	}
}
