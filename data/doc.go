// Package data loads the benchmark graphs exactly as the paper's protocol
// does, and splits them like the reference.
//
// The [Registry] is the only place a dataset is named: file name, canonical
// download URL and sha256. [ResolveDir] finds the data directory (--data-dir,
// else $RGNN_DATA_DIR, else the user cache directory); [Fetch] downloads a
// missing file into a temporary file, verifies its checksum and renames it
// into place, so a failed download never leaves a partial file.
//
// [Load] reads a scipy-style .npz (both key styles, "adj_matrix.data" and the
// older "adj_data") and applies the reference standardisation: unweighted,
// symmetric, no self loops, restricted to the largest connected component
// with nodes in ascending original order. Features are kept as stored
// (cora_ml: row-normalised TF-IDF floats) in sparse form; BinaryAttr sets every
// nonzero to 1. [Split] reproduces the reference's numpy-seeded split.
package data
