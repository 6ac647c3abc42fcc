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
