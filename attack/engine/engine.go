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
// models through their top-k PPR rows (global attacks, any size). PPRGo is the local engine of the PPRGo models: a target's PPR
// row updated in closed form (attack.LocalEngine). New picks the engine of
// a model for global attacks, NewTargeted for targeted ones.
package engine

import (
	"fmt"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/model"
)

// New returns the gradient engine of an attacked model: the analytic GCN
// for "gcn", the GDC engine for models with GDC preprocessing, otherwise
// the autograd Tape (the last two cannot provide all-pairs gradients, which
// dense asks for).
func New(m model.Model, p *data.Problem, dense bool) (attack.Engine, error) {
	if m.Name() == "gcn" {
		return NewGCN(m, p.Features)
	}
	if dense {
		return nil, fmt.Errorf("attack: all-pairs gradients are only available for a gcn (got %s)", m.Name())
	}
	if cfg, ok := model.GDCParams(m); ok {
		if cfg.Eps > 0 {
			return NewPushPPR(m, p)
		}
		return NewGDC(m, p)
	}
	if _, ok := model.PPRGoParams(m); ok {
		return NewPushPPR(m, p)
	}
	return NewTape(m, p)
}

// NewTargeted returns the gradient engine of a targeted attack on m: the
// local engine PPRGo for the PPRGo models (whose rows the global engines
// cannot differentiate), otherwise New(m, p, false).
func NewTargeted(m model.Model, p *data.Problem) (attack.Engine, error) {
	if _, ok := model.PPRGoParams(m); ok {
		return NewPPRGo(m, p)
	}
	return New(m, p, false)
}
