package model_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
	"github.com/rgnn/rgnn/train"
)

// TestFeatureStaged: for every model with a feature stage, the forward pass
// from the stage gives Forward's logits bit for bit, on several graphs with
// the same features; a train.Classifier predicts what train.Classify does,
// with the classifier's features and with others. Every model of the GCN
// family, the robust GNNs, GAT, APPNP and PPRGo has the stage.
func TestFeatureStaged(t *testing.T) {
	const n, f, classes = 150, 24, 3
	rng := rand.New(rand.NewPCG(3, 4))
	adj, feats := randomGraph(rng, n, 4, f)
	other, _ := randomGraph(rng, n, 3, f)
	_, feats2 := randomGraph(rng, n, 1, f)
	reg := model.Default(testAggregators)
	for _, name := range reg.Names() {
		if s, _ := reg.Lookup(name); s.External {
			continue // runs outside rgnn (package bridge)
		}
		t.Run(name, func(t *testing.T) {
			m, err := reg.New(name, f, classes, model.Options{Hidden: 16, K: 8, PPREps: 1e-4, Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			s, ok := m.(model.FeatureStaged)
			if !ok {
				if name != "rgcn" {
					t.Fatalf("%s has no feature stage", name)
				}
				return
			}
			x := autograd.NewSparse(feats)
			h := s.FeatureStage(x)
			h0 := slices.Clone(h.Data)
			for _, a := range []*tensor.CSR{adj, other} {
				g, err := m.Preprocess(a, feats)
				if err != nil {
					t.Fatal(err)
				}
				want := m.Forward(autograd.NoGrad(), g, x, model.Mode{}).Value.Data
				got := s.ForwardStaged(autograd.NoGrad(), g, h).Value.Data
				if !slices.Equal(got, want) {
					t.Fatalf("staged logits differ from Forward's")
				}
			}
			if !slices.Equal(h.Data, h0) {
				t.Fatal("ForwardStaged modified the stage")
			}
			c := train.NewClassifier(m, feats, nil)
			for _, tc := range []struct {
				a, x *tensor.CSR
			}{{adj, feats}, {other, feats}, {adj, feats2}, {other, feats}} {
				want, err := train.Classify(m, tc.a, tc.x, nil)
				if err != nil {
					t.Fatal(err)
				}
				got, err := c.Classify(tc.a, tc.x)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("Classifier predicts %v, Classify %v", got, want)
				}
			}
		})
	}
}

// TestForwardStagedRows: for every model with RowsStaged (the robust GNNs),
// the logits of a few nodes — one node, a scattered set, every node in
// reverse — are those rows of ForwardStaged's, bit for bit, on a raw and a
// GDC graph, with hidden and class widths that do and do not fill a
// vector register.
func TestForwardStagedRows(t *testing.T) {
	const n, f = 150, 24
	rng := rand.New(rand.NewPCG(7, 8))
	adj, feats := randomGraph(rng, n, 4, f)
	reg := model.Default(testAggregators)
	tested := 0
	for _, name := range reg.Names() {
		if s, _ := reg.Lookup(name); s.External {
			continue
		}
		for _, dims := range [][2]int{{16, 3}, {24, 8}, {40, 5}} {
			m, err := reg.New(name, f, dims[1], model.Options{Hidden: dims[0], K: 8, PPREps: 1e-4, Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			s, ok := m.(model.RowsStaged)
			if !ok {
				continue
			}
			tested++
			g, err := m.Preprocess(adj, feats)
			if err != nil {
				t.Fatal(err)
			}
			h := s.FeatureStage(autograd.NewSparse(feats))
			want := s.ForwardStaged(autograd.NoGrad(), g, h).Value
			all := make([]int, n)
			for i := range all {
				all[i] = n - 1 - i
			}
			for _, rows := range [][]int{{0}, {n - 1}, {5, 77, 3, 140, 76}, {9, 9}, all} {
				got := s.ForwardStagedRows(g, h, rows)
				if got.Rows != len(rows) || got.Cols != want.Cols {
					t.Fatalf("%s: %d×%d logits for %d rows, want %d×%d", name, got.Rows, got.Cols, len(rows), len(rows), want.Cols)
				}
				for i, u := range rows {
					if !slices.Equal(got.Row(i), want.Row(u)) {
						t.Fatalf("%s (hidden %d, classes %d): row %d differs: %v, want %v", name, dims[0], dims[1], u, got.Row(i), want.Row(u))
					}
				}
			}
		}
	}
	if tested == 0 {
		t.Fatal("no model implements RowsStaged")
	}
}
