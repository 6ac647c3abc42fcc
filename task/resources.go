package task

import (
	"fmt"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/internal/memlimit"
)

// modelBytes estimates from below the memory one model of m needs on p in
// training: its parameters (d×h + h×c) five times over (values, gradients,
// Adam's two moments, the best weights kept) and four n×h activations
// (forward, dropout, backward).
func (m Model) modelBytes(p *data.Problem) float64 {
	h, d, n, c := float64(m.Hidden), float64(p.Features.Cols), float64(p.NumNodes()), float64(p.NumClasses)
	return 4 * (5*(d*h+h*c) + 4*n*h)
}

// checkMemory refuses, before anything is allocated, copies models of m on
// p whose estimated memory (modelBytes) exceeds what the process may use
// (memlimit.Available: GOMEMLIMIT, else 90% of the machine's memory) —
// instead of dying with the runtime's out-of-memory trace. The error names
// param, the parameter to lower (hidden, or workers for per-worker copies).
func (m Model) checkMemory(p *data.Problem, copies int, param string, value any) error {
	limit := memlimit.Available()
	need := float64(copies) * m.modelBytes(p)
	if limit <= 0 || need <= float64(limit) {
		return nil
	}
	per := ""
	if copies > 1 {
		per = fmt.Sprintf(" (%d copies of the model, one per sampling worker and the trained one)", copies)
	}
	return bad(param, value, "%s with %d hidden units on %d nodes × %d features needs at least %s%s, more than the "+
		"%s of memory this process may use (GOMEMLIMIT, by default 90%% of the machine's memory)",
		m.Model, m.Hidden, p.NumNodes(), p.Features.Cols, gib(need), per, gib(float64(limit)))
}

func gib(b float64) string {
	if b >= 1<<40 {
		return fmt.Sprintf("%.1f TiB", b/(1<<40))
	}
	return fmt.Sprintf("%.1f GiB", b/(1<<30))
}
