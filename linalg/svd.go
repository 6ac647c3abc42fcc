package linalg

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/rgnn/rgnn/tensor"
)

// MaxSVDNodes bounds n for TruncatedSVD's block Lanczos: its full
// reorthogonalisation keeps the whole basis (about 3·rank + 2·block vectors
// of length n) plus the 1.5·rank Ritz vectors of a restart in float64 —
// ~2 KB per node at rank 50, 2 GB at this limit — and every step projects
// against all of it.
const MaxSVDNodes = 1_000_000

const (
	// svdTol is the Ritz residual ‖A v − θ v‖ (relative to |θ_1| = ‖A‖₂)
	// at which the kept eigenpairs count as converged. Eigenvalues are then
	// exact to ~svdTol²·‖A‖/gap, far below the requested 1e-6.
	svdTol = 1e-10
	// svdSeed fixes the Lanczos start block, so the result is reproducible.
	svdSeed = 0x5eed5bd
	// svdMaxCycles bounds the thick restarts of block Lanczos.
	svdMaxCycles = 500
)

// LowRank is a symmetric rank-r matrix Σ_t λ_t v_t v_tᵀ — for a symmetric A
// its truncated SVD U·diag(σ)·Vᵀ with σ_t = |λ_t|, u_t = v_t and the sign of
// λ_t moved into the right singular vector.
type LowRank struct {
	N, Rank int
	// Values are the eigenvalues λ_t, ordered by |λ| descending (ties: the
	// larger λ first).
	Values []float64
	// Vectors is N×Rank row-major: Vectors[i*Rank+t] = v_t[i]; the v_t are
	// orthonormal.
	Vectors []float64
}

// SingularValues returns σ_t = |λ_t| (descending).
func (l *LowRank) SingularValues() []float64 {
	s := make([]float64, len(l.Values))
	for i, v := range l.Values {
		s[i] = math.Abs(v)
	}
	return s
}

// At returns entry (i, j) of the low-rank matrix.
func (l *LowRank) At(i, j int) float64 {
	vi, vj := l.Vectors[i*l.Rank:(i+1)*l.Rank], l.Vectors[j*l.Rank:(j+1)*l.Rank]
	var s float64
	for t, lam := range l.Values {
		s += lam * vi[t] * vj[t]
	}
	return s
}

// TruncatedSVD returns the rank-`rank` truncated SVD of the symmetric matrix
// a (scipy's svds(A, k=rank): the rank largest singular values), as the
// eigenpairs of largest magnitude. 1 ≤ rank < n. Small matrices use gonum's
// dense EigenSym; larger ones block Lanczos with full reorthogonalisation on
// the sparse matrix, run until every kept Ritz pair has residual ≤ 1e-10·‖A‖.
// The result is deterministic (fixed start block, order-fixed reductions).
// If |λ| is tied across the cut (e.g. λ and −λ) the choice is arbitrary but
// fixed, as it is in scipy.
func TruncatedSVD(a *tensor.CSR, rank int) (*LowRank, error) {
	if a == nil {
		return nil, errors.New("svd: nil matrix")
	}
	if a.Rows != a.Cols {
		return nil, fmt.Errorf("svd: matrix is %d×%d, want square (symmetric)", a.Rows, a.Cols)
	}
	if err := a.Validate(); err != nil {
		return nil, fmt.Errorf("svd: %w", err)
	}
	n := a.Rows
	if n > MaxSVDNodes {
		keep, mMax := lanczosSizes(rank, lanczosBlock(rank))
		return nil, fmt.Errorf("svd: %d nodes exceed the limit MaxSVDNodes = %d (block Lanczos with full reorthogonalisation keeps %d float64 vectors of length n: %.1f GB)",
			n, MaxSVDNodes, mMax+keep+4*lanczosBlock(rank), float64(mMax+keep+4*lanczosBlock(rank))*8*float64(n)/1e9)
	}
	if rank < 1 || rank >= n {
		return nil, fmt.Errorf("svd: rank %d outside [1, n) = [1, %d)", rank, n)
	}
	if !IsSymmetric(a) {
		return nil, errors.New("svd: matrix is not symmetric (the truncated SVD is computed as an eigendecomposition)")
	}
	b := lanczosBlock(rank)
	if n <= 4*(rank+b) || n <= 256 {
		return denseTruncatedEig(a, rank)
	}
	return blockLanczos(a, rank, b)
}

// lanczosBlock is the block size: it bounds the eigenvalue multiplicity
// block Lanczos resolves. 4 was fastest among 2–16 on a cora_ml-sized graph.
func lanczosBlock(rank int) int { return min(4, rank) }

// denseTruncatedEig is the exact path for small n: gonum's EigenSym.
func denseTruncatedEig(a *tensor.CSR, rank int) (*LowRank, error) {
	n := a.Rows
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
			if j := int(a.Indices[k]); j >= i {
				s.SetSym(i, j, float64(a.Values[k]))
			}
		}
	}
	var es mat.EigenSym
	if !es.Factorize(s, true) {
		return nil, errors.New("svd: dense eigendecomposition did not converge")
	}
	vals := es.Values(nil)
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	return pickTop(vals, rank, n, func(i, t int) float64 { return vecs.At(i, t) }), nil
}

// pickTop orders eigenpairs by |λ| descending (ties: λ descending, then
// index) and copies the first rank of them into a LowRank.
func pickTop(vals []float64, rank, n int, vec func(i, t int) float64) *LowRank {
	order := make([]int, len(vals))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		if c := cmp.Compare(math.Abs(vals[y]), math.Abs(vals[x])); c != 0 {
			return c
		}
		return cmp.Compare(vals[y], vals[x])
	})
	l := &LowRank{N: n, Rank: rank, Values: make([]float64, rank), Vectors: make([]float64, n*rank)}
	for t := 0; t < rank; t++ {
		l.Values[t] = vals[order[t]]
		for i := 0; i < n; i++ {
			l.Vectors[i*rank+t] = vec(i, order[t])
		}
	}
	return l
}

// IsSymmetric reports whether a equals its transpose exactly (structure
// and values).
func IsSymmetric(a *tensor.CSR) bool {
	if a.Rows != a.Cols {
		return false
	}
	for i := 0; i < a.Rows; i++ {
		for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
			j := int(a.Indices[k])
			p, ok := a.Find(j, i)
			if !ok || a.Values[p] != a.Values[k] {
				return false
			}
		}
	}
	return true
}
