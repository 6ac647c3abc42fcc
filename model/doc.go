// Package model holds the graph neural network architectures and their
// registry. A model is preprocessing (what turns the raw adjacency into the
// weighted graph its layers propagate over: gcn_norm, GDC, SVD, Jaccard) plus
// layers (linear maps and an aggregation: the weighted sum of GCN or a
// robust aggregation from package aggregate).
//
// Message passing follows the reference exactly: GCN-style layers compute
// out = Ŵᵀ·(H·W) + b (PyTorch Geometric's source→target flow over the
// gcn_norm weights Ŵ, column degrees), while robust aggregations aggregate
// row-wise over Ŵ, each output scaled by Ŵ's row sum, as the reference's
// RGNNConv does (the row-wise Soft Medoid reproduces its accuracies; see
// package graph for gcn_norm).
//
// Parameter names are the reference's state-dict keys (for example
// "layers.0.gcn_0.weight", stored [in, out]), so reference weights load
// directly and our saved weights use the same layout.
package model
