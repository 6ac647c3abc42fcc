package task

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/rgnn/rgnn/aggregate"
	"github.com/rgnn/rgnn/attack/protocol"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/messages"
	"github.com/rgnn/rgnn/train"
)

// Messages draws the paper's Figure 1: the output-layer messages of one
// target before and after Nettack, with the weighted mean, Medoid and Soft
// Medoid of them (package messages).
type Messages struct {
	Train
	// Target is the node drawn; -1 picks the correctly classified test node
	// of highest degree at most the largest budget, so that the attack can
	// replace a good part of its neighbourhood (lowest id on ties; without
	// one, of highest degree).
	Target int `param:"target" help:"node whose messages are drawn (-1: the correctly classified test node of highest degree up to the largest budget)"`
	// Budgets are the numbers of Nettack's flips shown, one panel each.
	Budgets []float64 `param:"budgets" help:"numbers of Nettack flips shown, one panel each (comma-separated; the paper: 17, 29, 50)"`
	// EstimateTemperature is the Soft Medoid estimate's T.
	EstimateTemperature float64 `param:"estimate_temperature" help:"temperature T of the Soft Medoid estimate drawn"`
	// AttackSeed seeds Nettack.
	AttackSeed int `param:"attack_seed" flag:"-" help:"seed of the attack's randomness (and of its surrogate)"`
}

// Defaults returns the spec with every parameter at its default: a GCN,
// the paper's budgets 17, 29 and 50.
func (Messages) Defaults() Messages {
	return Messages{Train: Train{}.Defaults(), Target: -1, Budgets: []float64{17, 29, 50}, EstimateTemperature: aggregate.DefaultTemperature}
}

// Validate checks every parameter.
func (s Messages) Validate() error {
	if err := s.Train.Validate(); err != nil {
		return err
	}
	if s.Target < -1 {
		return bad("target", s.Target, "must be a node id, or -1 for the automatic choice")
	}
	if len(s.Budgets) == 0 {
		return bad("budgets", Format(s.Budgets), "need at least one")
	}
	for _, b := range s.Budgets {
		if b < 0 || b != math.Trunc(b) || b > 1e6 {
			return bad("budgets", Format(s.Budgets), "must be whole numbers of flips ≥ 0")
		}
	}
	if !(s.EstimateTemperature > 0) || math.IsInf(s.EstimateTemperature, 0) {
		return bad("estimate_temperature", s.EstimateTemperature, "must be a positive finite number")
	}
	return validSeed("attack_seed", s.AttackSeed)
}

// Run attacks the target of s (its incident edges, Nettack, as many flips
// as the largest budget) and draws the figure of t, the trained model of s
// on p. Budgets beyond the flips Nettack made are drawn at its last flip.
func (s Messages) Run(ctx context.Context, p *data.Problem, t *Trained) (*messages.Figure, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	target := s.Target
	if target < 0 {
		var err error
		if target, err = highestDegreeCorrect(t, p, int(slices.Max(s.Budgets))); err != nil {
			return nil, err
		}
	} else if target >= p.NumNodes() {
		return nil, bad("target", s.Target, "not a node (the graph has %d)", p.NumNodes())
	}
	deg := degree(p, target)
	maxB := int(slices.Max(s.Budgets))
	var flips [][2]int
	if maxB > 0 {
		cfg := protocol.TargetedConfig{Attack: "nettack", Targets: []int{target},
			Budget: protocol.TargetedBudget{Epsilons: []float64{float64(maxB) / float64(max(deg, 1))}},
			Seed:   uint64(s.AttackSeed), Victims: []protocol.Victim{{Name: t.Name(), Model: t.Model}}}
		res, err := protocol.RunTargeted(ctx, cfg, p)
		if err != nil {
			return nil, fmt.Errorf("nettack on node %d: %w", target, err)
		}
		if len(res.Rows) == 1 {
			flips = res.Rows[0].Victims[0].Flips
		}
	}
	var budgets []int
	for _, b := range s.Budgets {
		budgets = append(budgets, min(int(b), len(flips)))
	}
	return messages.Compute(t.Model, p, target, flips, budgets, s.EstimateTemperature)
}

// highestDegreeCorrect is the correctly classified test node of highest
// degree at most limit (lowest id on ties), or of highest degree if none
// is that small.
func highestDegreeCorrect(t *Trained, p *data.Problem, limit int) (int, error) {
	pred, err := train.Classify(t.Model, p.Adj, p.Features, p.X)
	if err != nil {
		return 0, err
	}
	best, bestDeg, any, anyDeg := -1, -1, -1, -1
	for _, v := range p.Test {
		if int(pred[v]) != int(p.Labels[v]) {
			continue
		}
		d := degree(p, v)
		if d > anyDeg || d == anyDeg && v < any {
			any, anyDeg = v, d
		}
		if d <= limit && (d > bestDeg || d == bestDeg && v < best) {
			best, bestDeg = v, d
		}
	}
	if best < 0 {
		best = any
	}
	if best < 0 {
		return 0, fmt.Errorf("no correctly classified test node to draw")
	}
	return best, nil
}

func degree(p *data.Problem, v int) int {
	lo, hi := p.Adj.RowRange(v)
	return hi - lo
}
