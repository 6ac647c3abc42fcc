package graph

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/rgnn/rgnn/tensor"
)

// MaxSVDGraphNodes bounds n for SVDGraph, whose output is dense (n² entries).
const MaxSVDGraphNodes = 20000

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
	if rank < 1 || rank >= n {
		return nil, fmt.Errorf("svd: rank %d outside [1, n) = [1, %d)", rank, n)
	}
	if !isSymmetric(a) {
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

// blockLanczos computes the rank eigenpairs of largest magnitude of the
// symmetric sparse a: thick-restart block Lanczos with block size b. The
// basis is fully reorthogonalised (block classical Gram–Schmidt as matrix
// products: a local pass, a full pass, and a second full pass when the DGKS
// criterion asks for it), so the projected matrix H = QᵀAQ is accurate and
// repeated eigenvalues (up to multiplicity b) are found. When the basis
// reaches mMax vectors it is compressed to the keep Ritz vectors of largest
// |θ| plus the last residual block (A Y = Y Θ + Q_next S keeps the Lanczos
// relation), and the iteration continues from Q_next.
func blockLanczos(a *tensor.CSR, rank, b int) (*LowRank, error) {
	n := a.Rows
	keep, mMax := lanczosSizes(rank, b)
	if mMax+b > n {
		return denseTruncatedEig(a, rank)
	}
	rng := rand.New(rand.NewPCG(svdSeed, uint64(n)))
	// The basis vectors are the rows of q (row-major (mMax+b)×n).
	qData := make([]float64, (mMax+b)*n)
	q := mat.NewDense(mMax+b, n, qData)
	ld := mMax
	h := make([]float64, ld*ld) // upper triangle: H[i][j] = h[i*ld+j], i ≤ j

	wData := make([]float64, b*n)
	w := mat.NewDense(b, n, wData)
	wRows := make([][]float64, b)
	for l := range wRows {
		wRows[l] = wData[l*n : (l+1)*n]
	}
	for i := range wData {
		wData[i] = rng.NormFloat64()
	}
	orthonormalizeBlock(wRows, nil, 0, n, rng)
	copy(qData, wData)
	m := b // vectors in the basis; the current block is m-b..m-1
	cData := make([]float64, (mMax+b)*b)
	tmp := mat.NewDense(b, n, nil)
	yData := make([]float64, (keep+b)*n)
	for cycle := 0; cycle < svdMaxCycles; cycle++ {
		var rb []float64
		for m <= mMax {
			j0 := m - b
			spmm(a, qData[j0*n:m*n], wData, b)
			// Orthogonalise W against the basis: first locally (previous and
			// current block: the Lanczos recurrence), then against the whole
			// basis, and once more if that pass removed a large part of some
			// vector (the DGKS criterion). Each pass is C = Q Wᵀ, W −= Cᵀ Q;
			// the coefficients sum to H's column block j0..m-1 (upper part).
			project := func(lo int) {
				qm := q.Slice(lo, m, 0, n)
				c := mat.NewDense(m-lo, b, cData[:(m-lo)*b])
				c.Mul(qm, w.T())
				tmp.Mul(c.T(), qm)
				w.Sub(w, tmp)
				for s := lo; s < m; s++ {
					for l := 0; l < b; l++ {
						h[s*ld+j0+l] += cData[(s-lo)*b+l]
					}
				}
			}
			project(max(0, j0-b))
			before := make([]float64, b)
			for l := 0; l < b; l++ {
				before[l] = dot64(wRows[l], wRows[l])
			}
			project(0)
			for l := 0; l < b; l++ {
				if dot64(wRows[l], wRows[l]) < 0.5*before[l] {
					project(0)
					break
				}
			}
			rb = orthonormalizeBlock(wRows, qData, m, n, rng)
			copy(qData[m*n:(m+b)*n], wData)
			m += b
		}
		k := m - b // size of the projected problem; vectors k..m-1 are Q_next
		rz, conv := ritzPairs(h, ld, k, b, rb, rank)
		if conv {
			y := ritzRows(q, k, rz, rank, yData)
			l := &LowRank{N: n, Rank: rank, Values: make([]float64, rank), Vectors: make([]float64, n*rank)}
			for t := 0; t < rank; t++ {
				l.Values[t] = rz.vals[rz.order[t]]
				row := y[t*n : (t+1)*n]
				for i, v := range row {
					l.Vectors[i*rank+t] = v
				}
			}
			return l, nil
		}
		// Thick restart: Y = S_keepᵀ Q into the front of the basis, Q_next
		// right after it; H = diag(θ_keep), the couplings to Q_next are
		// recomputed by the next projection.
		y := ritzRows(q, k, rz, keep, yData)
		copy(qData[keep*n:(keep+b)*n], qData[k*n:(k+b)*n])
		copy(qData[:keep*n], y)
		clear(h)
		for t := 0; t < keep; t++ {
			h[t*ld+t] = rz.vals[rz.order[t]]
		}
		m = keep + b
	}
	return nil, fmt.Errorf("svd: block Lanczos did not converge for rank %d in %d restarts", rank, svdMaxCycles)
}

// lanczosSizes returns the number of Ritz vectors kept at a restart and the
// basis size that triggers a restart (measured on a cora_ml-sized random
// graph, the hard case: a crowded spectrum).
func lanczosSizes(rank, b int) (keep, mMax int) {
	keep = rank + rank/2 + b
	mMax = keep + max(3*b, (3*rank-keep+b-1)/b*b)
	return keep, mMax
}

// ritz holds the eigen-decomposition of the projected matrix.
type ritz struct {
	vals  []float64
	vecs  []float64 // k×k row-major (column t is eigenvector t)
	order []int     // eigenpair indices by |θ| descending
}

// ritzPairs diagonalises H[0:k,0:k] (given by its upper triangle) and checks
// the residuals ‖R·s_last‖ of the rank pairs of largest |θ|.
func ritzPairs(h []float64, ld, k, b int, rb []float64, rank int) (ritz, bool) {
	s := mat.NewSymDense(k, nil)
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			s.SetSym(i, j, h[i*ld+j])
		}
	}
	var es mat.EigenSym
	if !es.Factorize(s, true) {
		return ritz{}, false
	}
	vals := es.Values(nil)
	var v mat.Dense
	es.VectorsTo(&v)
	rz := ritz{vals: vals, vecs: make([]float64, k*k), order: make([]int, k)}
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			rz.vecs[i*k+j] = v.At(i, j)
		}
		rz.order[i] = i
	}
	slices.SortStableFunc(rz.order, func(x, y int) int {
		if c := cmp.Compare(math.Abs(vals[y]), math.Abs(vals[x])); c != 0 {
			return c
		}
		return cmp.Compare(vals[y], vals[x])
	})
	norm := math.Abs(vals[rz.order[0]])
	for t := 0; t < rank; t++ {
		e := rz.order[t]
		var res2 float64
		for l1 := 0; l1 < b; l1++ {
			var x float64
			for l2 := 0; l2 < b; l2++ {
				x += rb[l1*b+l2] * rz.vecs[(k-b+l2)*k+e]
			}
			res2 += x * x
		}
		if math.Sqrt(res2) > svdTol*norm {
			return rz, false
		}
	}
	return rz, true
}

// ritzRows forms the first count Ritz vectors (by |θ|) as the rows of a
// count×n matrix in dst: Y = Sᵀ Q[0:k].
func ritzRows(q *mat.Dense, k int, rz ritz, count int, dst []float64) []float64 {
	_, n := q.Dims()
	st := mat.NewDense(count, k, nil)
	for t := 0; t < count; t++ {
		e := rz.order[t]
		for s := 0; s < k; s++ {
			st.Set(t, s, rz.vecs[s*k+e])
		}
	}
	y := mat.NewDense(count, n, dst[:count*n])
	y.Mul(st, q.Slice(0, k, 0, n))
	return dst[:count*n]
}

// orthonormalizeBlock makes the vectors w orthonormal among themselves
// (modified Gram–Schmidt, twice) and returns R (b×b, row-major) with
// W_in = W_out·R. A vector that is (numerically) dependent is replaced by a
// random vector orthogonal to the first m basis vectors and to the earlier
// w's, with a zero diagonal in R (block Lanczos deflation).
func orthonormalizeBlock(w [][]float64, basis []float64, m, n int, rng *rand.Rand) []float64 {
	b := len(w)
	r := make([]float64, b*b)
	for l := 0; l < b; l++ {
		before := math.Sqrt(dot64(w[l], w[l]))
		for pass := 0; pass < 2; pass++ {
			for p := 0; p < l; p++ {
				c := dot64(w[p], w[l])
				axpy64(w[l], w[p], -c)
				r[p*b+l] += c
			}
		}
		nrm := math.Sqrt(dot64(w[l], w[l]))
		if nrm > 1e-10*before && nrm > 0 {
			r[l*b+l] = nrm
			scale64(w[l], 1/nrm)
			continue
		}
		// Deflation: a fresh random direction orthogonal to everything.
		r[l*b+l] = 0
		for try := 0; ; try++ {
			for i := range w[l] {
				w[l][i] = rng.NormFloat64()
			}
			for pass := 0; pass < 2; pass++ {
				for s := 0; s < m; s++ {
					q := basis[s*n : (s+1)*n]
					axpy64(w[l], q, -dot64(q, w[l]))
				}
				for p := 0; p < l; p++ {
					axpy64(w[l], w[p], -dot64(w[p], w[l]))
				}
			}
			if nrm := math.Sqrt(dot64(w[l], w[l])); nrm > 1e-3 || try > 10 {
				scale64(w[l], 1/nrm)
				break
			}
		}
	}
	return r
}

// spmm computes the b rows of y as A times the b rows of x (each a vector
// of length n), in float64, parallel over A's rows (deterministic).
func spmm(a *tensor.CSR, x, y []float64, b int) {
	n := a.Rows
	tensor.Parallel(n, func(lo, hi int) {
		for l := 0; l < b; l++ {
			xl, yl := x[l*n:(l+1)*n], y[l*n:(l+1)*n]
			for i := lo; i < hi; i++ {
				var s float64
				for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
					s += float64(a.Values[k]) * xl[a.Indices[k]]
				}
				yl[i] = s
			}
		}
	})
}

func dot64(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func axpy64(y, x []float64, a float64) {
	x = x[:len(y)]
	for i := range y {
		y[i] += a * x[i]
	}
}

func scale64(x []float64, a float64) {
	for i := range x {
		x[i] *= a
	}
}

// SVDGraph is the SVD GCN preprocessing of the reference (get_truncated_svd
// followed by svd_norm_adj): the rank-`rank` truncated SVD L of the
// (unweighted, self-loop-free, symmetric) adjacency a, then SVDNormAdj(L).
// The result is DENSE — all n² entries are typically nonzero (7.9M for
// cora_ml) — because the method itself produces a dense low-rank graph.
func SVDGraph(a *tensor.CSR, rank int) (*tensor.CSR, error) {
	if a != nil && a.Rows > MaxSVDGraphNodes {
		return nil, fmt.Errorf("svd graph: %d nodes exceed the limit %d (the result has n² entries)", a.Rows, MaxSVDGraphNodes)
	}
	l, err := TruncatedSVD(a, rank)
	if err != nil {
		return nil, err
	}
	return SVDNormAdj(l)
}

// SVDNormAdj is the reference's svd_norm_adj on the low-rank matrix L:
// M = L + I, r = rowsum(M)^{-1/2} with 1/√0 → 0, and D_r M D_r, returned as
// the CSR of its nonzero float32 entries (all n² in practice). Row sums are
// computed without forming L (rowsum_i = 1 + Σ_t λ_t v_t[i] Σ_j v_t[j]); a
// negative row sum, where the reference would produce NaN, is an error.
// Parallel over rows.
func SVDNormAdj(l *LowRank) (*tensor.CSR, error) {
	n, r := l.N, l.Rank
	if n > MaxSVDGraphNodes {
		return nil, fmt.Errorf("svd graph: %d nodes exceed the limit %d (the result has n² entries)", n, MaxSVDGraphNodes)
	}
	colSum := make([]float64, r)
	for i := 0; i < n; i++ {
		for t, v := range l.Vectors[i*r : (i+1)*r] {
			colSum[t] += v
		}
	}
	// W[i,t] = λ_t v_t[i], so L[i,j] = W_i · V_j.
	wv := make([]float64, n*r)
	dinv := make([]float64, n)
	for i := 0; i < n; i++ {
		sum := 1.0
		for t, v := range l.Vectors[i*r : (i+1)*r] {
			wv[i*r+t] = l.Values[t] * v
			sum += wv[i*r+t] * colSum[t]
		}
		switch {
		case sum > 0:
			dinv[i] = 1 / math.Sqrt(sum)
		case sum == 0:
			dinv[i] = 0
		default:
			return nil, fmt.Errorf("svd graph: row %d of L+I sums to %g < 0 (the reference yields NaN)", i, sum)
		}
	}
	out := &tensor.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1),
		Indices: make([]int32, n*n), Values: make([]float32, n*n)}
	zeros := make([]int, n)
	tensor.ParallelChunks(n, 8, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			wi := wv[i*r : (i+1)*r]
			vals := out.Values[i*n : (i+1)*n]
			idx := out.Indices[i*n : (i+1)*n]
			j := 0
			for ; j+4 <= n; j += 4 {
				v0 := l.Vectors[j*r : (j+1)*r]
				v1 := l.Vectors[(j+1)*r : (j+2)*r]
				v2 := l.Vectors[(j+2)*r : (j+3)*r]
				v3 := l.Vectors[(j+3)*r : (j+4)*r]
				var s0, s1, s2, s3 float64
				for t, w := range wi {
					s0 += w * v0[t]
					s1 += w * v1[t]
					s2 += w * v2[t]
					s3 += w * v3[t]
				}
				vals[j] = float32(s0 * dinv[i] * dinv[j])
				vals[j+1] = float32(s1 * dinv[i] * dinv[j+1])
				vals[j+2] = float32(s2 * dinv[i] * dinv[j+2])
				vals[j+3] = float32(s3 * dinv[i] * dinv[j+3])
			}
			for ; j < n; j++ {
				vj := l.Vectors[j*r : (j+1)*r]
				var s float64
				for t, w := range wi {
					s += w * vj[t]
				}
				vals[j] = float32(s * dinv[i] * dinv[j])
			}
			vals[i] = float32((l.At(i, i) + 1) * dinv[i] * dinv[i])
			for j := range idx {
				idx[j] = int32(j)
				if vals[j] == 0 {
					zeros[i]++
				}
			}
		}
	})
	for i := 0; i < n; i++ {
		out.Indptr[i+1] = out.Indptr[i] + n - zeros[i]
	}
	if out.Indptr[n] != n*n { // drop exact zeros, as torch's to_sparse does
		p := 0
		for k, v := range out.Values {
			if v != 0 {
				out.Values[p], out.Indices[p] = v, out.Indices[k]
				p++
			}
		}
		out.Values, out.Indices = out.Values[:p], out.Indices[:p]
	}
	return out, nil
}
