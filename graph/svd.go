package graph

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/rgnn/rgnn/linalg"
	"github.com/rgnn/rgnn/tensor"
)

// MaxSVDGraphNodes bounds n for the dense form of the SVD graph (SVDGraph,
// SVDNormAdj: n² entries). The low-rank form (SVDLowRank, which svd_gcn
// uses) is bounded by linalg.MaxSVDNodes only.
const MaxSVDGraphNodes = 20000

// SVDGraph is the SVD GCN preprocessing of the reference (get_truncated_svd
// followed by svd_norm_adj) in its DENSE form: the rank-`rank` truncated SVD
// L of the (unweighted, self-loop-free, symmetric) adjacency a, then
// SVDNormAdj(L) — all n² entries (7.9M for cora_ml), up to
// MaxSVDGraphNodes. The svd_gcn model propagates with the equal low-rank
// form of SVDLowRank instead; this one is the reference the tests compare
// it with, and the graph Figure 1 draws.
func SVDGraph(a *tensor.CSR, rank int) (*tensor.CSR, error) {
	if a != nil && a.Rows > MaxSVDGraphNodes {
		return nil, fmt.Errorf("svd graph: %d nodes exceed the dense form's limit MaxSVDGraphNodes = %d (the result has n² entries)", a.Rows, MaxSVDGraphNodes)
	}
	l, err := linalg.TruncatedSVD(a, rank)
	if err != nil {
		return nil, err
	}
	return SVDNormAdj(l)
}

// SVDNorm is SVD GCN's normalised graph Â = D_r (L + I) D_r of the
// low-rank L = V·Λ·Vᵀ, kept in low-rank form: Op is Â = U·Λ·Uᵀ + D_r² with
// U = D_r·V, whose product with an n×d matrix costs O(n·rank·d) and whose
// memory is O(n·rank) (tensor.SymLowRank.Mul). Â is symmetric, so
// Âᵀ·H (PyG's propagation) is Op·H.
type SVDNorm struct {
	// L is the truncated SVD the graph was built from.
	L *linalg.LowRank
	// Scale is D_r: r_i^{-1/2} for the row sums r of L + I (0 for r_i = 0).
	Scale []float64
	// Op is Â in low-rank form.
	Op *tensor.SymLowRank
}

// SVDLowRank is the SVD GCN preprocessing in low-rank form: the rank-`rank`
// truncated SVD of a (linalg.TruncatedSVD), then NewSVDNorm. Its limit is
// linalg.TruncatedSVD's (linalg.MaxSVDNodes), not the dense form's.
func SVDLowRank(a *tensor.CSR, rank int) (*SVDNorm, error) {
	l, err := linalg.TruncatedSVD(a, rank)
	if err != nil {
		return nil, err
	}
	return NewSVDNorm(l)
}

// NewSVDNorm is svd_norm_adj on L in low-rank form: the same row sums and
// scaling as SVDNormAdj (NaN for a negative row sum, as the reference), with
// U[i,t] = D_r[i]·V[i,t] and the diagonal D_r[i]² of D_r·I·D_r.
func NewSVDNorm(l *linalg.LowRank) (*SVDNorm, error) {
	dinv, err := svdRowScale(l)
	if err != nil {
		return nil, err
	}
	n, r := l.N, l.Rank
	op := &tensor.SymLowRank{N: n, Rank: r, U: make([]float64, n*r), Lambda: slices.Clone(l.Values), Diag: make([]float64, n)}
	for i := 0; i < n; i++ {
		di := dinv[i]
		for t, v := range l.Vectors[i*r : (i+1)*r] {
			op.U[i*r+t] = di * v
		}
		op.Diag[i] = di * di
	}
	return &SVDNorm{L: l, Scale: dinv, Op: op}, nil
}

// NegativeRows counts the rows whose row sum of L + I is negative (or
// NaN): their scale is NaN, as the reference's pow(−0.5) makes it, and so
// is every logit of a model on this graph (each row mixes every column).
func (s *SVDNorm) NegativeRows() int {
	k := 0
	for _, d := range s.Scale {
		if math.IsNaN(d) {
			k++
		}
	}
	return k
}

// Dense returns the dense form of the graph: SVDNormAdj(s.L).
func (s *SVDNorm) Dense() (*tensor.CSR, error) { return SVDNormAdj(s.L) }

// svdRowScale returns svd_norm_adj's D_r for L + I: r_i^{-1/2} for the row
// sums r_i = 1 + Σ_t λ_t v_t[i] Σ_j v_t[j] (computed without forming L),
// 1/√0 → 0, and NaN for a negative row sum, as the reference (torch's
// pow(−0.5)): the graph then has NaN in that row and column, every logit of
// the model is NaN and every node's argmax is class 0 — what the reference
// predicts, and votes, on such a (rare, randomly sampled) graph.
func svdRowScale(l *linalg.LowRank) ([]float64, error) {
	if l == nil || l.N < 1 || l.Rank < 1 || len(l.Values) != l.Rank || len(l.Vectors) != l.N*l.Rank {
		return nil, errors.New("svd graph: malformed low-rank matrix (want N, Rank ≥ 1 with Rank values and N·Rank vector entries)")
	}
	n, r := l.N, l.Rank
	colSum := make([]float64, r)
	for i := 0; i < n; i++ {
		for t, v := range l.Vectors[i*r : (i+1)*r] {
			colSum[t] += v
		}
	}
	dinv := make([]float64, n)
	for i := 0; i < n; i++ {
		sum := 1.0
		for t, v := range l.Vectors[i*r : (i+1)*r] {
			sum += l.Values[t] * v * colSum[t]
		}
		switch {
		case sum > 0:
			dinv[i] = 1 / math.Sqrt(sum)
		case sum == 0:
			dinv[i] = 0
		default: // negative (or NaN): NaN, as the reference
			dinv[i] = math.NaN()
		}
	}
	return dinv, nil
}

// SVDNormAdj is the reference's svd_norm_adj on the low-rank matrix L:
// M = L + I, r = rowsum(M)^{-1/2} with 1/√0 → 0, and D_r M D_r, returned as
// the CSR of its nonzero float32 entries (all n² in practice, so n is
// limited to MaxSVDGraphNodes). Row sums are those of svdRowScale. Parallel
// over rows. NewSVDNorm is the same graph in low-rank form.
func SVDNormAdj(l *linalg.LowRank) (*tensor.CSR, error) {
	if l == nil {
		return nil, errors.New("svd graph: nil low-rank matrix")
	}
	n, r := l.N, l.Rank
	if n > MaxSVDGraphNodes {
		return nil, fmt.Errorf("svd graph: %d nodes exceed the dense form's limit MaxSVDGraphNodes = %d (the result has n² entries)", n, MaxSVDGraphNodes)
	}
	dinv, err := svdRowScale(l)
	if err != nil {
		return nil, err
	}
	// W[i,t] = λ_t v_t[i], so L[i,j] = W_i · V_j.
	wv := make([]float64, n*r)
	for i := 0; i < n; i++ {
		for t, v := range l.Vectors[i*r : (i+1)*r] {
			wv[i*r+t] = l.Values[t] * v
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
