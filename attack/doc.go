// Package attack holds the structure attacks on node classifiers and their
// vocabulary: global DICE, FGSM (greedy gradient flips), PGD (Xu et al.
// 2019), PR-BCD and GR-BCD (Geisler et al. 2021), Metattack (poisoning,
// an adapter over package attack/metattack), and the targeted local PR-BCD
// and Nettack (an adapter over package attack/nettack). Each attack is one
// file; the protocol that evaluates them (victims, surrogate, budgets,
// saving) is package attack/protocol, the gradient engines they
// differentiate are in package attack/engine.
//
// # Registry
//
// An attack is one file implementing Attack (or TargetedAttack) plus one
// Spec line in builtinSpecs (or a Register call on a Registry from another
// package); the Spec says what the attack needs (gradients, all-pairs
// gradients, a loss, retrained victims). The bookkeeping is shared:
// budgets (Budget), flip validation (symmetric pairs u < v, no self loops,
// no repeats: CheckFlips), applying flips (ApplyFlips, ApplyFeatureFlips),
// the losses (Loss, LossByName), the relaxed perturbed graph (Perturbed)
// and the projection onto the budget (ProjectBudget).
//
// # Gradients
//
// Gradient-based attacks talk to an Engine: it evaluates the attacked model
// on a weighted symmetric adjacency and returns ∂loss/∂w_uv for undirected
// pairs {u, v}. A DenseEngine also streams the gradients of all pairs row
// by row (FGSM, PGD). PR-BCD and GR-BCD only ask for the gradients of their
// block, so their memory is O(edges + block size). The attacks never see
// which model is behind the Engine: the analytic GCN surrogate, the
// autograd tape of an adaptive attack or the exact GDC engine (package
// attack/engine).
//
// # Targeted attacks
//
// A TargetedAttack perturbs the graph around single target nodes, every job
// (TargetBudget: node and budget) on its own from the clean graph:
// Nettack (transfer from its linearised GCN) and LocalPRBCD (PR-BCD over the
// target's row with the margin loss at the target, through any Engine).
// Options.Perturb lets an attack that implements FeatureTargetedAttack
// (nettack) also toggle binary features (FeatureFlip).
package attack
