package model

import (
	"fmt"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
)

// PlainNorm reports whether m's preprocessing is gcn_norm of the raw
// adjacency alone (gcn, sm_gcn and the other robust GCNs without GDC), so an
// attack can rebuild it differentiably: self loops (autograd.Gather),
// autograd.GCNNormValues, then Forward with Graph.Vals set. Models with GDC,
// SVD or Jaccard preprocessing report false.
func PlainNorm(m Model) bool {
	switch v := m.(type) {
	case *GCN:
		return v.prep == nil
	case *RGNN:
		return v.prep == nil
	}
	return false
}

// GDCParams returns the GDC configuration of m's preprocessing when it is
// GDC followed by gcn_norm (gdc, sm_gdc and the other *_gdc models), so an
// attack can differentiate through the diffusion; ok is false otherwise.
func GDCParams(m Model) (cfg graph.GDCConfig, ok bool) {
	var p Preprocessor
	switch v := m.(type) {
	case *GCN:
		p = v.prep
	case *RGNN:
		p = v.prep
	}
	if g, isGDC := p.(gdcPrep); isGDC {
		return g.cfg, true
	}
	return graph.GDCConfig{}, false
}

// DiffusedGraph is the graph Preprocess returns for a model with GDC
// preprocessing (GDCParams ok) whose diffusion — the row-normalised top-k
// PPR matrix graph.GDC computes — is pi: a caller that keeps the diffusion
// itself (a server updating its rows as the graph changes) builds the
// model's graph from it without diffusing again.
func DiffusedGraph(m Model, pi *tensor.CSR) (*Graph, error) {
	if _, ok := GDCParams(m); !ok {
		return nil, fmt.Errorf("%s has no GDC preprocessing", m.Name())
	}
	return &Graph{S: autograd.NewSparse(graph.GCNNorm(pi))}, nil
}
