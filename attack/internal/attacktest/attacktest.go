// Package attacktest holds the fixtures the tests of the attack packages
// share: small random problems, random and pretrained models, cora_ml.
package attacktest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rgnn/rgnn/aggregate"
	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

// SmallProblem is a random graph of n nodes with 3 classes and 8 features.
func SmallProblem(t testing.TB, n int, seed uint64) *data.Problem {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var es []tensor.Entry
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if rng.Float64() < 0.25 {
				es = append(es, tensor.Entry{Row: int32(u), Col: int32(v), Val: 1}, tensor.Entry{Row: int32(v), Col: int32(u), Val: 1})
			}
		}
	}
	adj, err := tensor.FromCOO(n, n, es)
	if err != nil {
		t.Fatal(err)
	}
	var fs []tensor.Entry
	labels := make([]int32, n)
	for i := 0; i < n; i++ {
		labels[i] = int32(rng.IntN(3))
		for j := 0; j < 8; j++ {
			if rng.Float64() < 0.4 {
				fs = append(fs, tensor.Entry{Row: int32(i), Col: int32(j), Val: float32(rng.Float64())})
			}
		}
	}
	x, err := tensor.FromCOO(n, 8, fs)
	if err != nil {
		t.Fatal(err)
	}
	idx := rng.Perm(n)
	p := &data.Problem{Name: "small", Adj: adj, Features: x, Labels: labels, NumClasses: 3,
		Train: idx[:n/4], Val: idx[n/4 : n/2], Test: idx[n/2:]}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

// RandomGCN is a model "gcn" (hidden 6) with standard normal weights.
func RandomGCN(t testing.TB, p *data.Problem, seed uint64) model.Model {
	m, err := model.Default(nil).New("gcn", p.Features.Cols, p.NumClasses, model.Options{Seed: seed, Hidden: 6})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	for _, q := range m.Params() {
		for i := range q.Value.Data {
			q.Value.Data[i] = float32(rng.NormFloat64())
		}
	}
	return m
}

// Aggregators is the aggregation factory of the tests' model registry.
func Aggregators(name string, o model.Options) (autograd.Aggregator, error) {
	return aggregate.ForModel(name, o.K, o.Temperature, o.Normalization)
}

// MustModel is an untrained model name (seed 1) for p.
func MustModel(t testing.TB, name string, p *data.Problem) model.Model {
	m, err := model.Default(Aggregators).New(name, p.Features.Cols, p.NumClasses, model.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// AllPairs lists the n(n−1)/2 pairs u < v in row-major order.
func AllPairs(n int) []attack.Flip {
	var out []attack.Flip
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			out = append(out, attack.Flip{U: int32(u), V: int32(v)})
		}
	}
	return out
}

// MustLoss returns a loss by name.
func MustLoss(t testing.TB, name string) attack.Loss {
	t.Helper()
	l, err := attack.LossByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// RNG is the random source the attacks draw for a seed and a stream.
func RNG(seed, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0xa77ac4^stream))
}

// EdgeSign is +1 for a non-edge of adj and −1 for an edge: ∂w/∂p of a
// pair's relaxed weight.
func EdgeSign(adj *tensor.CSR, f attack.Flip) float32 {
	if k, ok := adj.Find(int(f.U), int(f.V)); ok && adj.Values[k] != 0 {
		return -1
	}
	return 1
}

// LoadCora returns cora_ml with the split of seed (skipping the test if the
// dataset is not available).
func LoadCora(t testing.TB, seed int) *data.Problem {
	t.Helper()
	g, err := data.Load(context.Background(), "cora_ml", data.Options{Dir: fixture.DataDir(t)})
	if err != nil {
		t.Skipf("cora_ml not available: %v", err)
	}
	tr, va, te, err := data.Split(g.Labels, g.NumClasses, 20, uint32(seed))
	if err != nil {
		t.Fatal(err)
	}
	p := &data.Problem{Name: "cora_ml", Adj: g.Adj, Features: g.Features, X: autograd.NewSparse(g.Features),
		Labels: g.Labels, NumClasses: g.NumClasses, Train: tr, Val: va, Test: te}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

// Pretrained loads a reference pretrained model (bin0) for seed.
func Pretrained(t testing.TB, name, stem string, temperature float64, seed int, p *data.Problem) model.Model {
	t.Helper()
	path := fixture.Reference(t, fmt.Sprintf("pretrained/cora_ml_%s_s%d_bin0.npz", stem, seed))
	m, err := model.Default(Aggregators).New(name, p.Features.Cols, p.NumClasses, model.Options{Temperature: temperature})
	if err != nil {
		t.Fatal(err)
	}
	if err := model.LoadWeights(m, path); err != nil {
		t.Fatal(err)
	}
	return m
}
