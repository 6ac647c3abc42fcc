package model

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
