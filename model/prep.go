package model

import (
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
)

// gdcPrep is the GDC preprocessing: top-k personalised PageRank with rows
// normalised to 1 (gcn_norm follows in the layers, as in the reference).
type gdcPrep struct {
	cfg   graph.GDCConfig
	cache *graph.PrepCache
}

func newGDCPrep(o Options) gdcPrep {
	return gdcPrep{cfg: graph.GDCConfig{Alpha: o.Alpha, K: o.K, Eps: o.PPREps}, cache: o.Cache}
}

func (p gdcPrep) Apply(adj, _ *tensor.CSR) (*tensor.CSR, error) {
	if p.cache != nil {
		return p.cache.GDC(adj, p.cfg)
	}
	return graph.GDC(adj, p.cfg)
}
func (p gdcPrep) Normalize() bool { return true }

// svdPrep is SVD GCN's preprocessing: the rank-50 truncated SVD of the
// adjacency, normalised by svd_norm_adj; the layers do not normalise again.
// The model uses its low-rank form (LowRank); Apply is the dense form
// (graph.SVDGraph, n² entries) for callers that want a CSR.
type svdPrep struct {
	rank  int
	cache *graph.PrepCache // nil: none
}

func (p svdPrep) Apply(adj, _ *tensor.CSR) (*tensor.CSR, error) { return graph.SVDGraph(adj, p.rank) }
func (p svdPrep) Normalize() bool                               { return false }

// LowRank implements lowRankPrep: the same graph as Apply in low-rank form.
func (p svdPrep) LowRank(adj *tensor.CSR) (*graph.SVDNorm, error) {
	if p.cache != nil {
		return p.cache.SVDLowRank(adj, p.rank)
	}
	return graph.SVDLowRank(adj, p.rank)
}

// lowRankPrep is a preprocessing whose graph is dense and kept in low-rank
// form (Graph.SVD) instead of a CSR.
type lowRankPrep interface {
	LowRank(adj *tensor.CSR) (*graph.SVDNorm, error)
}

// jaccardPrep drops edges whose endpoints' feature patterns have Jaccard
// similarity ≤ threshold (0.01), then the layers apply gcn_norm.
type jaccardPrep struct{ threshold float64 }

func (p jaccardPrep) Apply(adj, x *tensor.CSR) (*tensor.CSR, error) {
	a, _, err := graph.JaccardFilter(adj, x, p.threshold)
	return a, err
}
func (p jaccardPrep) Normalize() bool { return true }
