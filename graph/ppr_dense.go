package graph

import (
	"fmt"

	"github.com/rgnn/rgnn/linalg"
	"github.com/rgnn/rgnn/tensor"
)

// ExactGDCDense is ExactGDC for a symmetric, nonnegative a that also returns
// the full diffusion S = α(I − (1−α)T)⁻¹ as a dense n×n float32 matrix
// (symmetric, row-major), as needed to differentiate GDC (adaptive attacks:
// ∂L/∂T = ((1−α)/α)·S·(∂L/∂S)·S). The top-k result is bit-identical to
// ExactGDC's (same conjugate-gradient solves). Memory is 4n² bytes; graphs
// above MaxExactPPRNodes nodes are refused, and so are non-symmetric or
// signed ones (no CG path). tol is the relative residual at which each
// source's CG stops (0: ExactGDC's 1e-12; float32 output needs ≈ 1e-7, but
// top-k choices among values tied within the solve error may then differ
// from ExactGDC's). dst, if not nil, receives S (n×n, every entry is
// overwritten) instead of a new matrix.
func ExactGDCDense(a *tensor.CSR, alpha float64, k int, tol float64, dst *tensor.Dense) (*tensor.CSR, *tensor.Dense, error) {
	if err := (GDCConfig{Alpha: alpha, K: k}).Validate(); err != nil {
		return nil, nil, err
	}
	g, err := newDiffusionGraph(a)
	if err != nil {
		return nil, nil, err
	}
	if g.n > MaxExactPPRNodes {
		return nil, nil, fmt.Errorf("gdc: dense diffusion refused for %d nodes (limit %d, 4n² bytes)", g.n, MaxExactPPRNodes)
	}
	if !g.nonneg || !linalg.IsSymmetric(a) {
		return nil, nil, fmt.Errorf("gdc: dense diffusion needs a symmetric, nonnegative adjacency")
	}
	kk := k
	if kk < 1 || kk > g.n {
		kk = g.n
	}
	res := newRowResults(g.n, kk)
	s := dst
	if s == nil {
		s = tensor.NewDense(g.n, g.n)
	} else if s.Rows != g.n || s.Cols != g.n {
		return nil, nil, fmt.Errorf("gdc: dense diffusion into %s, want %d×%d", s.Shape(), g.n, g.n)
	}
	res.dense, res.tol = s.Data, tol
	if err := g.exactRowsCG(alpha, res); err != nil {
		return nil, nil, err
	}
	return res.csr(), s, nil
}
