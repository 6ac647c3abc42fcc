// Package nettack implements Nettack (Zügner, Akbarnejad and Günnemann,
// KDD 2018): a targeted, greedy structure attack on the linearised two-layer
// GCN surrogate Z = Â²·X·W, and the targeted evaluation protocol of the
// Nettack paper (40 test targets per seed: the 10 most confident, the 10
// least confident and 20 random correctly classified ones; budget deg + 2 or
// round(ε·deg); evasion; classification margin and failure rate).
//
// Everything is sparse. For a target u and a candidate flip (a, b) the new
// logits of u are computed in closed form from two n×C matrices kept per
// target, G_j = (XW)_j/√d̃_j and S_k = Σ_{j∈N(k)∪{k}} G_j (so that
// (Â·XW)_k = S_k/√d̃_k): a flip changes d̃_a, d̃_b, hence G_a, G_b, and S
// only in the rows adjacent to a or b, so
//
//	z'_u = Σ_{k∈N'(u)∪{u}} S'_k / (√d̃'_u · d̃'_k)
//
// costs O(deg(u)·(C + log deg)) per candidate — the same numbers as the
// reference's compute_new_a_hat_uv followed by a product with XW, without
// ever forming a row of Â². Flips that would create a singleton and flips
// that fail the power-law degree log-likelihood ratio test (χ² cutoff 0.004,
// d_min = 2, incremental update of the α estimate) are filtered out; a pair
// is never flipped twice.
//
// Feature flips (Options.Perturb = PerturbFeatures or PerturbBoth, as the
// original Nettack's perturb_features) need binary features and the
// surrogate's W = W1·W2: flipping X[i, f] of an attacker i (the target in
// the direct attack, the influencers otherwise) moves u's logits by exactly
// (Â²)_{ui}·(±W[f, :]) on the current graph, so every candidate's new
// margin costs O(C). A word may be added only if it passes Nettack's
// co-occurrence constraint on the original features (word graph XᵀX > 0
// off the diagonal; Σ_{j∈words(i), j~f} 1/deg(j) > ½·Σ_{j∈words(i)}
// 1/deg(j)); removals are always allowed; a feature is never flipped twice.
// With PerturbBoth each step applies the better of the best edge flip and
// the best feature flip (the feature on ties, as the reference), both from
// the same budget; later scores see the updated XW.
//
// Targets are attacked independently and in parallel (one goroutine per
// worker, results stored by target index), so the output does not depend on
// GOMAXPROCS.
package nettack
