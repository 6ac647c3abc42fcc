// Package graph holds pure functions on sparse graphs (tensor.CSR) that run
// before message passing: the GCN normalisation, graph diffusion (personalised
// PageRank, exact and approximate), the truncated-SVD and Jaccard
// preprocessing of the defences, connected components and symmetric edge
// flips.
//
// GCN normalisation follows PyTorch Geometric's gcn_norm exactly as the
// reference uses it: self loops of weight 1 are added only to nodes that have
// none, degrees are COLUMN sums, and ŵ_rc = d_r^{-1/2} w_rc d_c^{-1/2}. Message
// passing then computes out = Ŵᵀ·H (PyG's source→target flow); for a
// symmetric graph the transpose does not matter, for GDC's asymmetric
// diffusion matrix it does.
package graph
