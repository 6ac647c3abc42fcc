package attack

import (
	"context"
	"fmt"

	"github.com/rgnn/rgnn/data"
)

// TargetBudget is one targeted job: misclassify Node with at most Budget
// flips.
type TargetBudget struct {
	Node   int `json:"node"`
	Budget int `json:"budget"`
}

// TargetEnv is what a targeted attack sees.
type TargetEnv struct {
	Problem *data.Problem
	// NewEngine returns a gradient engine of the attacked model (nil for
	// attacks without gradients). With Workers > 1 it is called once per
	// worker and the engines it returns must be independent.
	NewEngine func() (Engine, error)
	// Workers bounds the targets attacked at the same time (≤ 1: one).
	Workers int
	Loss    Loss
	Seed    uint64
	// Progress, if set, reports finished jobs (never concurrently).
	Progress func(done, total int)
}

// TargetedAttack perturbs the graph around single target nodes; every
// job is attacked on its own, starting from the clean graph.
type TargetedAttack interface {
	// PerturbTargets returns, for each job, at most job.Budget flips.
	PerturbTargets(ctx context.Context, env *TargetEnv, jobs []TargetBudget) ([][]Flip, error)
}

// errTargeted is the global constructor of a targeted attack.
func errTargeted(name string) func(Options) (Attack, error) {
	return func(Options) (Attack, error) {
		return nil, fmt.Errorf("attack %s is targeted: run it on target nodes (protocol.RunTargeted, rgnn attack --targets)", name)
	}
}
