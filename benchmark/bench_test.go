package benchmark

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/aggregate"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

func TestPubMedLikeShape(t *testing.T) {
	g, err := PubMedLike(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Adj.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := g.Features.Validate(); err != nil {
		t.Fatal(err)
	}
	if g.NumNodes() != PubMedNodes || g.NumEdges() != PubMedEdges || g.Features.Cols != PubMedFeatures || g.NumClasses != 3 {
		t.Fatalf("shape: %d nodes, %d edges, %d features, %d classes", g.NumNodes(), g.NumEdges(), g.Features.Cols, g.NumClasses)
	}
	if got := slices.Clone(g.ClassCounts()); !slices.Equal(got, pubMedClassSizes) {
		t.Fatalf("class sizes %v", got)
	}
	if m := float64(g.Features.Nnz()) / PubMedNodes; math.Abs(m-pubMedNnzMean) > 2 {
		t.Fatalf("mean feature nonzeros per node %.1f", m)
	}
	for i := range g.NumNodes() {
		lo, hi := g.Adj.RowRange(i)
		for p := lo; p < hi; p++ {
			if int(g.Adj.Indices[p]) == i {
				t.Fatalf("self loop at %d", i)
			}
		}
	}
	maxDeg := 0
	for i := range g.NumNodes() {
		lo, hi := g.Adj.RowRange(i)
		maxDeg = max(maxDeg, hi-lo)
	}
	if maxDeg < 50 {
		t.Fatalf("max degree %d: expected hubs", maxDeg)
	}
	h, _ := PubMedLike(0)
	if !slices.Equal(g.Adj.Indices, h.Adj.Indices) || !slices.Equal(g.Features.Values, h.Features.Values) || !slices.Equal(g.Labels, h.Labels) {
		t.Fatal("not deterministic")
	}
}

func TestSymmetricPattern(t *testing.T) {
	s, _ := tensor.FromCOO(3, 3, []tensor.Entry{{Row: 0, Col: 0, Val: .5}, {Row: 0, Col: 2, Val: .2}, {Row: 1, Col: 0, Val: .3}})
	p, err := SymmetricPattern(s)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Indptr, []int{0, 2, 3, 4}) || !slices.Equal(p.Indices, []int32{1, 2, 0, 0}) {
		t.Fatalf("pattern %v %v", p.Indptr, p.Indices)
	}
}

func TestRunSmall(t *testing.T) {
	g, err := data.Load(context.Background(), "citeseer", data.Options{Dir: fixture.DataDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	reg := model.Default(func(n string, o model.Options) (autograd.Aggregator, error) {
		return aggregate.ForModel(n, o.K, o.Temperature, o.Normalization)
	})
	rows, err := Run(context.Background(), reg, []Dataset{{Name: "citeseer", Graph: g, K: 64, PPREps: 1e-4}},
		Config{Architectures: []string{"gdc", "gat", "medoid_gdc"}, WithoutGDC: true, WithGDC: true, Warmup: 1, Epochs: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		arch, model, graph string
		gdc, skipped       bool
	}{
		{"gcn", "gcn", "input", false, false}, {"gcn", "gdc", "gdc", true, false},
		{"gat", "gat", "input", false, false}, {"gat", "gat", "gdc pattern", true, false},
		{"medoid_gdc", "", "input", false, true}, {"medoid_gdc", "medoid_gdc", "gdc", true, false},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows: %+v", len(rows), rows)
	}
	for i, w := range want {
		r := rows[i]
		if r.Architecture != w.arch || r.Model != w.model || r.Graph != w.graph || r.GDC != w.gdc || (r.Skipped != "") != w.skipped {
			t.Fatalf("row %d: %+v, want %+v", i, r, w)
		}
		if !w.skipped && (r.Epochs != 2 || !(r.EpochMeanMs > 0) || !(r.PrepMs >= 0) || r.TotalMs < r.EpochMeanMs) {
			t.Fatalf("row %d times: %+v", i, r)
		}
	}
	if rows[0].PaperMs != 4.7 || rows[3].PaperMs != 53.3 {
		t.Fatalf("paper figures: %v %v", rows[0].PaperMs, rows[3].PaperMs)
	}
}

// BenchmarkEpoch times training epochs on cora_ml through Run (one
// b.N-epoch measurement per model), for profiling:
//
//	go test ./benchmark -run xxx -bench 'Epoch/gat$' -benchtime 50x -cpuprofile cpu.out
func BenchmarkEpoch(b *testing.B) {
	g, err := data.Load(context.Background(), "cora_ml", data.Options{Dir: fixture.DataDir(b)})
	if err != nil {
		b.Fatal(err)
	}
	reg := model.Default(func(n string, o model.Options) (autograd.Aggregator, error) {
		return aggregate.ForModel(n, o.K, o.Temperature, o.Normalization)
	})
	for _, name := range []string{"gcn", "gat", "svd_gcn", "jaccard_gcn", "rgcn", "appnp", "sm_gdc"} {
		b.Run(name, func(b *testing.B) {
			arch, _ := ArchitectureOf(name)
			gdc := name == "sm_gdc"
			rows, err := Run(context.Background(), reg, []Dataset{{Name: "cora_ml", Graph: g, K: 64}},
				Config{Architectures: []string{arch}, WithoutGDC: !gdc, WithGDC: gdc, Warmup: 1, Epochs: max(1, b.N)})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(rows[0].EpochMeanMs, "ms/epoch")
			b.ReportMetric(rows[0].EpochMedMs, "median-ms/epoch")
			b.ReportMetric(rows[0].EpochCPUMs, "cpu-ms/epoch")
		})
	}
}
