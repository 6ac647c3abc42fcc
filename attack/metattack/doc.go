// Package metattack implements Metattack (Zügner and Günnemann, ICLR 2019)
// as in DeepRobust's Metattack/MetaApprox: global poisoning of the graph
// structure by meta-gradients through the training of a linear two-layer
// GCN surrogate Z = Â·Â·X·W1·W2 (hidden 16, no bias, no nonlinearity).
//
// Meta-Self (Variant Self, λ = 0): for every flip the surrogate is
// re-initialised and trained for 100 steps of SGD with momentum 0.9 and
// lr 0.1 on the labelled nodes; the attack loss is the cross-entropy of
// the trained surrogate on the unlabelled nodes against self-training
// labels (a surrogate's predictions on the clean graph, true labels on the
// training nodes); its gradient with respect to the adjacency is taken
// through the whole unrolled training (reverse over the 100 steps, with the
// second-order terms of each step written out by hand). MetaApprox
// (Variant Approx) trains with Adam (lr 0.01) and sums the first-order
// gradients of the attack loss over the training steps.
//
// Scores are g·(1 − 2A) for the symmetrised gradient g with respect to the
// entries of A (through Â = D^{-1/2}(A+I)D^{-1/2}, row degrees); flips that
// would leave a singleton or fail the power-law likelihood-ratio test
// (cutoff 0.004, nettack.LikelihoodRatio semantics) are masked; the single
// best pair is flipped; repeat until the budget is spent.
//
// Memory and cost: like the reference, the gradient with respect to Â is a
// dense n×n float32 matrix (cora_ml, n = 2810: 32 MB). It is assembled once
// per flip from low-rank factors collected during the (un)rolled training —
// every per-step term is (n×k)·(k×n) with k = 16 + C — as one GEMM of inner
// dimension ≈ 100·(16 + C) (gonum's blas32 Sgemm), plus two n×|train|
// corrections; the factors take 2·n·100·(16+C) float32 (≈ 52 MB on cora_ml)
// and Meta-Self keeps the forward intermediates of the 100 inner steps for
// the reverse pass, 100·n·(2·16 + 4·C) float64 (≈ 135 MB on cora_ml).
// The sparse features and the graph stay sparse.
package metattack
