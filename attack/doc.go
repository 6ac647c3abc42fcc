// Package attack implements global structure attacks on node classifiers:
// DICE, FGSM (greedy gradient flips), PGD (Xu et al. 2019), PR-BCD and
// GR-BCD (Geisler et al. 2021), in the transfer protocol of the Soft Medoid
// paper (perturbations computed on a GCN surrogate trained on the clean
// graph, then applied to every victim) and adaptively (gradients through the
// attacked model itself).
//
// # API
//
// The entry point is Run:
//
//	res, err := attack.Run(ctx, attack.Config{Attack: "prbcd", Epsilons: []float64{0.1, 0.25}, Seed: 0,
//		Victims: []attack.Victim{{Name: "gcn", Model: m}}}, problem)
//
// Run trains the surrogate if Config.Surrogate is nil (a GCN with the
// reference surrogate protocol: 64 hidden, dropout 0.5, lr 1e-2, weight
// decay 1e-3, patience 100), computes one perturbation per budget
// round(ε·m) (m = number of undirected edges), and evaluates every victim on
// the clean and on each perturbed graph, with the victim's preprocessing
// recomputed. Result.Budgets[i].Adj is the perturbed adjacency; Save writes
// it in the reference attack format (data.SavePerturbedAdj), which
// `rgnn eval --graph` reads.
//
// # Registry
//
// An attack is one file implementing Attack plus one Spec line in
// builtinSpecs (or a Register call on a Registry from another package).
// The bookkeeping is shared: budgets (Budget), flip validation (symmetric
// pairs u < v, no self loops, no repeats: CheckFlips), applying flips
// (ApplyFlips), the losses (Loss), the projection onto the budget
// (ProjectBudget) and victim evaluation (Run).
//
// # Gradients
//
// Gradient-based attacks talk to an Engine: it evaluates the attacked model
// on a weighted symmetric adjacency and returns ∂loss/∂w_uv for undirected
// pairs {u, v}. GCNEngine is the transfer surrogate: for a 2-layer GCN the
// gradient with respect to the normalised adjacency is the low-rank product
// M·Nᵀ (rank C+h), so the gradient with respect to ANY pair, edge or not,
// costs O(C+h) and the full n×n gradient of FGSM/PGD is formed row-blocked
// without storing it (memory O(n·(C+h))). PR-BCD and GR-BCD only ask for
// the gradients of their block, so their memory is O(edges + block size).
// TapeEngine differentiates any model of package model through its own
// preprocessing via the autograd tape (adaptive attacks): the candidate
// pairs are part of the sparse structure with their relaxed weights.
//
// # Targeted attacks
//
// RunTargeted attacks single target nodes, each on its own from the clean
// graph: Nettack (transfer from its linearised GCN, package nettack) and
// local PR-BCD (LocalPRBCD: PR-BCD over the target's row with the margin
// loss at the target, through any Engine — the victim itself in direct
// mode). Targets are given or chosen with the Nettack protocol; budgets are
// deg(u) + K or round(ε·deg(u)); the result holds every victim's
// probability margin at each target before and after, and per victim the
// mean margin ± s.e. and the failure rate (targets still correct).
// Options.Perturb lets an attack that implements FeatureTargetedAttack
// (nettack) also toggle binary features (FeatureFlip); victims are then
// evaluated on the perturbed graph and the perturbed features.
package attack
