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
// dense n×n float32 matrix (cora_ml, n = 2810: 32 MB), assembled once per
// flip, never step by step. Meta-Self uses that every SGD update of W1 is
// Xᵀ·Â²·E_T·(dO[T]·W2ᵀ) (the training loss only sees the |T| labelled rows),
// so all the per-step right factors X·W1_t and Â·X·W1_t·W2_t lie in the
// span of B = [X·W1_0 | X·Xᵀ·Â²·E_T] and Â·B: the n×n product has inner
// dimension 2·(16 + |T|) (cora_ml: 312) instead of 101·(16 + C) (2323);
// the per-step left factors are reduced to it by two GEMMs of the stacked
// steps (see lowrank.go). MetaApprox (Adam: not in that span) keeps the
// explicit factors. Terms that only touch the training columns are kept as
// n×|T| matrices. Every float64 intermediate of a flip (Meta-Self keeps
// the forward pass of its 100 inner steps for the reverse pass; each step's
// other temporaries are released at its end) comes from an arena reused
// across flips, as do the float32 assembly and score
// buffers: after the first flip a flip allocates a few MB. The sparse
// features and the graph stay sparse. On amd64 with AVX2/FMA the products
// use vector kernels (Go assembly, or archsimd with GOEXPERIMENT=simd) (tensor.GemmSmall; rowMul16, four 4-wide float64
// accumulators, for the sparse products with 16 columns: X·W1, Â·(n×16)
// and Xᵀ·(n×16)).
package metattack
