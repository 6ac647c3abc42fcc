package graph_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rgnn/rgnn/aggregate"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/internal/cputime"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
	"github.com/rgnn/rgnn/train"
)

// BenchmarkGDCEpochArxiv is one training epoch (forward, backward, Adam
// step; T = 0.5, k = 64, hidden 64) of the Soft Median GDC and the Soft
// Medoid GDC on an arXiv-sized power-law graph (169,343 nodes, ~1.17M
// edges, 128 dense features, 40 classes, 10% training nodes). The GDC graph
// is TopKPPR (eps = 1e-4) + gcn_norm, computed once outside the timing (its
// time is logged). Features and labels are random: this measures cost, not
// learning. Slow; run alone:
//
//	go test ./graph -run '^$' -bench GDCEpochArxiv -benchtime 3x
func BenchmarkGDCEpochArxiv(b *testing.B) {
	const n, feats, classes = 169343, 128, 40
	adj := powerLawGraph(b, n, 1_190_000, 1)
	rng := rand.New(rand.NewPCG(5, 5))
	x := &tensor.CSR{Rows: n, Cols: feats, Indptr: make([]int, n+1),
		Indices: make([]int32, 0, n*feats), Values: make([]float32, 0, n*feats)}
	for i := range n {
		for j := range feats {
			x.Indices = append(x.Indices, int32(j))
			x.Values = append(x.Values, float32(rng.NormFloat64()))
		}
		x.Indptr[i+1] = len(x.Indices)
	}
	labels := make([]int32, n)
	for i := range labels {
		labels[i] = int32(rng.IntN(classes))
	}
	trainIdx := make([]int, 0, n/10)
	for i := 0; i < n; i += 10 {
		trainIdx = append(trainIdx, i)
	}
	t0 := time.Now()
	c0, _ := cputime.Process()
	s, err := graph.TopKPPR(adj, nil, 0.15, 1e-4, 64, 0)
	if err != nil {
		b.Fatal(err)
	}
	c1, _ := cputime.Process()
	b.Logf("GDC (TopKPPR, k = 64, eps = 1e-4): %.1f s wall, %.1f s CPU", time.Since(t0).Seconds(), (c1 - c0).Seconds())
	g := &model.Graph{S: autograd.NewSparse(graph.GCNNorm(s))}
	xs := autograd.NewSparse(x)
	reg := model.Default(func(name string, o model.Options) (autograd.Aggregator, error) {
		return aggregate.ForModel(name, o.K, o.Temperature, o.Normalization)
	})
	for _, name := range []string{"softmedian_gdc", "sm_gdc"} {
		b.Run(name, func(b *testing.B) {
			m, err := reg.New(name, feats, classes, model.Options{Temperature: 0.5})
			if err != nil {
				b.Fatal(err)
			}
			opt := train.NewAdam(m.Params(), 0.01, 1e-3)
			tp := autograd.NewTape()
			epoch := 0
			step := func() {
				tp.Reset()
				logits := m.Forward(tp, g, xs, model.Mode{Train: true, Seed: uint64(epoch)})
				tp.Backward(tp.CrossEntropy(logits, trainIdx, labels))
				opt.Step()
				epoch++
			}
			step() // warm-up: buffers
			c0, _ := cputime.Process()
			t0 := time.Now()
			for b.Loop() {
				step()
			}
			c1, _ := cputime.Process()
			b.ReportMetric((c1-c0).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(time.Since(t0).Seconds()/float64(b.N), "wall-s/op")
			b.ReportMetric(peakRSS()/(1<<20), "peak-MiB")
		})
	}
}
