// Package benchmark measures training time per epoch, the protocol of the
// paper's Table 1 (Geisler et al., NeurIPS 2020): for every architecture,
// with and without GDC preprocessing, the mean and median wall time of one
// full-batch training epoch (training-mode forward, loss, backward, Adam
// step — the loop of train.Fit) after warm-up epochs, the one-off
// preprocessing time, and epoch + preprocessing/200 (the paper counts the
// preprocessing once over 200 epochs).
//
// It also generates PubMedLike, a deterministic synthetic graph with
// PubMed's shape (the real PubMed features are not available to us).
package benchmark
