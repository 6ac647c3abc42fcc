package linalg

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/rgnn/rgnn/tensor"
)

// blockLanczos computes the rank eigenpairs of largest magnitude of the
// symmetric sparse a: thick-restart block Lanczos with block size b. The
// basis is fully reorthogonalised (block classical Gram–Schmidt as matrix
// products: a local pass, a full pass, and a second full pass when the DGKS
// criterion asks for it), so the projected matrix H = QᵀAQ is accurate and
// repeated eigenvalues (up to multiplicity b) are found. When the basis
// reaches mMax vectors it is compressed to the keep Ritz vectors of largest
// |θ| plus the last residual block (A Y = Y Θ + Q_next S keeps the Lanczos
// relation), and the iteration continues from Q_next.
//
// The basis is stored node-major: q[i*ld+s] is entry i of basis vector s
// (ld = mMax+b), the block w likewise (w[i*b+l]). Then a block of b = 4
// vectors at one node is one 4-wide register, every kernel (tensor.Gemm64, tensor.GemmT64)
// computes each output element as one chain of fused multiply-adds with the
// lanes running over the block, and a restart replaces each node's row in
// place (Y = Sᵀ·Q row by row), so no n×keep copy is needed. Reductions over
// the nodes (Qᵀ·W) sum fixed node chunks in chunk order: the result does not
// depend on GOMAXPROCS.
func blockLanczos(a *tensor.CSR, rank, b int) (*LowRank, error) {
	n := a.Rows
	keep, mMax := lanczosSizes(rank, b)
	if mMax+b > n {
		return denseTruncatedEig(a, rank)
	}
	rng := rand.New(rand.NewPCG(svdSeed, uint64(n)))
	ld := mMax + b
	q := make([]float64, n*ld)
	h := make([]float64, mMax*mMax) // upper triangle: H[i][j] = h[i*mMax+j], i ≤ j
	w := make([]float64, n*b)
	for l := 0; l < b; l++ {
		for i := 0; i < n; i++ {
			w[i*b+l] = rng.NormFloat64()
		}
	}
	red := newNodeReducer(n, ld*b)
	tmp := make([]float64, n*b)
	orthonormalizeBlock(w, b, q, ld, 0, n, rng, red, tmp)
	copyBlock(q, ld, 0, w, b, n)
	m := b // vectors in the basis; the current block is m-b..m-1
	c := make([]float64, ld*b)
	g := make([]float64, b*b)
	before := make([]float64, b)
	// project orthogonalises W against basis vectors lo..m-1: C = Qᵀ·W,
	// W −= Q·C (the products summed first, then subtracted); the
	// coefficients add to H's column block j0..m-1.
	project := func(lo, j0 int) {
		k := m - lo
		cc := c[:k*b]
		red.gemmT(cc, q[lo:], ld, k, w, b, b)
		tensor.ParallelChunks(n, lanczosChunk, func(i0, i1 int) {
			tensor.Gemm64(tmp[i0*b:i1*b], b, q[i0*ld+lo:], ld, cc, b, i1-i0, k, b)
			for e := i0 * b; e < i1*b; e++ {
				w[e] -= tmp[e]
			}
		})
		for s := lo; s < m; s++ {
			for l := 0; l < b; l++ {
				h[s*mMax+j0+l] += cc[(s-lo)*b+l]
			}
		}
	}
	for cycle := 0; cycle < svdMaxCycles; cycle++ {
		var rb []float64
		for m <= mMax {
			j0 := m - b
			spmmNodeMajor(a, q, ld, j0, w, b)
			// Orthogonalise W against the basis: first locally (previous and
			// current block: the Lanczos recurrence), then against the whole
			// basis, and once more if that pass removed a large part of some
			// vector (the DGKS criterion).
			project(max(0, j0-b), j0)
			red.gemmT(g, w, b, b, w, b, b) // WᵀW: the squared norms on its diagonal
			for l := range before {
				before[l] = g[l*b+l]
			}
			project(0, j0)
			red.gemmT(g, w, b, b, w, b, b)
			for l := 0; l < b; l++ {
				if g[l*b+l] < 0.5*before[l] {
					project(0, j0)
					break
				}
			}
			rb = orthonormalizeBlock(w, b, q, ld, m, n, rng, red, tmp)
			copyBlock(q, ld, m, w, b, n)
			m += b
		}
		k := m - b // size of the projected problem; vectors k..m-1 are Q_next
		rz, conv, ok := ritzPairs(h, mMax, k, b, rb, rank)
		if !ok {
			return nil, fmt.Errorf("svd: the eigendecomposition of the %d×%d projected matrix did not converge (non-finite values?)", k, k)
		}
		if conv {
			l := &LowRank{N: n, Rank: rank, Values: make([]float64, rank), Vectors: make([]float64, n*rank)}
			for t := 0; t < rank; t++ {
				l.Values[t] = rz.vals[rz.order[t]]
			}
			ritzRows(q, ld, k, rz, rank, n, func(i int, y []float64) { copy(l.Vectors[i*rank:(i+1)*rank], y) })
			return l, nil
		}
		// Thick restart: Y = Sᵀ Q into the front of the basis, Q_next
		// right after it (row by row: each node's row is read before it is
		// overwritten); H = diag(θ_keep), the couplings to Q_next are
		// recomputed by the next projection.
		ritzRows(q, ld, k, rz, keep, n, func(i int, y []float64) {
			row := q[i*ld : (i+1)*ld]
			copy(row[keep:keep+b], row[k:k+b])
			copy(row[:keep], y)
		})
		clear(h)
		for t := 0; t < keep; t++ {
			h[t*mMax+t] = rz.vals[rz.order[t]]
		}
		m = keep + b
	}
	return nil, fmt.Errorf("svd: block Lanczos did not converge for rank %d in %d restarts", rank, svdMaxCycles)
}

// lanczosChunk is the smallest node chunk of the Lanczos kernels' parallel
// loops and of the reductions over nodes, lanczosMaxChunks the most chunks
// of a reduction: a cora_ml-sized graph runs in one chunk (certification
// already runs one graph per core), large graphs in parallel. The chunking
// depends on n only.
const (
	lanczosChunk     = 4096
	lanczosMaxChunks = 64
)

func lanczosChunks(n int) (size, count int) {
	size = max(lanczosChunk, (n+lanczosMaxChunks-1)/lanczosMaxChunks)
	return size, (n + size - 1) / size
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
	vecs  []float64 // k×k row-major: row t is eigenvector t
	order []int     // eigenpair indices by |θ| descending
}

// ritzPairs diagonalises H[0:k,0:k] (given by its upper triangle, symEig)
// and checks the residuals ‖R·s_last‖ of the rank pairs of largest |θ|
// (conv); ok is false if the eigensolver failed.
func ritzPairs(h []float64, ld, k, b int, rb []float64, rank int) (rz ritz, conv, ok bool) {
	vals, vecs, ok := symEig(h, ld, k)
	if !ok {
		return ritz{}, false, false
	}
	rz = ritz{vals: vals, vecs: vecs, order: make([]int, k)}
	for i := range rz.order {
		rz.order[i] = i
	}
	slices.SortStableFunc(rz.order, func(x, y int) int {
		if c := cmp.Compare(math.Abs(vals[y]), math.Abs(vals[x])); c != 0 {
			return c
		}
		if c := cmp.Compare(vals[y], vals[x]); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	norm := math.Abs(vals[rz.order[0]])
	for t := 0; t < rank; t++ {
		st := rz.vecs[rz.order[t]*k:]
		var res2 float64
		for l1 := 0; l1 < b; l1++ {
			var x float64
			for l2 := 0; l2 < b; l2++ {
				x += rb[l1*b+l2] * st[k-b+l2]
			}
			res2 += x * x
		}
		if !(math.Sqrt(res2) <= svdTol*norm) {
			return rz, false, true
		}
	}
	return rz, true, true
}

// ritzRows forms the first count Ritz vectors (by |θ|) node by node: row i
// of Y = Q[:, 0:k]·S (y_t[i] = Σ_s q_s[i]·S[s][t], one fused chain over s
// per element) is passed to put(i, y) — in parallel over node chunks, each
// row after it has been read, so put may overwrite row i of q.
func ritzRows(q []float64, ld, k int, rz ritz, count, n int, put func(i int, y []float64)) {
	w := (count + 3) &^ 3 // S padded with zero columns to a multiple of 4
	st := make([]float64, k*w)
	for s := 0; s < k; s++ {
		for t := 0; t < count; t++ {
			st[s*w+t] = rz.vecs[rz.order[t]*k+s]
		}
	}
	const rows = 64
	tensor.ParallelChunks(n, lanczosChunk, func(lo, hi int) {
		y := make([]float64, rows*w)
		for i0 := lo; i0 < hi; i0 += rows {
			r := min(rows, hi-i0)
			tensor.Gemm64(y, w, q[i0*ld:], ld, st, w, r, k, w)
			for i := 0; i < r; i++ {
				put(i0+i, y[i*w:i*w+count])
			}
		}
	})
}

// copyBlock writes the b columns of the node-major w into columns m..m+b-1
// of q.
func copyBlock(q []float64, ld, m int, w []float64, b, n int) {
	for i := 0; i < n; i++ {
		copy(q[i*ld+m:i*ld+m+b], w[i*b:(i+1)*b])
	}
}

// colDot returns Σ_i x[i*sx+cx]·y[i*sy+cy] (columns of node-major blocks),
// in node order with four partial sums.
func colDot(x []float64, sx, cx int, y []float64, sy, cy, n int) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= n; i += 4 {
		s0 = math.FMA(x[i*sx+cx], y[i*sy+cy], s0)
		s1 = math.FMA(x[(i+1)*sx+cx], y[(i+1)*sy+cy], s1)
		s2 = math.FMA(x[(i+2)*sx+cx], y[(i+2)*sy+cy], s2)
		s3 = math.FMA(x[(i+3)*sx+cx], y[(i+3)*sy+cy], s3)
	}
	for ; i < n; i++ {
		s0 = math.FMA(x[i*sx+cx], y[i*sy+cy], s0)
	}
	return (s0 + s1) + (s2 + s3)
}

// colAxpy adds a·(column cx of x) to column cy of y.
func colAxpy(y []float64, sy, cy int, x []float64, sx, cx, n int, a float64) {
	for i := 0; i < n; i++ {
		y[i*sy+cy] = math.FMA(a, x[i*sx+cx], y[i*sy+cy])
	}
}

// nodeReducer computes products Aᵀ·X that sum over the nodes (node-major
// A and X): each fixed node chunk (lanczosChunks, a function of n only)
// into its own partial, the partials added in chunk order, so the bits do
// not depend on GOMAXPROCS.
type nodeReducer struct {
	n, chunk, chunks int
	parts            []float64
}

func newNodeReducer(n, maxOut int) *nodeReducer {
	chunk, chunks := lanczosChunks(n)
	r := &nodeReducer{n: n, chunk: chunk, chunks: chunks}
	if chunks > 1 {
		r.parts = make([]float64, chunks*maxOut)
	}
	return r
}

// gemmT writes dst (k×w) = A[:, 0:k]ᵀ·X[:, 0:w] for the node-major a (row
// stride lda) and x (row stride ldx).
func (r *nodeReducer) gemmT(dst, a []float64, lda, k int, x []float64, ldx, w int) {
	if r.chunks == 1 {
		tensor.GemmT64(dst, w, a, lda, x, ldx, r.n, k, w)
		return
	}
	kw := k * w
	tensor.ParallelChunks(r.chunks, 1, func(c0, c1 int) {
		for ch := c0; ch < c1; ch++ {
			i0, i1 := ch*r.chunk, min((ch+1)*r.chunk, r.n)
			tensor.GemmT64(r.parts[ch*kw:(ch+1)*kw], w, a[i0*lda:], lda, x[i0*ldx:], ldx, i1-i0, k, w)
		}
	})
	copy(dst[:kw], r.parts[:kw])
	for ch := 1; ch < r.chunks; ch++ {
		for e, v := range r.parts[ch*kw : (ch+1)*kw] {
			dst[e] += v
		}
	}
}

// orthonormalizeBlock makes the b columns of the node-major w orthonormal
// among themselves and returns R (b×b upper triangular, row-major) with
// W_in = W_out·R: CholeskyQR2 (cholQR2) when W is well conditioned, else
// modified Gram–Schmidt twice (mgsBlock, which handles deflation).
func orthonormalizeBlock(w []float64, b int, q []float64, ld, m, n int, rng *rand.Rand, red *nodeReducer, tmp []float64) []float64 {
	if r, ok := cholQR2(w, b, n, red, tmp); ok {
		return r
	}
	return mgsBlock(w, b, q, ld, m, n, rng)
}

// cholQR2 is CholeskyQR twice: R₁ = chol(WᵀW), W₁ = W·R₁⁻¹, R₂ =
// chol(W₁ᵀW₁), W = W₁·R₂⁻¹, R = R₂·R₁ — four passes over W with the 4-wide
// kernels instead of 2·b² column passes. It declines (false, w unchanged)
// when a pivot of the first factorisation is below 1e-5 of its column's
// norm (W nearly rank-deficient: the squared condition number of the Gram
// matrix would cost accuracy, and a dependent column needs MGS's
// deflation), or when the second Gram matrix is not close to I.
func cholQR2(w []float64, b, n int, red *nodeReducer, tmp []float64) ([]float64, bool) {
	g := make([]float64, b*b)
	r1, r2 := make([]float64, b*b), make([]float64, b*b)
	red.gemmT(g, w, b, b, w, b, b)
	if !cholUpper(g, r1, b, 1e-5) {
		return nil, false
	}
	w1 := tmp[:n*b]
	mulInvUpper(w1, w, r1, b, n)
	red.gemmT(g, w1, b, b, w1, b, b)
	if !cholUpper(g, r2, b, 0.5) {
		return nil, false
	}
	mulInvUpper(w, w1, r2, b, n)
	r := make([]float64, b*b)
	for i := 0; i < b; i++ {
		for j := i; j < b; j++ {
			var s float64
			for p := i; p <= j; p++ {
				s += r2[i*b+p] * r1[p*b+j]
			}
			r[i*b+j] = s
		}
	}
	return r, true
}

// cholUpper writes the upper Cholesky factor R of the b×b Gram matrix g
// (RᵀR = g) and reports whether every pivot r_jj exceeds tol·√g_jj.
func cholUpper(g, r []float64, b int, tol float64) bool {
	clear(r)
	for j := 0; j < b; j++ {
		for i := 0; i < j; i++ {
			s := g[i*b+j]
			for p := 0; p < i; p++ {
				s -= r[p*b+i] * r[p*b+j]
			}
			r[i*b+j] = s / r[i*b+i]
		}
		d := g[j*b+j]
		for p := 0; p < j; p++ {
			d -= r[p*b+j] * r[p*b+j]
		}
		if !(g[j*b+j] > 0) || !(d > tol*tol*g[j*b+j]) || math.IsInf(d, 0) {
			return false
		}
		r[j*b+j] = math.Sqrt(d)
	}
	return true
}

// mulInvUpper writes dst = src·R⁻¹ (node-major n×b blocks) for the upper
// triangular R, parallel over node chunks.
func mulInvUpper(dst, src, r []float64, b, n int) {
	inv := make([]float64, b*b) // R⁻¹, upper triangular
	for j := b - 1; j >= 0; j-- {
		inv[j*b+j] = 1 / r[j*b+j]
		for i := j - 1; i >= 0; i-- {
			var s float64
			for p := i + 1; p <= j; p++ {
				s += r[i*b+p] * inv[p*b+j]
			}
			inv[i*b+j] = -s / r[i*b+i]
		}
	}
	tensor.ParallelChunks(n, lanczosChunk, func(i0, i1 int) {
		tensor.Gemm64(dst[i0*b:i1*b], b, src[i0*b:i1*b], b, inv, b, i1-i0, b, b)
	})
}

// mgsBlock makes the b columns of the node-major w orthonormal among
// themselves (modified Gram–Schmidt, twice) and returns R (b×b, row-major)
// with W_in = W_out·R. A vector that is (numerically) dependent is replaced
// by a random vector orthogonal to the first m basis vectors (columns of q)
// and to the earlier w's, with a zero diagonal in R (block Lanczos
// deflation).
func mgsBlock(w []float64, b int, q []float64, ld, m, n int, rng *rand.Rand) []float64 {
	r := make([]float64, b*b)
	for l := 0; l < b; l++ {
		before := math.Sqrt(colDot(w, b, l, w, b, l, n))
		for pass := 0; pass < 2; pass++ {
			for p := 0; p < l; p++ {
				c := colDot(w, b, p, w, b, l, n)
				colAxpy(w, b, l, w, b, p, n, -c)
				r[p*b+l] += c
			}
		}
		nrm := math.Sqrt(colDot(w, b, l, w, b, l, n))
		if nrm > 1e-10*before && nrm > 0 {
			r[l*b+l] = nrm
			colScale(w, b, l, n, 1/nrm)
			continue
		}
		// Deflation: a fresh random direction orthogonal to everything.
		r[l*b+l] = 0
		for try := 0; ; try++ {
			for i := 0; i < n; i++ {
				w[i*b+l] = rng.NormFloat64()
			}
			for pass := 0; pass < 2; pass++ {
				for s := 0; s < m; s++ {
					colAxpy(w, b, l, q, ld, s, n, -colDot(q, ld, s, w, b, l, n))
				}
				for p := 0; p < l; p++ {
					colAxpy(w, b, l, w, b, p, n, -colDot(w, b, p, w, b, l, n))
				}
			}
			if nrm := math.Sqrt(colDot(w, b, l, w, b, l, n)); nrm > 1e-3 || try > 10 {
				colScale(w, b, l, n, 1/nrm)
				break
			}
		}
	}
	return r
}

// colScale multiplies column c of the node-major w by a.
func colScale(w []float64, b, c, n int, a float64) {
	for i := 0; i < n; i++ {
		w[i*b+c] *= a
	}
}

// spmmNodeMajor computes the node-major block y (n×b) = A times columns
// j0..j0+b-1 of the node-major basis q, in float64, parallel over A's rows
// (each element one sum over the row's entries in order: deterministic).
func spmmNodeMajor(a *tensor.CSR, q []float64, ld, j0 int, y []float64, b int) {
	tensor.ParallelChunks(a.Rows, lanczosChunk, func(lo, hi int) {
		if b == 4 {
			for i := lo; i < hi; i++ {
				var s0, s1, s2, s3 float64
				for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
					v := float64(a.Values[k])
					x := q[int(a.Indices[k])*ld+j0:]
					x = x[:4]
					s0 += v * x[0]
					s1 += v * x[1]
					s2 += v * x[2]
					s3 += v * x[3]
				}
				y[i*4], y[i*4+1], y[i*4+2], y[i*4+3] = s0, s1, s2, s3
			}
			return
		}
		for i := lo; i < hi; i++ {
			yi := y[i*b : (i+1)*b]
			clear(yi)
			for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
				v := float64(a.Values[k])
				x := q[int(a.Indices[k])*ld+j0:]
				for l := range yi {
					yi[l] += v * x[l]
				}
			}
		}
	})
}
