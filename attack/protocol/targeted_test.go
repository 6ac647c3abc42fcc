package protocol

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/internal/attacktest"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/train"
)

// trainedSmall trains a model on the small problem (a few epochs).
func trainedSmall(t *testing.T, p *data.Problem, name string, seed uint64) model.Model {
	t.Helper()
	m, err := model.Default(attacktest.Aggregators).New(name, p.Features.Cols, p.NumClasses, model.Options{Seed: seed, Hidden: 8, K: 8})
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.Preprocess(p.Adj, p.Features)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := train.Fit(context.Background(), m, g, p,
		train.Config{Seed: seed, MaxEpochs: 100, Patience: 100}); err != nil {
		t.Fatal(err)
	}
	return m
}

// Local PR-BCD on the GCN itself: every flip touches the target, the
// budget holds, the margin at the target never rises, and it falls for
// most targets; the flips do not depend on the number of workers.
func TestLocalPRBCDDirectGCN(t *testing.T) {
	p := attacktest.SmallProblem(t, 40, 7)
	m := trainedSmall(t, p, "gcn", 1)
	targets := p.Test[:6]
	var prev *TargetedResult
	for _, workers := range []int{1, 2} {
		res, err := RunTargeted(context.Background(), TargetedConfig{Attack: "local_prbcd", Targets: targets,
			Budget: TargetedBudget{Plus: 2}, Seed: 3, Direct: true, Workers: workers,
			Options: attack.Options{Epochs: 60, FineTuneEpochs: 20}, Victims: []Victim{{Name: "gcn", Model: m}}}, p)
		if err != nil {
			t.Fatal(err)
		}
		if res.Mode != "direct" || len(res.Rows) != len(targets) || len(res.Summary) != 1 {
			t.Fatalf("mode %s, %d rows, %d summaries", res.Mode, len(res.Rows), len(res.Summary))
		}
		lower := 0
		for _, r := range res.Rows {
			v := r.Victims[0]
			if len(v.Flips) > r.Budget || r.Budget != r.Degree+2 {
				t.Fatalf("target %d: %d flips, budget %d, degree %d", r.Target, len(v.Flips), r.Budget, r.Degree)
			}
			for _, f := range v.Flips {
				if f[0] != r.Target && f[1] != r.Target {
					t.Fatalf("target %d: flip %v does not touch it", r.Target, f)
				}
			}
			if v.Margin > v.CleanMargin+1e-6 {
				t.Errorf("target %d: margin rose %.4f → %.4f", r.Target, v.CleanMargin, v.Margin)
			}
			if v.Margin < v.CleanMargin-1e-3 {
				lower++
			}
		}
		if lower < len(targets)/2 {
			t.Errorf("only %d of %d margins fell", lower, len(targets))
		}
		if prev != nil && !reflect.DeepEqual(prev.Rows, res.Rows) {
			t.Fatalf("workers 1 and 2 differ:\n%+v\n%+v", prev.Rows, res.Rows)
		}
		prev = res
		t.Logf("workers %d: %+v", workers, res.Summary[0])
	}
}

// Through the autograd tape (Soft Medoid GCN): local PR-BCD works on any
// model with plain gcn_norm and, through the GDC engine, on Soft Medoid GDC;
// victims without an engine (SVD) are refused with a clear error.
func TestLocalPRBCDDirectSoftMedoid(t *testing.T) {
	p := attacktest.SmallProblem(t, 30, 8)
	m := trainedSmall(t, p, "sm_gcn", 2)
	res, err := RunTargeted(context.Background(), TargetedConfig{Attack: "local_prbcd", Targets: p.Test[:3],
		Budget: TargetedBudget{Epsilons: []float64{0.5, 1}}, Seed: 1, Direct: true,
		Options: attack.Options{Epochs: 20, FineTuneEpochs: 5}, Victims: []Victim{{Name: "sm_gcn", Model: m}}}, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rows {
		v := r.Victims[0]
		if len(v.Flips) > r.Budget || v.Margin > v.CleanMargin+1e-6 {
			t.Fatalf("target %d ε %v: %d flips for budget %d, margin %.4f → %.4f", r.Target, r.Epsilon, len(v.Flips), r.Budget, v.CleanMargin, v.Margin)
		}
	}
	// Soft Medoid GDC goes through the GDC engine (exact dense PPR).
	gdc, err := model.Default(attacktest.Aggregators).New("sm_gdc", p.Features.Cols, p.NumClasses, model.Options{Seed: 1, Hidden: 8, K: 8})
	if err != nil {
		t.Fatal(err)
	}
	res, err = RunTargeted(context.Background(), TargetedConfig{Attack: "local_prbcd", Targets: p.Test[:1], Budget: TargetedBudget{Plus: 2},
		Direct: true, Options: attack.Options{Epochs: 5}, Victims: []Victim{{Name: "sm_gcn", Model: m}, {Name: "sm_gdc", Model: gdc}}}, p)
	if err != nil {
		t.Fatalf("sm_gdc direct: %v", err)
	}
	for _, r := range res.Rows {
		for _, v := range r.Victims {
			if len(v.Flips) > r.Budget || v.Margin > v.CleanMargin+1e-6 {
				t.Fatalf("%s target %d: %d flips for budget %d, margin %.4f → %.4f", v.Name, r.Target, len(v.Flips), r.Budget, v.CleanMargin, v.Margin)
			}
		}
	}
	// A model without a gradient engine (SVD preprocessing) is refused by name before any work.
	svd, err := model.Default(attacktest.Aggregators).New("svd_gcn", p.Features.Cols, p.NumClasses, model.Options{Seed: 1, Hidden: 8})
	if err != nil {
		t.Fatal(err)
	}
	_, err = RunTargeted(context.Background(), TargetedConfig{Attack: "local_prbcd", Targets: p.Test[:1], Budget: TargetedBudget{Plus: 2},
		Direct: true, Options: attack.Options{Epochs: 5}, Victims: []Victim{{Name: "sm_gcn", Model: m}, {Name: "svd_gcn", Model: svd}}}, p)
	if err == nil || !strings.Contains(err.Error(), "victim svd_gcn") {
		t.Fatalf("svd_gcn direct: err %v", err)
	}
}

// Nettack through the registry: transfer of the same flips to two
// victims; local PR-BCD transfer from a GCN surrogate.
func TestRunTargetedTransfer(t *testing.T) {
	p := attacktest.SmallProblem(t, 40, 9)
	gcn := trainedSmall(t, p, "gcn", 1)
	sm := trainedSmall(t, p, "sm_gcn", 1)
	victims := []Victim{{Name: "gcn", Model: gcn}, {Name: "sm_gcn", Model: sm}}
	for _, name := range []string{"nettack", "local_prbcd"} {
		res, err := RunTargeted(context.Background(), TargetedConfig{Attack: name, Targets: p.Test[:4],
			Budget: TargetedBudget{Plus: 1}, Seed: 2, Surrogate: gcn, Options: attack.Options{Epochs: 30},
			Victims: victims}, p)
		if err != nil {
			t.Fatal(name, err)
		}
		if res.Mode != "transfer" || len(res.Summary) != 2 {
			t.Fatalf("%s: mode %s, %d summaries", name, res.Mode, len(res.Summary))
		}
		for _, r := range res.Rows {
			if !reflect.DeepEqual(r.Victims[0].Flips, r.Victims[1].Flips) || len(r.Victims[0].Flips) > r.Budget {
				t.Fatalf("%s target %d: flips %v / %v, budget %d", name, r.Target, r.Victims[0].Flips, r.Victims[1].Flips, r.Budget)
			}
		}
		t.Logf("%s: %+v", name, res.Summary)
	}
}

func TestTargetedErrors(t *testing.T) {
	p := attacktest.SmallProblem(t, 20, 1)
	m := attacktest.RandomGCN(t, p, 1)
	v := []Victim{{Name: "gcn", Model: m}}
	cases := []struct {
		cfg  TargetedConfig
		want string
	}{
		{TargetedConfig{Attack: "prbcd", Targets: []int{1}, Victims: v}, "not targeted"},
		{TargetedConfig{Attack: "nettack", Targets: []int{1, 1}, Victims: v}, "repeated"},
		{TargetedConfig{Attack: "nettack", Targets: []int{20}, Victims: v}, "outside"},
		{TargetedConfig{Attack: "nettack", Targets: []int{}, Victims: v}, "empty"},
		{TargetedConfig{Attack: "nettack", Targets: []int{1}}, "no victim"},
		{TargetedConfig{Attack: "nettack", Targets: []int{1}, Victims: v, Budget: TargetedBudget{Plus: -1}}, "negative"},
	}
	for _, c := range cases {
		_, err := RunTargeted(context.Background(), c.cfg, p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c.cfg, err, c.want)
		}
	}
	_, err := Run(context.Background(), Config{Attack: "local_prbcd", Epsilons: []float64{0.1}, Victims: v}, p)
	if err == nil || !strings.Contains(err.Error(), "targeted") {
		t.Fatalf("global run of local_prbcd: %v", err)
	}
}

// Two ε with the same budget at a target share one attack: the rows are
// those of running each ε on its own, and Save writes and lists each
// (target, budget) file once.
func TestRunTargetedSharedBudgets(t *testing.T) {
	p := attacktest.SmallProblem(t, 40, 7)
	m := trainedSmall(t, p, "gcn", 1)
	targets := p.Test[:6]
	run := func(name string, eps []float64) *TargetedResult {
		res, err := RunTargeted(context.Background(), TargetedConfig{Attack: name, Targets: targets,
			Budget: TargetedBudget{Epsilons: eps}, Seed: 3, Direct: name == "local_prbcd",
			Options: attack.Options{Epochs: 20, FineTuneEpochs: 5}, Victims: []Victim{{Name: "gcn", Model: m}}}, p)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	eps := []float64{0.5, 0.55, 1}
	for _, name := range []string{"nettack", "local_prbcd"} {
		both := run(name, eps)
		var alone []TargetRow
		for _, e := range eps {
			alone = append(alone, run(name, []float64{e}).Rows...)
		}
		shared := 0
		for _, r := range both.Rows {
			var a *TargetRow
			for k := range alone {
				if alone[k].Target == r.Target && alone[k].Epsilon == r.Epsilon {
					a = &alone[k]
				}
			}
			if a == nil || !reflect.DeepEqual(*a, r) {
				t.Fatalf("%s target %d ε=%v: %+v, alone %+v", name, r.Target, r.Epsilon, r, a)
			}
			for _, o := range both.Rows {
				if o.Target == r.Target && o.Budget == r.Budget && o.Epsilon != r.Epsilon {
					shared++
				}
			}
		}
		if shared == 0 {
			t.Fatalf("%s: no two ε share a budget; the test needs one", name)
		}
		paths, err := both.Save(t.TempDir(), p)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, q := range paths {
			if seen[q] {
				t.Fatalf("%s: %s listed twice", name, q)
			}
			seen[q] = true
		}
		t.Logf("%s: %d rows, %d sharing a budget, %d files", name, len(both.Rows), shared, len(paths))
	}
}
