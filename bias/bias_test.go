package bias

import (
	"bytes"
	"context"
	"encoding/csv"
	"image/png"
	"reflect"
	"strings"
	"testing"
)

// TestFigure3 checks the qualitative result of the paper's Figure 2 (the bias curves) on the
// default configuration (fewer trials): below ε = 0.5 the Medoid and the
// Soft Medoid (every T) stay bounded — far below the perturbation's norm —
// while the mean follows it (B(ε) = ε·p for a point mass at distance p).
func TestFigure3(t *testing.T) {
	r, err := Run(context.Background(), Config{Trials: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	last := len(r.Eps) - 1
	if r.Eps[last] != 0.5 || r.Perturbed[last] != 25 {
		t.Fatalf("ε grid ends at %v (m=%d), want 0.5 (m=25)", r.Eps[last], r.Perturbed[last])
	}
	below := last - 1 // ε = 0.48, the largest ε < 0.5
	for _, p := range []float64{1000, 10} {
		mean, ok := r.Curve(p, "mean", 0)
		if !ok {
			t.Fatalf("no mean curve for norm %g", p)
		}
		for i, e := range r.Eps {
			if mean.Bias[i] < 0.9*e*p || mean.Bias[i] > 1.1*e*p+0.5 {
				t.Errorf("norm %g: mean bias %.3g at ε=%.2f, want ≈ ε·p = %.3g", p, mean.Bias[i], e, e*p)
			}
		}
	}
	for _, c := range r.Curves {
		if c.Bias[0] != 0 {
			t.Errorf("norm %g %s: bias %v at ε=0, want 0", c.Norm, c.Estimator.Label(), c.Bias[0])
		}
	}
	// Norm 1000: the robust estimators are bounded (≤ 5, i.e. ≤ 0.5% of
	// the perturbation) for every ε < 0.5; the mean reaches 480.
	for _, c := range r.Curves {
		if c.Norm != 1000 || c.Estimator.Name == "mean" {
			continue
		}
		for i := 0; i <= below; i++ {
			if c.Bias[i] > 5 {
				t.Errorf("norm 1000 %s: bias %.3g at ε=%.2f, want bounded (≤ 5)", c.Estimator.Label(), c.Bias[i], r.Eps[i])
			}
		}
	}
	if m, _ := r.Curve(1000, "mean", 0); m.Bias[below] < 400 {
		t.Errorf("norm 1000: mean bias %.3g at ε=0.48, want ≈ 480 (unbounded)", m.Bias[below])
	}
	// Figure 2a: for a distant perturbation a high temperature has a lower
	// bias than the Medoid (it averages the clean points); 3b: for a close
	// one and high ε it is higher.
	med, _ := r.Curve(1000, "medoid", 0)
	sm, _ := r.Curve(1000, "soft_medoid", 100)
	if !(sm.Bias[below] < med.Bias[below]) {
		t.Errorf("norm 1000 ε=0.48: Soft Medoid T=100 bias %.3g not below the Medoid's %.3g", sm.Bias[below], med.Bias[below])
	}
	med, _ = r.Curve(10, "medoid", 0)
	sm, _ = r.Curve(10, "soft_medoid", 100)
	if !(sm.Bias[below] > med.Bias[below]) {
		t.Errorf("norm 10 ε=0.48: Soft Medoid T=100 bias %.3g not above the Medoid's %.3g", sm.Bias[below], med.Bias[below])
	}
}

func TestDeterministic(t *testing.T) {
	cfg := Config{Trials: 3, Seed: 7, Norms: []float64{100}, Temperatures: []float64{0.5}}
	a, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Run(context.Background(), cfg)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different results")
	}
	cfg.Seed = 8
	c, _ := Run(context.Background(), cfg)
	if reflect.DeepEqual(a.Curves, c.Curves) {
		t.Fatal("different seeds, same results")
	}
}

func TestValidate(t *testing.T) {
	for _, cfg := range []Config{
		{Samples: 1}, {Trials: -1}, {MaxPerturbed: 60}, {Norms: []float64{-1}},
		{Temperatures: []float64{0, 1}}, {Temperatures: []float64{-2}},
	} {
		if _, err := Run(context.Background(), cfg); err == nil || !strings.HasPrefix(err.Error(), "bias:") {
			t.Errorf("%+v: error %v", cfg, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, Config{}); err == nil {
		t.Error("cancelled context: no error")
	}
}

func TestOutputs(t *testing.T) {
	r, err := Run(context.Background(), Config{Trials: 2, Seed: 3, MaxPerturbed: 4})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 + len(r.Curves)*5; len(recs) != want {
		t.Fatalf("%d CSV records, want %d", len(recs), want)
	}
	p, err := Plot(r, 10)
	if err != nil {
		t.Fatal(err)
	}
	img, err := Render(p, "png")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(img)); err != nil {
		t.Fatalf("PNG: %v", err)
	}
	if _, err := Plot(r, 5); err == nil {
		t.Error("plot of a norm without curves: no error")
	}
}
