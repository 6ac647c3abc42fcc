package protocol

import (
	"context"
	"fmt"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/tensor"
)

// checkPoisoning reports victims a poisoning attack cannot retrain.
func checkPoisoning(spec attack.Spec, victims []Victim) error {
	if !spec.Poisoning {
		return nil
	}
	for _, v := range victims {
		if v.Train == nil {
			return fmt.Errorf("attack %s is a poisoning attack: victim %s needs a Train function", spec.Name, v.Name)
		}
	}
	return nil
}

// victimAccuracy is a victim's test accuracy on the perturbed graph adj:
// evasion evaluates the trained model (preprocessing recomputed),
// poisoning trains a fresh model from scratch on adj first.
func victimAccuracy(ctx context.Context, spec attack.Spec, v Victim, p *data.Problem, adj *tensor.CSR) (float64, error) {
	if !spec.Poisoning {
		return EvaluateVictim(v.Model, p, adj)
	}
	m, err := v.Train(ctx, adj)
	if err != nil {
		return 0, fmt.Errorf("retraining on the perturbed graph: %w", err)
	}
	return EvaluateVictim(m, p, adj)
}
