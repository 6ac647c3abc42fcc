package graph

import (
	"errors"
	"fmt"
	"math"

	"github.com/rgnn/rgnn/tensor"
)

// DefaultJaccardThreshold is the reference's Jaccard GCN threshold.
const DefaultJaccardThreshold = 0.01

// JaccardFilter is the Jaccard GCN preprocessing (DeepRobust's
// drop_dissimilar_edges as the reference calls it): for every stored nonzero
// entry (u, v) with u ≤ v of adj, the Jaccard similarity of the nonzero
// patterns of feature rows u and v,
//
//	J = |nz(x_u) ∩ nz(x_v)| / (|nz(x_u)| + |nz(x_v)| − |nz(x_u) ∩ nz(x_v)|),
//
// is computed, and if J ≤ threshold both (u, v) and (v, u) are removed.
// When both rows are empty J = 0/0 = NaN and, as in the reference, the edge
// is kept. Entries with u > v whose mirror (v, u) is absent are kept
// unchanged (the reference only visits u ≤ v). Stored explicit zeros of
// features do not count as nonzeros. It returns the filtered adjacency
// (values kept) and the number of removed pairs. Parallel over rows.
func JaccardFilter(adj, features *tensor.CSR, threshold float64) (*tensor.CSR, int, error) {
	if adj == nil || features == nil {
		return nil, 0, errors.New("jaccard: nil adjacency or features")
	}
	if adj.Rows != adj.Cols {
		return nil, 0, fmt.Errorf("jaccard: adjacency is %d×%d, want square", adj.Rows, adj.Cols)
	}
	if features.Rows != adj.Rows {
		return nil, 0, fmt.Errorf("jaccard: %d feature rows for %d nodes", features.Rows, adj.Rows)
	}
	if math.IsNaN(threshold) {
		return nil, 0, errors.New("jaccard: threshold is NaN")
	}
	if err := adj.Validate(); err != nil {
		return nil, 0, fmt.Errorf("jaccard: adjacency: %w", err)
	}
	if err := features.Validate(); err != nil {
		return nil, 0, fmt.Errorf("jaccard: features: %w", err)
	}
	n := adj.Rows
	nnz := make([]int, n)
	for i := 0; i < n; i++ {
		for k := features.Indptr[i]; k < features.Indptr[i+1]; k++ {
			if features.Values[k] != 0 {
				nnz[i]++
			}
		}
	}
	drop := make([]bool, adj.Nnz())
	tensor.Parallel(n, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			for k := adj.Indptr[u]; k < adj.Indptr[u+1]; k++ {
				v := int(adj.Indices[k])
				if v < u || adj.Values[k] == 0 {
					continue
				}
				inter := intersectNonzero(features, u, v)
				union := nnz[u] + nnz[v] - inter
				if union == 0 {
					continue // 0/0 = NaN, and NaN ≤ t is false: keep
				}
				drop[k] = float64(inter)*1.0/float64(union) <= threshold
			}
		}
	})
	removed := 0
	for _, d := range drop {
		if d {
			removed++
		}
	}
	out := &tensor.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1),
		Indices: make([]int32, 0, adj.Nnz()), Values: make([]float32, 0, adj.Nnz())}
	for u := 0; u < n; u++ {
		for k := adj.Indptr[u]; k < adj.Indptr[u+1]; k++ {
			v := int(adj.Indices[k])
			if drop[k] {
				continue
			}
			if v < u {
				if p, ok := adj.Find(v, u); ok && drop[p] {
					continue
				}
			}
			out.Indices = append(out.Indices, int32(v))
			out.Values = append(out.Values, adj.Values[k])
		}
		out.Indptr[u+1] = len(out.Indices)
	}
	return out, removed, nil
}

// intersectNonzero counts the columns stored with a nonzero value in both
// rows u and v of x (merge of two sorted lists).
func intersectNonzero(x *tensor.CSR, u, v int) int {
	i, ie := x.Indptr[u], x.Indptr[u+1]
	j, je := x.Indptr[v], x.Indptr[v+1]
	count := 0
	for i < ie && j < je {
		a, b := x.Indices[i], x.Indices[j]
		switch {
		case a < b:
			i++
		case a > b:
			j++
		default:
			if x.Values[i] != 0 && x.Values[j] != 0 {
				count++
			}
			i++
			j++
		}
	}
	return count
}
