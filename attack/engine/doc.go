// Package engine holds the gradient engines of the attacks: each evaluates
// an attacked model on a weighted symmetric adjacency and returns the
// gradient of the attack loss with respect to undirected pair weights
// (attack.Engine).
//
// GCN is the transfer surrogate: for a 2-layer GCN the gradient with
// respect to the normalised adjacency is the low-rank product M·Nᵀ (rank
// C+h), so the gradient with respect to ANY pair, edge or not, costs O(C+h)
// and the full n×n gradient of FGSM/PGD is formed row-blocked without
// storing it (memory O(n·(C+h)), attack.DenseEngine). Tape differentiates
// any model with plain gcn_norm preprocessing through its own
// preprocessing via the autograd tape (adaptive attacks): the candidate
// pairs are part of the sparse structure with their relaxed weights. GDC
// differentiates models with GDC preprocessing through the exact dense
// diffusion, PushPPR those with the push approximation and the PPRGo
// models through their top-k PPR rows (global attacks, any size). PPRGo is
// the local engine of the PPRGo models: a target's PPR row updated in
// closed form (attack.LocalEngine). New picks the engine of a model for
// global attacks, NewTargeted for targeted ones.
//
// # Speed and memory
//
// GCN streams the all-pairs gradient of FGSM and PGD in 4×16 register tiles
// (AVX2+FMA, lowrank_amd64.s; the archsimd build's tiles give the same
// bits, TestTileBitsMatchSIMDBuild), reduced per row: 570M multiply-adds on
// cora_ml at the FMA ceiling, nothing of size n². ScanPairsRaw leaves the
// per-node terms to the caller, so PR-BCD adds them to its block's entries
// only. Above LargeGraphNodes (23,170 nodes: 2^28 pairs, the limit of
// package attack's block bitmap) the degree terms are computed in propagated form,
// one more propagation instead of a 2(C+h)-long dot product per stored
// entry, and block gradients are per-pair dot products asked for in row
// order. Memory at arXiv's size is the graph and ≈ 1,300 floats per node;
// at Products' size about 13 GB.
//
// GDC forms S densely: three n×n float32 matrices (95 MB on cora_ml),
// refused above 20,000 nodes. PushPPR's backward reads only G's rows, never
// Gᵀ's: a hub's column of G is as long as the number of top-k rows it is
// in, and reading Gᵀ made the backward nearly twice as slow at arXiv's
// size. Entries of weight ≤ 10·eps stay out of the diffusion (they move the
// PPR less than the push's own error; early in an attack at arXiv's size
// they are half of the block's million pairs) but keep their gradients. At
// that size an epoch is mostly the push of the perturbed graph, whose work
// grows like 1/eps, so SetEps lets an attack push coarser than the model
// (on cora_ml at 1e-3 against 1e-4 the loss stays within 2% and the
// gradient's cosine above 0.9, TestPushPPRSetEps; at arXiv size 2e-4
// halves the epoch with the same attacked accuracy).
package engine
