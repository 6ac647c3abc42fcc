package aggregate

import "github.com/rgnn/rgnn/tensor"

// Sum is the weighted sum out_v = Σ_j A_vj x_j (the GCN aggregation, which
// equals the row sum times the weighted mean).
type Sum struct {
	st struct {
		a *tensor.CSR
		x *tensor.Dense
		g edgeGrads
	}
}

// Name implements Aggregator.
func (m *Sum) Name() string { return "sum" }

// Forward implements Aggregator.
func (m *Sum) Forward(a *tensor.CSR, x, out *tensor.Dense) any {
	checkShapes("Sum", a, x, out)
	tensor.SpMM(out, a, x, false)
	m.st.a, m.st.x = a, x
	return m
}

// Backward implements Aggregator.
func (m *Sum) Backward(_ any, gradOut, gradX *tensor.Dense, gradVals []float32) {
	a, x := m.st.a, m.st.x
	if gradVals != nil {
		tensor.SpMMValuesGrad(gradVals, a, x, gradOut)
	}
	if gradX != nil {
		d := x.Cols
		m.st.g.reset(a, d)
		tensor.Parallel(a.Rows, func(lo, hi int) {
			for r := lo; r < hi; r++ {
				if gradX != nil {
					m.st.g.clearRow(a, r, d)
				}
				for k := a.Indptr[r]; k < a.Indptr[r+1]; k++ {
					tensor.Axpy(m.st.g.row(k, d), gradOut.Row(r), a.Values[k])
				}
			}
		})
		m.st.g.reduce(gradX)
	}
}
