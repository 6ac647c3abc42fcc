package autograd

import (
	"fmt"

	"github.com/rgnn/rgnn/tensor"
)

// SymLowRank returns M·x for the constant symmetric low-rank operator M
// (tensor.SymLowRank: U·Λ·Uᵀ + diag, e.g. SVD GCN's normalised graph, for
// which Mᵀ·x — PyG's propagation — is the same product). The gradient to x
// is Mᵀ·dy = M·dy, the same kernel. Never forms the n² entries of M.
func (t *Tape) SymLowRank(m *tensor.SymLowRank, x *Var) *Var {
	if x.Value.Rows != m.N {
		panic(fmt.Sprintf("autograd.SymLowRank: %d×%d operator · %s", m.N, m.N, x.Value.Shape()))
	}
	out := t.newVar(m.N, x.Value.Cols)
	m.Mul(out.Value, x.Value, false)
	t.record(out, func() {
		if out.grad == nil || !x.needsGrad {
			return
		}
		gx, fresh := t.gradFresh(x)
		m.Mul(gx, out.grad, !fresh)
	}, x)
	return out
}
