package engine_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/engine"
	"github.com/rgnn/rgnn/attack/internal/attacktest"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
	"github.com/rgnn/rgnn/train"
)

// trainedPPRGo is a PPRGo model (k = 8, hidden 8) trained 30 epochs on p.
func trainedPPRGo(t *testing.T, p *data.Problem, name string) model.Model {
	t.Helper()
	m, err := model.Default(attacktest.Aggregators).New(name, p.Features.Cols, p.NumClasses,
		model.Options{Seed: 1, Hidden: 8, K: 8, Temperature: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.Preprocess(p.Adj, p.Features)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := train.Fit(context.Background(), m, g, p, train.Config{Seed: 1, MaxEpochs: 30, Patience: 30}); err != nil {
		t.Fatal(err)
	}
	return m
}

var pprgoModels = []string{"pprgo", "softmedian_pprgo"}

// On the clean graph (no pairs, or pairs at their clean weights) the
// engine's logits are the model's; Evaluate on a perturbed graph gives
// the model's logits with the target's row pushed on that graph.
func TestPPRGoEngineMatchesModel(t *testing.T) {
	p := attacktest.SmallProblem(t, 40, 3)
	ce := attacktest.MustLoss(t, "ce")
	for _, name := range pprgoModels {
		m := trainedPPRGo(t, p, name)
		e, err := engine.NewPPRGo(m, p)
		if err != nil {
			t.Fatal(err)
		}
		g, err := m.Preprocess(p.Adj, p.Features)
		if err != nil {
			t.Fatal(err)
		}
		want := train.Predict(m, g, p.X)
		for _, u := range p.Test[:8] {
			for _, withPairs := range []bool{false, true} {
				var v []int32
				var w []float32
				if withPairs {
					for _, o := range []int{(u + 1) % 40, (u + 5) % 40} {
						v = append(v, int32(o))
						w = append(w, map[bool]float32{true: 1, false: 0}[hasEdge(p.Adj, u, o)])
					}
				}
				ev, err := e.EvaluateLocal(u, p.Labels[u], v, w, ce, nil)
				if err != nil {
					t.Fatal(err)
				}
				for c, x := range want.Row(u) {
					if d := math.Abs(float64(x - ev.Logits[c])); d > 1e-4*(1+math.Abs(float64(x))) {
						t.Fatalf("%s u=%d class %d: engine %v, model %v", name, u, c, ev.Logits[c], x)
					}
				}
			}
		}
		// a perturbed graph: Evaluate pushes the target's row on it
		u := p.Test[0]
		flips := []attack.Flip{{U: int32(min(u, 3)), V: int32(max(u, 3))}}
		if u == 3 {
			flips[0] = attack.Flip{U: 3, V: 4}
		}
		adj, err := attack.ApplyFlips(p.Adj, flips)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.Evaluate(adj, ce, []int{u}, p.Labels, false)
		if err != nil {
			t.Fatal(err)
		}
		np := m.(model.NodePreprocessor)
		pg, err := np.PreprocessNodes(adj, p.Features, []int{u})
		if err != nil {
			t.Fatal(err)
		}
		logits := np.ForwardNodes(autograd.NoGrad(), pg, p.X, []int{0}, model.Mode{}).Value
		wantLoss := ce(logits, []int{0}, []int32{p.Labels[u]}, tensor.NewDense(1, logits.Cols))
		if math.Abs(got.Loss-wantLoss) > 1e-4 {
			t.Errorf("%s: Evaluate loss %v, model %v", name, got.Loss, wantLoss)
		}
	}
}

func hasEdge(a *tensor.CSR, u, v int) bool {
	k, ok := a.Find(u, v)
	return ok && a.Values[k] != 0
}

// ∂loss/∂w from EvaluateLocal against central differences, for edges and
// non-edges of the target, both models, two losses.
func TestPPRGoEngineGradFD(t *testing.T) {
	p := attacktest.SmallProblem(t, 40, 4)
	for _, name := range pprgoModels {
		m := trainedPPRGo(t, p, name)
		e, err := engine.NewPPRGo(m, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, lossName := range []string{"ce", "margin"} {
			loss := attacktest.MustLoss(t, lossName)
			for _, u := range p.Test[:4] {
				var v []int32
				var w []float32
				for o := 0; o < 40 && len(v) < 10; o += 3 {
					if o != u {
						v = append(v, int32(o))
						w = append(w, 0.25+0.5*float32((o*7)%10)/10)
					}
				}
				grad := make([]float32, len(v))
				if _, err := e.EvaluateLocal(u, p.Labels[u], v, w, loss, grad); err != nil {
					t.Fatal(err)
				}
				var norm float64
				for _, g := range grad {
					norm = max(norm, math.Abs(float64(g)))
				}
				if norm < 1e-3 {
					t.Errorf("%s %s u=%d: gradients %v", name, lossName, u, grad)
				}
				const h = 1e-3
				bad := 0
				for c := range w {
					at := func(x float32) float64 {
						ww := append([]float32(nil), w...)
						ww[c] = x
						ev, err := e.EvaluateLocal(u, p.Labels[u], v, ww, loss, nil)
						if err != nil {
							t.Fatal(err)
						}
						return ev.Loss
					}
					fd := (at(w[c]+h) - at(w[c]-h)) / (2 * h)
					if math.Abs(fd-float64(grad[c])) > 2e-3*math.Max(1, math.Abs(fd))+1e-3 {
						bad++
						t.Logf("%s %s u=%d pair %d: grad %.6g, differences %.6g", name, lossName, u, v[c], grad[c], fd)
					}
				}
				// the Soft Median's dimension-wise median moves in steps:
				// allow one pair across a step
				if bad > 0 && (name == "pprgo" || bad > 1) {
					t.Errorf("%s %s u=%d: %d of %d gradients off", name, lossName, u, bad, len(w))
				}
			}
		}
	}
}

// Bad input is an error: another model, a target or label outside the
// graph, a whole-graph gradient, mismatched lengths; New (global attacks)
// gives PPRGo the push engine.
func TestPPRGoEngineErrors(t *testing.T) {
	p := attacktest.SmallProblem(t, 20, 5)
	if _, err := engine.NewPPRGo(attacktest.RandomGCN(t, p, 1), p); err == nil || !strings.Contains(err.Error(), "PPRGo model") {
		t.Errorf("gcn: %v", err)
	}
	m := trainedPPRGo(t, p, "pprgo")
	if e, err := engine.New(m, p, false); err != nil {
		t.Errorf("New(pprgo): %v", err)
	} else if _, ok := e.(*engine.PushPPR); !ok {
		t.Errorf("New(pprgo) gave %T, want the push engine of global attacks", e)
	}
	e, err := engine.NewTargeted(m, p)
	if err != nil {
		t.Fatal(err)
	}
	le := e.(attack.LocalEngine)
	ce := attacktest.MustLoss(t, "ce")
	for name, f := range map[string]func() error{
		"target": func() error { _, err := le.EvaluateLocal(20, 0, nil, nil, ce, nil); return err },
		"label":  func() error { _, err := le.EvaluateLocal(0, 9, nil, nil, ce, nil); return err },
		"pair":   func() error { _, err := le.EvaluateLocal(0, 0, []int32{0}, []float32{1}, ce, nil); return err },
		"grad": func() error {
			_, err := le.EvaluateLocal(0, 0, []int32{1}, []float32{1}, ce, make([]float32, 2))
			return err
		},
		"whole": func() error { _, err := le.Evaluate(p.Adj, ce, []int{0}, p.Labels, true); return err },
		"pairs": func() error { return le.PairGrad([]attack.Flip{{U: 0, V: 1}}, make([]float32, 1)) },
	} {
		if f() == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// Local PR-BCD through the PPRGo engine: a target outside the graph, a
// negative budget and a budget above the target's n − 1 pairs are errors.
func TestLocalPRBCDPPRGoBadJobs(t *testing.T) {
	p := attacktest.SmallProblem(t, 20, 6)
	m := trainedPPRGo(t, p, "pprgo")
	e, err := engine.NewTargeted(m, p)
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := attack.Default().Lookup("local_prbcd")
	a, err := spec.NewTargeted(attack.Options{Epochs: 5})
	if err != nil {
		t.Fatal(err)
	}
	env := &attack.TargetEnv{Problem: p, Loss: attacktest.MustLoss(t, "margin"), Workers: 1,
		NewEngine: func() (attack.Engine, error) { return e, nil }}
	for _, job := range []attack.TargetBudget{{Node: -1, Budget: 1}, {Node: 20, Budget: 1}, {Node: 3, Budget: -1}, {Node: 3, Budget: 20}} {
		if _, err := a.PerturbTargets(context.Background(), env, []attack.TargetBudget{job}); err == nil {
			t.Errorf("job %+v: no error", job)
		}
	}
	if f, err := a.PerturbTargets(context.Background(), env, []attack.TargetBudget{{Node: 3, Budget: 2}}); err != nil || len(f[0]) > 2 {
		t.Errorf("a good job: %v %v", f, err)
	}
}
