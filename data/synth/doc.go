// Package synth generates contextual stochastic block model (CSBM) graphs
// shaped like real node-classification benchmarks, streamed to an .npz in
// the layout of cora_ml.npz (adj_data/adj_indices/adj_indptr/adj_shape,
// attr_*, labels), so data.LoadFile reads them like any dataset.
//
// The model, for n nodes, m undirected edges, d features and C classes:
//
//   - Classes. Node u draws its class c_u with probability ∝ (c+1)^−s
//     (s = Preset.ClassSkew: 0 is balanced, 1 is Zipf-like as in arXiv).
//   - Degrees. Node u draws a degree propensity θ_u = exp(σZ − σ²/2),
//     Z standard normal (lognormal with mean 1, σ = Preset.DegreeSigma),
//     capped at √(n/d̄) for the mean degree d̄ = 2m/n so that no pair is
//     expected more than once; expected degrees are ∝ θ (median/mean =
//     exp(−σ²/2), a heavy upper tail like citation and co-purchase graphs).
//   - Backbone. Every node u links to one partner v ≠ u drawn ∝ θ_v, with
//     probability h among u's class and otherwise among all nodes, so no
//     node is isolated and the graph is connected or nearly so.
//   - Block model. The other m − n edges follow a degree-corrected SBM: node
//     u draws Poisson(θ_u Σ_{v>u} θ_v ω(c_u, c_v)) partners among the nodes
//     after it, v with probability ∝ θ_v ω(c_u, c_v), where ω = ω_in within
//     a class and ω_out across classes, chosen so that the expected number
//     of such edges is m − n of which a share h (Preset.Homophily) is within
//     a class. A repeated partner is redrawn (up to 8 rounds), so the edge
//     count does not fall short where hubs meet.
//   - Features. Node u has between L/2 and 3L/2 distinct words out of d
//     (L = Preset.Words); each word is drawn with probability
//     Preset.Signal from its class's Zipf(1.1) ranking of the d words (a
//     class-specific random permutation), else from a global Zipf ranking.
//     Values are TF-IDF-like ((1 + Exp(1))·idf(word)) and every row is
//     L2-normalised.
//   - Split. Presets shaped like OGB datasets store a fixed split of the
//     official split's sizes (random nodes) as split_train, split_valid and
//     split_test; data.LoadFile returns it as the graph's Split.
//
// Every random number comes from a PCG stream keyed by the seed and by a
// fixed block of nodes, and blocks are written in order, so a seed gives the
// same bytes whatever GOMAXPROCS. Generation holds O(n) node state plus one
// bucket of edges: edges are written to row-range buckets in temporary
// files beside the output, then each bucket is sorted by row and appended to
// the adjacency, and the archive is assembled from those spools.
package synth
