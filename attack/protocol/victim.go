package protocol

import (
	"context"
	"fmt"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/nettack"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
	"github.com/rgnn/rgnn/train"
)

// Victim is a trained model evaluated on the clean and perturbed graphs.
type Victim struct {
	Name  string // label in the results (e.g. "sm_gdc_T0.5")
	Model model.Model
	// Train trains a fresh copy of the victim from scratch on adj (same
	// protocol and seed as Model); needed by poisoning attacks.
	Train func(ctx context.Context, adj *tensor.CSR) (model.Model, error)
}

// Evaluation is a victim's test accuracy on a graph and, when its logits
// there are NaN by the reference's own arithmetic, why
// (model.Graph.ReferenceNaN; the accuracy is then the reference's, every
// node predicted class 0).
type Evaluation struct {
	Accuracy float64
	NaN      string
}

// Evaluate returns m's test accuracy on adj (preprocessing recomputed).
// Non-finite logits are an error unless the graph makes them NaN in the
// reference too (Evaluation.NaN says so).
func Evaluate(m model.Model, p *data.Problem, adj *tensor.CSR) (Evaluation, error) {
	logits, g, err := predict(m, adj, p.Features, p.X)
	if err != nil {
		return Evaluation{}, err
	}
	var why string
	if err := g.CheckLogits(m.Name(), logits); err != nil {
		if why = g.ReferenceNaN(); why == "" {
			return Evaluation{}, err
		}
	}
	return Evaluation{Accuracy: train.Accuracy(logits, p.Labels, p.Test), NaN: why}, nil
}

// EvaluateVictim is Evaluate's accuracy.
func EvaluateVictim(m model.Model, p *data.Problem, adj *tensor.CSR) (float64, error) {
	e, err := Evaluate(m, p, adj)
	return e.Accuracy, err
}

// victimMargins is the probability margin of m at every node on adj.
func victimMargins(m model.Model, p *data.Problem, adj *tensor.CSR) ([]float64, error) {
	return victimMarginsX(m, p, adj, p.Features)
}

// victimMarginsX is victimMargins with features x (p.Features or a
// perturbed copy): the model's preprocessing (e.g. Jaccard) sees x too.
func victimMarginsX(m model.Model, p *data.Problem, adj, x *tensor.CSR) ([]float64, error) {
	xs := p.X
	if x != p.Features {
		xs = autograd.NewSparse(x)
	}
	logits, g, err := predict(m, adj, x, xs)
	if err != nil {
		return nil, err
	}
	if err := g.CheckLogits(m.Name(), logits); err != nil {
		return nil, err // NaN as the reference's too: no margin to report
	}
	return nettack.ProbMargins(logits, p.Labels), nil
}

// predict returns m's logits on adj with features x (xs: x as an operand)
// and the graph its preprocessing made: its preprocessing and forward
// pass, or, for a model outside rgnn (model.Outside), the logits its
// process sends (and a nil graph).
func predict(m model.Model, adj, x *tensor.CSR, xs *autograd.Sparse) (*tensor.Dense, *model.Graph, error) {
	if o, ok := m.(model.Outside); ok {
		logits, err := o.Logits(adj, x)
		return logits, nil, err
	}
	g, err := m.Preprocess(adj, x)
	if err != nil {
		return nil, nil, err
	}
	return train.Predict(m, g, xs), g, nil
}

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
func victimAccuracy(ctx context.Context, spec attack.Spec, v Victim, p *data.Problem, adj *tensor.CSR) (Evaluation, error) {
	if !spec.Poisoning {
		return Evaluate(v.Model, p, adj)
	}
	m, err := v.Train(ctx, adj)
	if err != nil {
		return Evaluation{}, fmt.Errorf("retraining on the perturbed graph: %w", err)
	}
	return Evaluate(m, p, adj)
}
