package train

import (
	"context"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/aggregate"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/internal/cputime"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

// synthetic returns a cora_ml-shaped problem: 2810 nodes, ~8k undirected
// edges, 2879 sparse features (~50 per node), 7 classes.
func synthetic(n, edges, feats, perNode, classes int) (*tensor.CSR, *tensor.CSR, []int32) {
	rng := rand.New(rand.NewPCG(1, 2))
	var es []tensor.Entry
	seen := map[[2]int32]bool{}
	for len(seen) < edges {
		u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
		if u == v || seen[[2]int32{min(u, v), max(u, v)}] {
			continue
		}
		seen[[2]int32{min(u, v), max(u, v)}] = true
		es = append(es, tensor.Entry{Row: u, Col: v, Val: 1}, tensor.Entry{Row: v, Col: u, Val: 1})
	}
	adj, _ := tensor.FromCOO(n, n, es)
	var fs []tensor.Entry
	for i := 0; i < n; i++ {
		for j := 0; j < perNode; j++ {
			fs = append(fs, tensor.Entry{Row: int32(i), Col: int32(rng.IntN(feats)), Val: rng.Float32()})
		}
	}
	x, _ := tensor.FromCOO(n, feats, fs)
	labels := make([]int32, n)
	for i := range labels {
		labels[i] = int32(rng.IntN(classes))
	}
	return adj, x, labels
}

type epochBench struct {
	m      model.Model
	g      *model.Graph
	x      *autograd.Sparse
	labels []int32
	train  []int
	opt    *Adam
	tp     *autograd.Tape
}

func newEpochBench(b *testing.B, name string, dataset string) *epochBench {
	var adj, x *tensor.CSR
	var labels []int32
	classes := 7
	switch {
	case dataset == "synthetic":
		adj, x, labels = synthetic(2810, 7981, 2879, 50, 7)
	case strings.HasSuffix(dataset, ".npz"):
		g, err := data.LoadFile(dataset, false)
		if err != nil {
			b.Fatal(err)
		}
		adj, x, labels, classes = g.Adj, g.Features, g.Labels, g.NumClasses
	default:
		g, err := data.Load(context.Background(), dataset, data.Options{Dir: fixture.DataDir(b)})
		if err != nil {
			b.Fatal(err)
		}
		adj, x, labels, classes = g.Adj, g.Features, g.Labels, g.NumClasses
	}
	m, err := model.Default(func(n string, o model.Options) (autograd.Aggregator, error) {
		return aggregate.ForModel(n, o.K, o.Temperature, o.Normalization)
	}).New(name, x.Cols, classes, model.Options{Temperature: 0.5})
	if err != nil {
		b.Fatal(err)
	}
	g, err := m.Preprocess(adj, x)
	if err != nil {
		b.Fatal(err)
	}
	train := make([]int, 20*classes)
	for i := range train {
		train[i] = i * 10
	}
	return &epochBench{m: m, g: g, x: autograd.NewSparse(x), labels: labels, train: train,
		opt: NewAdam(m.Params(), 0.01, 1e-3), tp: autograd.NewTape()}
}

func (e *epochBench) forward(epoch int) *autograd.Var {
	e.tp.Reset()
	logits := e.m.Forward(e.tp, e.g, e.x, model.Mode{Train: true, Seed: uint64(epoch)})
	return e.tp.CrossEntropy(logits, e.train, e.labels)
}

// BenchmarkGCNEpoch measures one training epoch (forward, backward, Adam
// step) of GCN on cora_ml and citeseer, and forward and backward alone.
func BenchmarkGCNEpoch(b *testing.B) {
	for _, ds := range []string{"cora_ml", "citeseer"} {
		b.Run(ds, func(b *testing.B) { benchEpoch(b, newEpochBench(b, "gcn", ds)) })
	}
}

// BenchmarkGCNEpochFile is BenchmarkGCNEpoch on the dataset file named by
// $RGNN_BENCH_GRAPH (skipped when unset), e.g. an arXiv-sized graph:
//
//	rgnn data generate --preset arxiv --seed 0 --out /tmp/arxiv.npz
//	RGNN_BENCH_GRAPH=/tmp/arxiv.npz go test ./train -run '^$' -bench GCNEpochFile -benchtime 5x
func BenchmarkGCNEpochFile(b *testing.B) {
	path := os.Getenv("RGNN_BENCH_GRAPH")
	if path == "" {
		b.Skip("RGNN_BENCH_GRAPH names no dataset file")
	}
	benchEpoch(b, newEpochBench(b, "gcn", path))
}

// BenchmarkSMGDCEpoch is BenchmarkGCNEpoch for Soft Medoid GDC (T = 0.5,
// k = 64; the GDC graph is computed once).
func BenchmarkSMGDCEpoch(b *testing.B) {
	b.Run("cora_ml", func(b *testing.B) { benchEpoch(b, newEpochBench(b, "sm_gdc", "cora_ml")) })
}

// benchEpoch times an epoch, its forward and its backward. Each starts
// after one untimed epoch that allocates the tape's buffers, as the
// reference's timing (scripts/peer_torch.py) discards its first call.
func benchEpoch(b *testing.B, e *epochBench) {
	warm := func() {
		e.tp.Backward(e.forward(0))
		e.opt.Step()
	}
	b.Run("epoch", func(b *testing.B) {
		b.ReportAllocs()
		warm()
		i := 0
		c0 := cpuTime()
		for b.Loop() {
			loss := e.forward(i)
			e.tp.Backward(loss)
			e.opt.Step()
			i++
		}
		reportCPU(b, cpuTime()-c0)
	})
	b.Run("forward", func(b *testing.B) {
		b.ReportAllocs()
		warm()
		i := 0
		c0 := cpuTime()
		for b.Loop() {
			e.forward(i)
			i++
		}
		reportCPU(b, cpuTime()-c0)
	})
	b.Run("backward", func(b *testing.B) {
		b.ReportAllocs()
		warm()
		i := 0
		var cpu float64
		for b.Loop() {
			b.StopTimer()
			loss := e.forward(i)
			b.StartTimer()
			c0 := cpuTime()
			e.tp.Backward(loss)
			cpu += cpuTime() - c0
			i++
		}
		reportCPU(b, cpu)
	})
}

// cpuTime is the process's CPU time so far in seconds (0 where not reported).
func cpuTime() float64 {
	c, _ := cputime.Process()
	return c.Seconds()
}

// reportCPU adds the process CPU time per operation (all goroutines) as
// "cpu-ms/op", which waiting for a core on a shared machine does not
// inflate; on an idle machine the wall time is about cpu-ms/op divided by
// the cores used.
func reportCPU(b *testing.B, cpu float64) {
	if cpu > 0 && b.N > 0 {
		b.ReportMetric(cpu*1e3/float64(b.N), "cpu-ms/op")
	}
}
