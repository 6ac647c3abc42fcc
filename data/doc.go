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
// nonzero to 1. [Split] reproduces the reference's numpy-seeded split;
// [SplitFor] returns a graph's official split when it has one, else that.
//
// OGB node-property datasets (ogbn-arxiv, ogbn-products) are folders in
// OGB's layout (gzipped CSV under raw/ and split/<name>/), downloaded as
// OGB's zip and extracted when missing; OGB publishes no checksums, so the
// sha256 of the first download is recorded beside the files and their
// structure is checked against OGB's published sizes. They keep every node
// (no largest component: the official split refers to all of them), are
// made undirected without self loops or repeats, and are converted once
// into a checksummed binary cache beside the files (rgnn-cache.bin), which
// later loads read; a damaged or stale cache is rebuilt.
//
// An .npz may store a fixed split (split_train, split_valid, split_test:
// node ids of the file), which LoadFile maps onto the largest component.
// [LoadDataset] accepts a registered name or a path to an .npz in the
// cora_ml layout (e.g. a graph written by package synth).
package data
