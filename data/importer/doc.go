// Package importer converts a user's graph into rgnn's dataset .npz (the
// layout of docs/DATA_FORMAT.md, data.FormatVersion): an edge list
// (CSV/TSV) with node features (CSV, dense .npy or scipy sparse .npz) and
// labels (CSV or .npy); a PyG-style .npz as np.savez writes it (edge_index,
// x, y, masks); or an OGB node-property folder of any name and size.
//
// Every reader checks its input as it reads it: negative or non-finite edge
// weights, NaN/Inf features, labels out of range and node ids beyond the
// node count are *InputError values naming the file, the row and the fix.
// The standardisation rgnn applies to every graph (symmetrise, drop self
// loops, merge duplicates, the largest connected component unless every
// node is kept) is counted in the Report.
package importer
