package task

import (
	"math"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/attack/engine"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

// TestModelFactsAreTrue checks the registry's facts against the models:
// Differentiable exactly when a direct attack gets a gradient engine for
// it, a GDCVariant and a Row that name registered models, and a label and
// table position for every model.
func TestModelFactsAreTrue(t *testing.T) {
	p := tinyProblem(t)
	reg := Models()
	orders := map[int]string{}
	for _, s := range reg.Specs() {
		if s.Label == "" {
			t.Errorf("%s: no label", s.Name)
		}
		if o, dup := orders[s.Order]; dup {
			t.Errorf("%s and %s share table position %d", s.Name, o, s.Order)
		}
		orders[s.Order] = s.Name
		for _, ref := range []string{s.GDCVariant, s.Row} {
			if _, ok := reg.Lookup(ref); ref != "" && !ok {
				t.Errorf("%s names unknown model %q", s.Name, ref)
			}
		}
		if s.External {
			// Started from its command by package task, never built here;
			// nothing differentiates it.
			if _, err := reg.New(s.Name, p.Features.Cols, p.NumClasses, model.Options{}); err == nil || s.Differentiable || s.MiniBatch {
				t.Errorf("%s: external, but buildable (%v) or Differentiable/MiniBatch", s.Name, err)
			}
			continue
		}
		m, err := reg.New(s.Name, p.Features.Cols, p.NumClasses, model.Options{Hidden: 8, K: 4})
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		_, err = engine.New(m, p, false)
		if (err == nil) != s.Differentiable {
			t.Errorf("%s: Differentiable %v, but engine.New gives %v", s.Name, s.Differentiable, err)
		}
		if _, isGDC := model.GDCParams(m); isGDC != s.Uses.Diffusion {
			t.Errorf("%s: Uses.Diffusion %v, but the model's preprocessing is GDC: %v", s.Name, s.Uses.Diffusion, isGDC)
		}
	}
}

// tinyProblem is a 6-node, 2-class problem.
func tinyProblem(t *testing.T) *data.Problem {
	t.Helper()
	var es []tensor.Entry
	for _, e := range [][2]int32{{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5}, {5, 3}, {2, 3}} {
		es = append(es, tensor.Entry{Row: e[0], Col: e[1], Val: 1}, tensor.Entry{Row: e[1], Col: e[0], Val: 1})
	}
	adj, err := tensor.FromCOO(6, 6, es)
	if err != nil {
		t.Fatal(err)
	}
	var fs []tensor.Entry
	for i := range 6 {
		fs = append(fs, tensor.Entry{Row: int32(i), Col: int32(i % 3), Val: 1})
	}
	x, err := tensor.FromCOO(6, 3, fs)
	if err != nil {
		t.Fatal(err)
	}
	p := &data.Problem{Name: "tiny", Adj: adj, Features: x, Labels: []int32{0, 0, 0, 1, 1, 1}, NumClasses: 2,
		Train: []int{0, 3}, Val: []int{1, 4}, Test: []int{2, 5}}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

// A k above the number of nodes selects whole rows: the model is the same
// as with k = n (clamped, so nothing is sized by the huge k).
func TestHugeKIsClamped(t *testing.T) {
	p := tinyProblem(t)
	for _, name := range []string{"sm_gcn", "sm_gdc"} {
		var logits []float32
		for _, k := range []int{p.NumNodes(), 1_000_000} {
			m := Model{Model: name, Temperature: 1, K: k, Hidden: 4}
			tr, err := NewModel(m, p, 1)
			if err != nil {
				t.Fatalf("%s k=%d: %v", name, k, err)
			}
			g, err := tr.Model.Preprocess(p.Adj, p.Features)
			if err != nil {
				t.Fatal(err)
			}
			out := tr.Model.Forward(autograd.NoGrad(), g, p.X, model.Mode{}).Value.Data
			if logits == nil {
				logits = append([]float32(nil), out...)
				continue
			}
			for i := range out {
				if out[i] != logits[i] {
					t.Fatalf("%s: k=1e6 gives %v, k=n %v", name, out[i], logits[i])
				}
			}
		}
	}
}

// engine_ppr_eps is a push error for adaptive attacks only.
func TestAttackEnginePPREpsValidated(t *testing.T) {
	a := Attack{}.Defaults()
	a.Attack, a.Epsilons = "prbcd", []float64{0.1}
	a.Model.Model = "sm_gdc"
	for _, c := range []struct {
		eps      float64
		adaptive bool
		ok       bool
	}{{0, false, true}, {5e-4, true, true}, {5e-4, false, false}, {-1e-4, true, false}, {math.NaN(), true, false}, {math.Inf(1), true, false}} {
		a.EnginePPREps, a.Adaptive = c.eps, c.adaptive
		err := a.Validate()
		if (err == nil) != c.ok {
			t.Errorf("engine_ppr_eps %v adaptive %v: error %v, want ok %v", c.eps, c.adaptive, err, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "engine_ppr_eps") {
			t.Errorf("error %q does not name engine_ppr_eps", err)
		}
	}
}
