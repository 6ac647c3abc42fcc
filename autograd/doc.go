// Package autograd is rgnn's reverse-mode automatic differentiation: a tape
// of coarse operations (whole-matrix matmul, sparse×dense products, robust
// aggregations, activations, losses), each with a hand-written backward.
//
// A [Tape] records operations as they run. [Tape.Backward] seeds the scalar
// loss with gradient 1 and runs the recorded backward closures in reverse,
// accumulating gradients into every [Var] that needs one. Trainable weights
// are [Param]s, which outlive tapes: their gradients accumulate into
// Param.Grad, which the optimiser reads and clears.
//
// Sparse operands are [Sparse]: a constant CSR structure whose transpose is
// computed once. The VALUES of a sparse operand may be a Var (an nnz×1
// column), so the gradient of a loss with respect to the edge weights of a
// graph is available to attacks at no extra cost.
//
// Buffers come from the tape's arena: after [Tape.Reset] every Var of the
// previous pass is invalid and its storage is reused, so a training loop
// allocates nothing in steady state. Every op is deterministic: kernels are
// parallel over output rows only, or reduce in a fixed order.
//
// # Fused ops
//
// Chains of tiny ops (each an n×8 or nnz×1 temporary and a goroutine
// fan-out) dominated GAT's and GCN's epochs, so the hot chains are single
// ops with the chain's values and masks, tested bit for bit against it:
// [Tape.BiasActDropout] (bias + ReLU/ELU + dropout in one pass forward, ReLU
// by the sign bit and the mask by an AND, no unpredictable branch; one pass
// backward that also sums the bias gradient over 16 fixed row blocks; with
// ReLU and dropout it keeps no mask, since a positive, non-NaN output means
// the element was kept, and runs tensor's AVX2 kernels, which hash four
// quads at a time: cora_ml's GCN epoch 5.4 → 4.3 CPU ms) and
// [Tape.GATAttention] (all heads' scores, edge softmax, attention dropout
// and aggregation in one row-parallel pass; the backward gathers column sums
// through the graph's cached transpose, so it stays deterministic without
// per-edge buffers). A gradient buffer created by the op that fills it is
// written, not zeroed and accumulated (gradFresh). The cross-entropy over
// many rows (from 4,096) computes its per-row terms and gradients in
// parallel and sums the terms in row order, the sequential loop's bits.
// Subnormal arithmetic costs ~1 µs per operation on some hosts, so softmax,
// log-softmax and cross-entropy flush exponentials below the normal range
// to zero (x < −708 in float64, results below 2⁻¹²⁶ in float32); GAT's
// attention softmax produced many such values.
// [Tape.Aggregate] knows before the forward pass whether it records a
// backward and then asks the aggregation to keep what its backward needs
// (package aggregate); [Tape.SymLowRank] propagates with a low-rank graph
// (SVD GCN), whose backward is the same product since the graph is
// symmetric.
package autograd
