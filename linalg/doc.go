// Package linalg is the numerical linear algebra under the graph
// preprocessing: the truncated SVD of a symmetric sparse matrix (thick-restart
// block Lanczos, with a symmetric eigensolver for the projected matrix) and
// the kernels of block conjugate gradients. It knows matrices, not graphs:
// package graph builds SVD GCN's low-rank graph and the exact personalised
// PageRank on top of it. Results are deterministic: the same bits for any
// GOMAXPROCS and in every build (default assembly, GOEXPERIMENT=simd,
// purego).
//
// # Truncated SVD
//
// TruncatedSVD(a, rank) returns the rank eigenpairs of largest |λ| of the
// symmetric a — for a symmetric matrix its truncated SVD, σ_t = |λ_t| —
// as a LowRank (values and node-major vectors), what scipy's svds(A, k)
// computes. Up to a few hundred rows it calls gonum's dense EigenSym;
// above, thick-restart block Lanczos (block 4, full reorthogonalisation as
// matrix products: a local pass, a full pass and a second full pass when
// the DGKS criterion asks for it; restart at ~3·rank vectors keeping
// ~1.5·rank Ritz vectors plus the residual block) until every kept Ritz
// residual is ≤ 1e-10·‖A‖. The start block comes from a fixed seed.
// Repeated eigenvalues up to multiplicity 4 are found, and a Krylov
// breakdown (a graph with few nonzero eigenvalues) is handled by deflation.
// Matrices above MaxSVDNodes rows are refused with an error naming the
// limit and the memory the basis would need.
//
// The basis is node-major (q[i*ld+s]: the 4 vectors of a block at one node
// are one AVX2 register), so the reorthogonalisation (C = Qᵀ·W, W −= Q·C),
// the Ritz vectors at a restart (Y = Q·S, written back into each node's row
// in place: no n×keep copy) and the final vectors are tensor.Gemm64 and
// tensor.GemmT64 calls, each output element one chain of fused
// multiply-adds. Reductions over the nodes sum fixed chunks of at least
// 4,096 nodes in chunk order, a function of n only, so the bits do not
// depend on GOMAXPROCS. A block is orthonormalised by CholeskyQR2 (two Gram
// matrices and two triangular solves, four passes over it) while its first
// Cholesky pivots stay above 1e-5 of the column norms, else by modified
// Gram–Schmidt twice with deflation. The projected matrix is diagonalised
// by gonum's Householder tridiagonalisation followed by EISPACK's tql2,
// whose plane rotations update the rows of Zᵀ (tensor.Rot64, contiguous and
// 4 wide) instead of the columns of Z with stride k as gonum's EigenSym
// (dsteqr) does. BenchmarkTruncatedSVDSampled times the SVD of sampled
// cora_ml graphs (40% of the edges deleted), as certification computes it.
// TestTruncatedSVDBitsPinned pins the bits (amd64 with the default
// GOAMD64=v1: higher levels let the compiler fuse the scalar code's
// multiply-adds).
//
// # Block conjugate gradients
//
// CGMatVec, CGUpdate and CGDirection are the three vector loops of one
// conjugate-gradient iteration for (I − C)·x = b with a sparse C, over
// CGBlock = 32 systems at once whose vectors are interleaved (row i of a
// [][CGBlock]float64 holds entry i of every system), so each nonzero of C
// is loaded once per block instead of once per system. The caller keeps
// the scalars of each system (step, β, convergence) and decides when a
// system is done. The portable Go versions are the reference; the default
// amd64 build runs Go assembly (cg_amd64.s) and GOEXPERIMENT=simd the same
// operations in simd/archsimd (cg_simd.go), 4-wide float64 AVX2 with the
// multiplications and additions in the portable order (no fused
// multiply-adds), so every build gives the same bits
// (TestCGKernelsMatchGeneric). The assembly CGMatVec prefetches the row of
// p that the entry eight ahead reads (p, 256 bytes a row, outgrows L2 at
// cora_ml's size): BenchmarkCGIteration 0.27 → 0.24 CPU ms on an AMD EPYC
// Zen 3 (AVX2 only, loaded), ExactGDC on cora_ml 1049 → 1033 CPU ms
// (medians of ten interleaved rounds, within the host's noise).
// CGOperator holds C copied and checked once, so that its MatVec (exact
// GDC's) skips CGMatVec's walk over the indices in every iteration
// (ExactGDC on cora_ml ≈ 10% less CPU time).
package linalg
