package task

import (
	"context"
	"math"
	"testing"

	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/messages"
)

// TestMessagesFigure is the paper's Figure 1 on cora_ml: a trained GCN, its
// exemplary node attacked by Nettack with the paper's budgets. Where the
// attack's messages are a minority (at most a third of the neighbourhood),
// they drag the mean further from where it was on the clean graph than the
// Soft Medoid.
func TestMessagesFigure(t *testing.T) {
	s := Messages{}.Defaults()
	p, err := (&Loader{Dir: fixture.DataDir(t)}).Problem(context.Background(), s.Data, s.Seed)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := s.Train.Run(context.Background(), p, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Run(context.Background(), p, tr.Trained)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Panels) != 3 || f.Degree > 50 {
		t.Fatalf("node %d of degree %d, %d panels", f.Target, f.Degree, len(f.Panels))
	}
	dist := func(a, b messages.Point) float64 { return math.Hypot(a.X-b.X, a.Y-b.Y) }
	checked := 0
	for _, pn := range f.Panels {
		if len(pn.Adversarial) == 0 || 2*len(pn.Adversarial) > len(pn.Clean) {
			continue
		}
		checked++
		dm := dist(pn.Estimates.Mean, f.CleanEstimates.Mean)
		ds := dist(pn.Estimates.SoftMedoid, f.CleanEstimates.SoftMedoid)
		t.Logf("node %d (degree %d), %d flips (%d added): mean moved %.3f, Soft Medoid %.3f", f.Target, f.Degree,
			pn.Flips, len(pn.Adversarial), dm, ds)
		if !(dm > ds) {
			t.Errorf("%d flips: the mean moved %.3f, the Soft Medoid %.3f: the mean should move more", pn.Flips, dm, ds)
		}
	}
	if checked == 0 {
		t.Errorf("no panel where the attack's messages are a minority: %+v", f.Panels)
	}
	s.Budgets = []float64{1.5}
	if _, err := s.Run(context.Background(), p, tr.Trained); err == nil {
		t.Error("budget 1.5: no error")
	}
}
