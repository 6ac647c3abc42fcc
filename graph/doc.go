// Package graph holds pure functions on sparse graphs (tensor.CSR) that run
// before message passing: the GCN normalisation, graph diffusion (personalised
// PageRank, exact and approximate), the truncated-SVD and Jaccard
// preprocessing of the defences, connected components and symmetric edge
// flips. The linear algebra underneath (block Lanczos, block-CG kernels) is
// package linalg. Nothing here mutates its inputs or keeps global state;
// results are bit-identical for any GOMAXPROCS.
//
// # GCN normalisation
//
// GCN normalisation follows PyTorch Geometric's gcn_norm exactly as the
// reference uses it: self loops of weight 1 are added only to nodes that have
// none, degrees are COLUMN sums, and ŵ_rc = d_r^{-1/2} w_rc d_c^{-1/2}. Message
// passing then computes out = Ŵᵀ·H (PyG's source→target flow); for a
// symmetric graph the transpose does not matter, for GDC's asymmetric
// diffusion matrix it does.
//
// # Graph diffusion (GDC, personalised PageRank)
//
// The reference (rgnn/utils.py:get_ppr_matrix) uses
//
//	Â = A + I,  d̃ = Â·1,  T = D̃^{-1/2} Â D̃^{-1/2},  S = α (I − (1−α) T)⁻¹ = α Σ_t ((1−α)T)^t
//
// with α = 0.15, keeps the k = 64 largest values of every ROW of S (torch.topk
// over all n columns), and divides each row by the sum of its kept values (a
// sum ≤ 0 divides by 1). GDC returns that matrix as a CSR; the models then
// apply gcn_norm to it again. Ties in the top-k are broken by column
// ascending; values within 1e-9 of the row maximum of each other count as
// ties, so the choice among structurally equivalent nodes (for example two
// leaves of the same hub) follows the column order rather than rounding
// noise.
//
// ExactGDC (GDCConfig.Eps = 0) computes S to float64 rounding (the reference
// inverts in float32 on the GPU). For a symmetric nonnegative A, T is
// symmetric and M = I − (1−α)T is symmetric positive definite with spectrum
// in [α, 2−α], so the condition number is at most (2−α)/α ≈ 12.3 and
// conjugate gradients reach a relative residual of 1e-12 in about 50
// iterations. Column u of S = α M⁻¹ e_u equals row u (S is symmetric), so
// every source is one CG solve, 32 sources at a time per goroutine with
// interleaved vectors (linalg's block-CG kernels). This needs O(n) memory per source instead of the dense
// n×n inverse and was measured faster than gonum's dense Cholesky or LU
// inverse (cora_ml: ~0.9 s vs 3.3 s and 3.6 s on 2 cores). Non-symmetric or
// signed inputs fall back to the dense LU inverse. Graphs above
// MaxExactPPRNodes are refused with a pointer to the approximation.
//
// ApproxGDC (Eps > 0) uses forward push (Andersen, Chung & Lang 2006), as the
// at-scale repository's get_approx_topk_ppr_matrix: from source u it keeps an
// estimate p and a residual r (initially e_u); pushing node v moves α r_v into
// p_v and spreads (1−α) r_v Â_vw / d̃_v to every w (the self loop included),
// until r_w < ε d̃_w everywhere. Then p approximates the random-walk PPR row
// π_u = α e_uᵀ (I − (1−α) D̃⁻¹Â)⁻¹ from below with 0 ≤ π_u(v) − p(v) ≤ ε d̃_v.
// Because T = D̃^{1/2} (D̃⁻¹Â) D̃^{-1/2}, the symmetric diffusion is
// S[u,v] = √d̃_u π_u(v) / √d̃_v, so the top-k is chosen by p(v)/√d̃_v (√d̃_u
// cancels in the row normalisation). This matches ExactGDC as ε → 0; the
// at-scale code instead takes the top-k of p before rescaling, which selects
// a slightly different set. Each goroutine reuses dense p/r arrays that are
// reset only where touched, so one source costs O(1/(αε)) regardless of n.
//
// TopKPPR is the same push for a set of nodes (or all) on graphs of any
// size: len(nodes) × n rows, each row bit-identical to ApproxGDC's row of
// that node, written straight into fixed k-slot arrays (compacted in place
// at the end), so memory is O(n + len(nodes)·k) plus O(n) push state per
// worker (ogbn-arxiv-sized, k = 64, eps = 1e-4: ~20 CPU seconds, 191 MB
// peak RSS). Up to 16 nodes push on the CSR itself (nodePush: degrees,
// thresholds and weights computed for the rows the push reaches, the same
// updates in the same order), so evaluating one target of a large graph
// costs its push, not the preparation of the whole push graph.
//
// # Speed of the push
//
// Randomized smoothing diffuses every sampled graph afresh, so the push is
// tuned for many sources on small graphs, each change keeping every value
// and order:
//
//   - self loops are solved in closed form (a push of r_v moves
//     α·r_v/(1−c_v) into p_v, c_v the self-loop share: the limit of
//     infinitely many pushes, so the error bound is unchanged, with far
//     fewer pops on low-degree nodes);
//   - a node is queued exactly when its residual crosses the threshold, and
//     a worker switches between tracking touched nodes and clearing/scanning
//     densely by the size of its last push;
//   - a node with a single neighbour u gets π = keep·e + scale·π_u from u's
//     push instead of its own (a quarter of the nodes after 40% deletions);
//   - the loop over a popped node's neighbours has no data-dependent branch:
//     each neighbour is written to the free slot after the touched list and
//     after the queue's tail (a ring of a power of two > n slots), and the
//     lengths advance by the conditions — on sampled cora_ml graphs the
//     branching loop spent most of its time in mispredictions;
//   - the top-k of a row skips the tie regrouping when exactly k candidates
//     lie within the tie tolerance of the k-th value, and puts the selection
//     in column order through a bitmap over the columns' range.
//
// On graphs whose push state outgrows the caches (from 32,768 nodes) a
// push costs memory latency, not arithmetic: the same ~2,200 updates per
// source take ~19 µs at 20,000 nodes and ~80 µs at arXiv's size. A node's
// residual, threshold, estimate and touched flag share one 32-byte slot
// (one cache line per touched node instead of three), and because the queue
// says which rows come next, each pop prefetches the row offsets 12 entries
// ahead, the neighbours and weights 8 ahead and the neighbours' slots 4
// ahead (PREFETCHT0; a no-op in the portable build; TestPushPrefetchSameBits).
// arXiv's top-k PPR runs about 1.26× faster (5.71 → 4.54 s for the scale
// benchmark's ppr stage); reordering the nodes (by degree or BFS) or
// interleaving two sources on one worker did not help on the generated
// graphs.
//
// LocalPPR's backward reads one top-k row per candidate, at random in a
// large matrix: it tests a column bitmap (n/64 words, in cache) before
// reading the gradient and loads a row pfAhead = 16 rows ahead (a plain
// load, so the CPU waits for several rows at once), which took an epoch of
// 10,000 candidates on a 400,000-node matrix from 5.2 to 3.5 ms.
//
// Exact PPR's block-CG loops have 4-wide float64 AVX versions (cg_amd64.s,
// or archsimd with GOEXPERIMENT=simd) that do the same multiplies and adds
// in the same order (no FMA), so every build gives the same bits.
//
// PrepCache memoises any preprocessing result by a 64-bit FNV-1a fingerprint
// of the input CSR plus a parameter string (a hit is confirmed against a
// stored copy of the input, so collisions cannot return wrong results).
//
// # Truncated SVD (SVD GCN)
//
// The reference (get_truncated_svd) takes scipy's svds(A, k=50) of the
// unweighted, self-loop-free adjacency, forms the dense low-rank matrix
// L = U S Vᵀ and normalises it with svd_norm_adj: M = L + I,
// r = rowsum(M)^{-1/2} (1/√0 → 0), D_r M D_r. For a symmetric A the SVD is
// the eigendecomposition ordered by |λ|: σ_t = |λ_t| and L = Σ_t λ_t v_t v_tᵀ
// over the 50 eigenpairs of largest magnitude, which linalg.TruncatedSVD
// finds by block Lanczos (up to linalg.MaxSVDNodes).
//
// The normalised graph is dense (n² entries, 7.9M for cora_ml) but of low
// rank: SVDLowRank / NewSVDNorm keep it as tensor.SymLowRank,
// Â = U·Λ·Uᵀ + D_r² with U = D_r·V, whose product with an n×d matrix costs
// O(n·rank·d) — what svd_gcn propagates with (one certification sample of
// svd_gcn on cora_ml cost 473 CPU ms with the dense graph, mostly writing,
// transposing and clearing its n² entries). A negative row sum, which a
// rank-50 approximation of a randomly sampled graph occasionally has, gets
// the reference's NaN scale, so the model predicts class 0 for every node
// of that sample as the reference's argmax does. SVDGraph / SVDNormAdj
// materialise it (up to MaxSVDGraphNodes) for the tests and Figure 1.
//
// # Jaccard (Jaccard GCN)
//
// JaccardFilter drops every undirected edge (u, v) whose feature supports
// have Jaccard similarity |nz(x_u) ∩ nz(x_v)| / |nz(x_u) ∪ nz(x_v)| ≤ 0.01
// (DeepRobust's drop_dissimilar_edges), by merging the sorted index lists of
// the two sparse feature rows.
//
// # Helpers
//
// FlipEdges toggles undirected pairs symmetrically (the perturbation model of
// the attacks and of randomized smoothing), UpperTriangleEdges lists the
// undirected edges, Degrees counts neighbours, and ConnectedComponents /
// LargestComponent label components by BFS in ascending node order (scipy's
// numbering).
package graph
