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
// are combined in chunk order. [ForEachJob] hands out independent jobs
// (attack targets) dynamically with a per-goroutine index for per-worker
// state; results are written by job index. The same inputs therefore give
// the same bits for any GOMAXPROCS.
//
// Nothing here materialises a dense n×n matrix for a sparse operand.
//
// # Builds
//
// Every vector kernel exists three times with one operation order:
//
//   - the default build on amd64 runs Go assembly (*_amd64.s, build tag
//     amd64 && !purego && !goexperiment.simd): AVX2+FMA, and AVX-512F+VL
//     where the CPU has it, chosen once at start-up with golang.org/x/sys/cpu
//     (GODEBUG=cpu.avx512f=off selects the AVX2 kernels);
//   - GOEXPERIMENT=simd runs the same operations written with simd/archsimd
//     (*_simd.go);
//   - purego and every other architecture run the portable Go loops
//     (*_generic.go), which are also the reference that the kernel tests
//     compare against on random inputs with every tail length.
//
// The assembly and the archsimd kernels give the same bits
// (TestKernelBitsMatchSIMDBuild pins digests of both); the portable loops
// round differently in the last bits because Go fuses no float32
// multiply-add on amd64 (not at GOAMD64=v3 either), and the AVX-512 kernels'
// 16-lane tails round some sums differently from the 8-lane ones. Results
// are deterministic within a build and a kernel set.
//
// # SpMM
//
// SpMM keeps 32 output columns of a row in registers with two chains over
// the row's entries; narrow outputs (up to 16 columns: a last layer, one
// GAT head) use masked loads instead of a call per entry; other widths
// (40, 47, 70 classes) run in blocks of 32 and 8 columns with one chain per
// column, the bits of one axpy per entry. Rows of thousands of entries (the
// transposed features in a first layer's weight gradient Xᵀ·G) go tile by
// tile over x with both chains kept in memory between tiles: the same
// operations, x read once instead of once per row. At arXiv size
// (128 rows of 169,343 entries by 169,343 × 64) that kernel went from 291
// to 65 ms for dense features (TestSpMMLongRowsSameBits). At that size
// SpMM waits on memory: every entry gathers a random 160–256-byte row of x
// and about 12 cache lines are in flight per core; prefetching one row
// ahead measured no gain and is not used.
//
// # Dense products
//
// MatMul (a·b), MatMulAT (aᵀ·b) and MatMulBT (a·bᵀ) keep a tile of the
// output in registers and stream the inner dimension (matmul_gen.go writes
// the assembly). Their contract is the bits of the loops they replaced, one
// axpy per nonzero a value and one dot per output element, element by
// element; those loops remain the portable build's code and the tests'
// reference.
//
//   - Axpy kernels (MatMul's general path, both branches of MatMulAT): a
//     tile of output rows × a panel of up to 64 columns (AVX-512: 8 rows, 6
//     or 4 for the widest panels, 16-column Z units plus one 8-column Y
//     unit, k masks; AVX2: 1–4 rows of 8-column units, blends). Every
//     element gets, for t in order where a(r, t) is not ±0, c ← fma(a, b, c)
//     in the columns below n&^7 and c ← c + round(a·b) above (axpy's scalar
//     tail). The skip is a per-row mask, never an fma with a zero, which
//     would turn a −0 output into +0 and 0·Inf into NaN. Rows are addressed
//     as a + r·sai + t·sat, so MatMul and MatMulAT share the kernels.
//     MatMulAT, whose inner dimension is all the nodes, runs over blocks of
//     atBlock = 512 rows so that each tile after the first reads the block
//     from L2; its narrow branch (b.Cols < 16) computes dstᵀ = bᵀ·a in column
//     groups of 16 split at multiples of 8, so every column keeps its fused
//     or unfused update.
//   - Dot kernels (MatMulBT, and MatMul with fewer than 16 output columns):
//     b is packed once per call in blocks of 16 rows (8 with AVX2) and every
//     lane is one output column. dot's two 8-lane accumulators are sixteen
//     partial sums per element, then hsum8's tree, the tail's four unfused
//     partial sums, s + tail, out + s — dot's operations, lane by lane, all
//     vertical.
//   - Work is split only over output rows (or, in the narrow branch, output
//     columns), so the bits do not depend on GOMAXPROCS (tested at 1, 2, 3
//     and 8). The archsimd kernels run smaller tiles (two rows × 24 columns):
//     with more live vectors the compiler spills them inside the loop.
//   - NaN results stay NaN but not necessarily the same NaN: IEEE 754 leaves
//     open which operand an addition returns, and Go commutes scalar
//     additions freely.
//
// Measured (CPU ms per call at arXiv size, 169,343 × 64 → 40, AVX-512
// kernels, BenchmarkDenseProducts): MatMul 53.5 → 12.7, MatMulBT
// 66.5 → 18.5, MatMulAT 51.2 → 15.4 against the loops (AVX2 kernels: 17.1,
// 26.4, 24.3); a GCN epoch at that size 574 → 436 CPU ms with the same
// trained weights. The masked tiles still pay for the zeros they skip (3/4
// of h under ReLU and dropout); a compressed list of each row's nonzeros
// would avoid that, but the products are now ~10% of that epoch and SpMM
// ~60%.
//
// # AVX–SSE transitions
//
// Two per-call penalties, each invisible in a long loop and ruinous for
// the short calls the aggregations make by the hundred thousand:
//
//   - Every AVX2 helper ends with VZEROUPPER (archsimd.ClearAVXUpperBits in
//     the SIMD build). Without it the upper YMM halves stay dirty and the
//     next SSE instruction (Go's scalar float code) pays a transition: on an
//     Intel Xeon ~130 ns per axpy or dot call whatever its length (5 ns for
//     length 16 with it). Long scalar loops around math.Exp, which is SSE
//     assembly, call [ClearUpper] first: a goroutine may start on a thread
//     that other code left dirty (GAT on the GDC pattern took 342 instead of
//     65 ms per epoch until its softmax did).
//   - No legacy-SSE instruction (MOVD, MOVQ, MOVSD, … on an X register) may
//     appear inside a function that has used 256- or 512-bit registers: it
//     costs ~110 ns per call whatever the vector length on the hosts
//     measured (AMD EPYC and Intel Xeon under KVM). GramToDist's
//     `MOVD AX, X1` made its 8-lane call cost 129 ns instead of 21 ns and the
//     Soft Medoid forward 30–60% slower (on the Xeon 60% of a one-thread
//     forward was in gramToDistAVX2). The kernels use the VEX forms (VMOVD,
//     VMOVQ, VMOVSD); internal/asmcheck's TestNoLegacySSEInVectorKernels
//     scans every .s file of the module, and TestShortVectorCallsCostTheirArithmetic
//     times one vector step against its scalar arithmetic.
//
// [GemmSmall] and [GemmLd] (the aggregations' Gram and gradient blocks)
// run blocks of six rows × 16 columns (twelve accumulators, gemm6x16AVX2)
// on AVX2 hosts and two rows × 32 columns for the rest: each element is the
// same chain of fused multiply-adds over k either way, so the same bits
// (TestGemm6MatchesGemm2); on an AMD EPYC Zen 3 (loaded, CPU time) the
// 64×65·65×64 product of the Soft Medoid backward went from 7.4–10.3 to
// 6.9–7.4 CPU µs, near the two FMA pipes' peak. [GemmLd6] is that kernel
// with strided a and b: package aggregate computes the diagonal Gram blocks
// without their lower-left tile with it, as its AVX-512 kernel does.
//
// [ExpVec] computes four math.Exp at a time with math.Exp's bits (the Soft
// Medoid's softmax).
//
// # Memory latency
//
// [PrefetchRows] issues PREFETCHT0 for rows that a later pass will read in
// an order the hardware prefetcher cannot guess (the neighbour rows of an
// aggregation); it is a no-op for matrices below 8 MiB and in the other
// builds.
//
// # Float64 kernels
//
// [Gemm64] and [GemmT64] are float64 AVX2 tiles (8 rows × 4 columns, a
// broadcast and a fused multiply-add per element and step) in which every
// output element is one fma chain in a fixed order, so the portable build
// (math.FMA), the assembly and archsimd give the same bits (tested on every
// tail). [Rot64] applies plane rotations to contiguous rows. [SymLowRank]
// is a symmetric matrix U·Λ·Uᵀ + D kept in low-rank form (SVD GCN's
// normalised graph): a product with an n×d matrix costs 2·n·rank·d
// multiply-adds instead of n²·d, computed in float64 with fixed row chunks
// summed in order.
package tensor
