// Package protocol evaluates attacks the way the Soft Medoid paper does:
// victims, the transfer surrogate, budgets, and saving the perturbed
// graphs. The attacks themselves (package attack) only compute flips.
//
// Run is the global protocol:
//
//	res, err := protocol.Run(ctx, protocol.Config{Attack: "prbcd", Epsilons: []float64{0.1, 0.25}, Seed: 0,
//		Victims: []protocol.Victim{{Name: "gcn", Model: m}}}, problem)
//
// Run trains the surrogate if Config.Surrogate is nil (a GCN with the
// reference surrogate protocol: 64 hidden, dropout 0.5, lr 1e-2, weight
// decay 1e-3, patience 100; TrainSurrogate), computes one perturbation per
// budget round(ε·m) (m = number of undirected edges, attack.Budget), and
// evaluates every victim on the clean and on each perturbed graph, with the
// victim's preprocessing recomputed (EvaluateVictim). The attack
// differentiates the surrogate (transfer), the first victim itself
// (Config.Adaptive) or nothing (DICE); poisoning attacks (Metattack) have
// every victim retrained on each perturbed graph (Victim.Train).
// Result.Budgets[i].Adj is the perturbed adjacency; Save writes it in the
// reference attack format (data.SavePerturbedAdj), which `rgnn eval
// --graph` reads.
//
// RunTargeted is the targeted protocol: every target node is attacked on
// its own from the clean graph, by Nettack (transfer from its linearised
// GCN) or local PR-BCD (through the gradient engine of the transfer
// surrogate, or of each victim in direct mode). Targets are given
// (CheckTargets) or chosen with the Nettack protocol; budgets are
// deg(u) + K or round(ε·deg(u)) (TargetedBudget); the result holds every
// victim's probability margin at each target before and after, and per
// victim the mean margin ± s.e. and the failure rate (targets still
// correct). Options.Perturb lets an attack that implements
// attack.FeatureTargetedAttack (nettack) also toggle binary features;
// victims are then evaluated on the perturbed graph and the perturbed
// features.
package protocol
