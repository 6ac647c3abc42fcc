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
package autograd
