// Package aggregate holds the robust aggregations of message passing — the
// Soft Medoid of Geisler, Zügner and Günnemann (NeurIPS 2020) and the
// estimators it is compared with — as fused forward/backward kernels.
//
// Every aggregation works on the rows of a weighted sparse matrix A (n×n,
// already GCN-normalised): row v aggregates the embeddings x_j of the
// nonzeros A_vj, and every output is multiplied by the full row sum
// Σ_j A_vj, so that the weighted sum (GCN) is the special case, as in the
// reference's rgnn/means.py. Each has an analytic backward that ACCUMULATES
// gradients with respect to x and to A's values; discrete choices (top-k
// neighbours, medoid and median indices) are constants, like the argmax of
// max-pooling.
//
// Distances are Euclidean norms: of differences for neighbourhoods under 16,
// from the Gram matrix (‖a‖² + ‖b‖² − 2a·b, like the reference's dense CPU
// path) from 16 on; the reference's dense path also adds 100·eps inside the
// square root, which changes results only in the last digits.
//
// # Workers and determinism
//
// Rows run on a small process-wide pool of worker goroutines (at most
// GOMAXPROCS−1, started on first use) with per-chunk scratch kept in the
// aggregator, so steady-state calls allocate nothing (TestSteadyStateAllocs;
// sum excepted, which calls tensor.SpMM): tensor.Parallel starts goroutines
// per call, whose closures and WaitGroup are allocations. Forward passes
// are parallel over rows. Gradients that land on other rows (a neighbour's
// embedding) are accumulated per chunk of a FIXED row chunking,
// fixedChunks(n): at most 4 chunks of at least 256 rows, a function of n
// only, each chunk into its own x.Rows × d buffer in row order; the buffers
// are added into ∂x in chunk order. Workers take chunks dynamically, so any
// GOMAXPROCS gives the same bits (TestDeterministicChunks at 1, 2, 3 and
// 8). This replaced one gradient slot per edge (46 MB per backward on
// cora_ml after GDC) with 4 × 720 KB; four chunks rather than eight because
// each chunk's first touch of a buffer row is a cache miss, and 4 measured
// ~6% less CPU for the Soft Medoid's backward — the price is that backward
// passes use at most 4 cores. Ties in the top-k selection break by weight
// descending, then column ascending.
//
// # The Soft Medoid kernel
//
// A row computes its k×k distances from the Gram matrix of the gathered
// neighbourhood (32×32 blocks on and above the diagonal only, squared norms
// from its diagonal) and its gradient with respect to the embeddings in
// matrix form (diag(C1) − C)·X instead of a loop over pairs. With AVX-512
// and k, d multiples of 16 (cora_ml after GDC: every row has k = 64):
//
//   - the neighbourhood's rows are gathered in one call (gatherRows; a copy
//     per row cost 13% of a forward);
//   - the Gram blocks run an AVX-512 small GEMM (4 rows × 32 columns in
//     eight 16-lane registers; each element the same chain of fused
//     multiply-adds as the AVX2 one, so both give the same bits). Alone, in
//     the cache, one neighbourhood's blocks run at 91% of the core's
//     multiply-add peak (BenchmarkGramBlocks against BenchmarkFMAPeak: 8.7
//     of a forward's 15.5 CPU ms on cora_ml), so what is left to gain is in
//     the rest of the row. The kernels address the right operand's rows with
//     unsafe.Add from its first element (lengths checked once;
//     -gcflags=all=-d=checkptr passes): re-slicing in the inner loop cost
//     20–30% of the kernel's time;
//   - the Gram operand is transposed and the distance matrix mirrored with
//     16×16 register transposes (VPERMI2PS); the diagonal blocks skip
//     their lower-left 16×16 tile, and the distances are computed right of
//     the diagonal only (GramToDist is symmetric in its two norms, so the matrix is
//     exactly symmetric);
//   - D·w, the output Σ ŝ_a x_a, D·gc, gy·x_a and the row sums of C are
//     vector–matrix products with the output in registers (weightedSum512AVX),
//     one call per row instead of k dots or axpys;
//   - the pair coefficients C (one division per pair) are computed on and
//     right of the diagonal and mirrored (C is symmetric bit for bit: its two
//     products are rounded separately, then added), and ŝ_a·gy is one more
//     column of C and row of X, so ∂L/∂x_a = −(C'·X')_a is a single 64 × 65 ×
//     64 product per row;
//   - for narrow embeddings (d < 16: the output layer, d = 7) the backward's
//     product is done transposed, d vector–matrix products of length k
//     instead of k·(k+1) axpys of length d: 2.3× less CPU
//     (BenchmarkForwardBackwardNarrow).
//
// Hosts without AVX-512 get 8×8 AVX2 tile transposes (transpose8AVX2) for
// the Gram operand and the distance mirror (tileSize: AVX-512 hosts keep
// their 16×16 tiles, and so their operation order) and a register-resident
// AVX2 weighted sum (weightedSumAVX2: sums of 32 or 8 columns, the same fused
// multiply-add chains as clearing o and calling Axpy row by row), with the
// same bits as the code they replace (the aggregate digest is unchanged). On
// an AMD EPYC without AVX-512 they took the one-thread forward from 53 to
// 31.7 CPU ms (forward+backward 95 → 80.6), after replacing the kernels'
// legacy-SSE instructions had taken it from 77 to 53 (package tensor,
// "AVX–SSE transitions").
//
// On those hosts the row's steps also run as whole-matrix AVX2 kernels
// (softgrad_amd64.s) instead of a Go call per row or tile, each repeating
// the package tensor kernel it replaces operation for operation
// (TestSoftGradKernels; the digests are unchanged): the Gram matrix of a
// neighbourhood of a multiple of 16 in six-row blocks from each block's
// diagonal strip (gramUpper), GramToDist and the pair coefficients on and
// right of the diagonal's 8×8 tiles with the rest mirrored (C is symmetric,
// and PairCoef's row sums are recomputed in its lane order, rowSums8), the
// gathers in one call, e = gy·x_a as Dot per row in one call (dotRows), and
// the backward's product −(C'·X') subtracted straight into the gradient
// rows in blocks of six and four rows (gemmSubRows: GemmSmall's chains,
// then g − p, which is Axpy(g, p, −1) with one rounding). The kept
// distances are written with non-temporal stores beyond 8M floats
// (copyStream). One thread, AMD EPYC Zen 3 at load ~12, medians of 8
// interleaved rounds: forward 33.5 → 25.8 CPU ms, forward+backward 101.5 →
// 73.8; the Soft Medoid GDC epoch on cora_ml 148.4 → 128.9.
//
// The per-row float64 steps (the criterion from the weighted distance sums,
// the softmax's shift and normalisation, the weight correction and their
// gradients) run four lanes at a time in AVX2 assembly (vec64_amd64.s, in
// the default and the SIMD build), each lane the scalar loop's operation
// (TestVec64MatchesScalar): one DIVSD per element was the cost (−5% CPU of
// a lone forward). Sums over a row stay sequential scalar loops, because a
// vector sum would reorder them.
//
// # What the forward keeps
//
// autograd.Tape.Aggregate knows before the forward pass whether a backward
// can follow and then calls ForwardForBackward instead of Forward, so
// forward-only users (inference, certificates, attack evaluations) keep
// only O(rows) scalars. The Soft Medoid's k×k distances (46 MB per call on
// cora_ml) are kept only for d ≥ 16: writing and re-reading them costs
// memory traffic comparable to computing them (keeping them saved ~10% of
// a forward+backward at d = 64 but cost 15–20% of a lone forward; for d = 7
// recomputing was faster either way). What the Soft Medoid and the Soft
// Median keep is bounded by Options.MaxStateBytes (default 1 GiB):
// everything, the per-entry state only (top-k selection, softmax weights,
// the Soft Median's medians: 24 B per entry, or 16 B per entry + 8 B per
// row and dimension), or O(rows) scalars — the most that fits. Backward
// recomputes the rest row by row with the same code, so values and
// gradients are the same bits at every level. An ogbn-arxiv-sized GDC graph
// (169,343 rows × 64) keeps 418 MB instead of 3065 MB for the same CPU
// time; beyond ~45M entries nothing of size nnz, nnz·d or n·k² is kept.
//
// # Memory latency
//
// On graphs larger than the caches every row gathers up to k random
// neighbour rows and scatters as many gradient rows. The Soft Median and
// the Soft Medoid prefetch the next row's neighbour and gradient rows while
// a row computes (tensor.PrefetchRows): at arXiv size 30–50% less CPU per
// forward+backward, no value changed. The Soft Median's backward asks 8
// entries ahead instead (prefetchEntry): a whole row at once (64 neighbours,
// 512 cache lines with the gradient rows) overflows the core's queue of
// outstanding misses and the prefetches stall, while a short window keeps
// the queue full — it halved that backward at arXiv size.
//
// # The weighted median
//
// DimMedian and the Soft Median's x̄ pick per dimension the first key
// orderedBits(x)<<32 | entry (ties by column) in ascending order whose
// cumulative weight — the float64 sum of the float32 edge weights in that
// order — reaches half the row's total (else the largest key). On amd64
// with AVX-512F, in the default and the SIMD build alike (integer sorting
// networks and float64 sums in a fixed order leave nothing for an archsimd
// copy to round differently), rows of 2–64 entries run kernels that
// dimmedian_gen.go writes into dimmedian_amd64.s (go generate ./aggregate;
// TestDimMedianAsmGenerated checks the file is current). Lanes are
// dimensions: the keys, padded to 4, 8, 12, …, 64 with keys that sort last,
// are sorted by Batcher's odd-even merge network, unrolled (keys in the 32
// vector registers, spilled by furthest next use), then scanned in sorted
// order, each key's weight looked up with VPERMT2PS, until every lane has
// crossed half its total. The main kernels sort uint32 keys — the ordered
// bits with their lowest 4–6 bits replaced by the entry index — 16
// dimensions at a time in Z registers (8 in Y registers for up to 8
// remaining columns); on Zen 4 VPMINUQ issues at a lower rate than VPMINUD,
// and Z-register min/max at a lower rate than Y. The scan flags a lane
// whose pick may differ from the exact order (a key up to the pick's
// successor shares its upper bits with its predecessor), and those 8
// columns are recomputed with exact uint64 keys: 164 of 22,480 groups on
// the benchmark graph (TestMedianKernelsAVX512). CPUs with AVX2 and without
// AVX-512F (or GODEBUG=cpu.avx512f=off) run dimMedianAVX2xN: the same uint32
// keys and network 8 dimensions at a time in the 16 Y registers (lane masks
// as vectors, comparators reordered for fewer spills, each weight by a
// scalar load: VGATHERDPS is slower on Zen 3). Keys that share their upper
// bits but have equal values (duplicate feature rows: a third of cora_ml's
// GDC neighbourhoods hold one) are already in the exact order, so only runs
// whose values differ count as a collision (0.1% of a first layer's columns
// on cora_ml's GDC rows, against 20% counting every shared prefix;
// TestMedianKernelsAVX2Datasets), and those columns are recomputed one by
// one with the portable selection: the DimMedian forward 6–7× faster than
// the portable code on Zen 3. Rows of one entry pick it; rows above 64
// entries, other builds and CPUs without AVX2 run the portable
// quickselect (branch-free partition), the reference, which adds weights in
// partition order — equal to the sorted-order sums when every subset sum is
// exact in float64 (exactSums; true for every row of the normalised GDC
// matrices of cora_ml, citeseer, cora and polblogs), otherwise it sorts the
// row. Measured on Zen 4 (2 cores, loaded): DimMedian forward 75.4–78.4 →
// 6.1–6.8 CPU ms, Soft Median forward+backward 104.7–113.5 → 34.3–38.6; one
// row of 64 entries at d = 64 in 1.8–1.9 µs (portable 26–29 µs).
package aggregate
