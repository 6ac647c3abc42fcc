// Package tensor holds rgnn's numeric containers and kernels: row-major
// float32 dense matrices, CSR sparse matrices with float32 values, and the
// kernels that move data between them (GEMM, SpMM, transposes, row
// reductions), and FlipEdges, the symmetric edge toggle that both the
// perturbed-graph files (package data) and the attacks (through package
// graph) apply.
//
// Everything is float32 for storage and bandwidth; long reductions
// (softmax denominators, losses, norms) accumulate in float64. Work is split
// over rows with [Parallel], which cuts the rows into contiguous chunks and
// never lets the result depend on how the chunks are scheduled: every output
// element is written by exactly one goroutine, and reductions across chunks
// are combined in chunk order. The same inputs therefore give the same bits
// for any GOMAXPROCS.
//
// Nothing here materialises a dense n×n matrix for a sparse operand.
package tensor
