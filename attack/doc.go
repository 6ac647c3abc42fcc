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
//
// # Block attacks at any size
//
// PR-BCD and GR-BCD draw their block by linear index over the upper
// triangle (the reference's sampling); nothing on their path is of size n².
// The block's membership set (pairSet) is a bitmap over all pairs up to
// 2^28 of them (about 23,000 nodes, every dataset of the paper, whose flips
// stay pinned bit for bit), above that an open-addressing hash set of the
// block's indices (16 MB for a block of 1e6 on any n; the bitmap of an
// arXiv-sized graph was 1.8 GB and was cloned whenever PR-BCD kept a best
// block). An epoch's perturbed graph is the clean CSR merged row by row
// with the block's sorted entries (O(edges + block), the same bits as
// sorting them all).
//
// The serial parts of an epoch run in parallel with the same results. The
// budget projection sums only to compare with the budget (the sign picks
// the half of the bracket), so ProjectBudget sums in any order — chunks in
// parallel, four AVX2 running sums each (clampsum_amd64.s) — and a sum
// further than the error bound of reordering (2γ·Σt, γ ≈ m·u, taken twice)
// from the budget has the ordered sum's sign; only a near tie is summed
// again in order (TestProjectBudgetSameBitsAsBranchy, the pinned flips of
// TestCoraBlockAttacksPinned). The block resamples in place (chunks
// compacted in parallel, dropped pairs' bits cleared atomically), draws
// come straight from the PCG (math/rand/v2's Int64N numbers) and are tested
// and set without a branch while a helper fills in the new entries, and the
// block's row sorts count and place on every worker in chunk order.
// Together they took a direct PR-BCD epoch on cora_ml from ~65 to ~35 ms
// with byte-identical perturbed graphs.
package attack
