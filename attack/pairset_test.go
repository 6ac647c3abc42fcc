package attack_test

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/engine"
	"github.com/rgnn/rgnn/attack/internal/attacktest"
)

// The hash set answers like the bitmap under random adds, removes and
// clones, with keys crowded into a small range (long probe runs, deletions
// inside them) and spread over a large one.
func TestPairSetHashMatchesBitmap(t *testing.T) {
	for _, np := range []int64{3000, 1 << 20} {
		r := rand.New(rand.NewPCG(uint64(np), 1))
		ops := make([]int, 20000)
		lins := make([]int64, len(ops))
		for i := range ops {
			ops[i] = r.IntN(3)
			lins[i] = r.Int64N(np)
		}
		want := attack.PairSetOps(np, np, ops, lins) // bitmap
		got := attack.PairSetOps(np, 1, ops, lins)   // hash set
		for k := range want {
			if want[k] != got[k] {
				t.Fatalf("np %d: operation %d (%d on %d): hash set %v, bitmap %v", np, k, ops[k], lins[k], got[k], want[k])
			}
		}
	}
}

// PR-BCD and GR-BCD make the same flips on cora_ml with the block's pair
// set as a hash set (the path of graphs above bitmapMaxPairs pairs) as with
// the bitmap.
func TestBlockAttacksHashSetSameFlips(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	p := attacktest.LoadCora(t, 0)
	gcn := attacktest.Pretrained(t, "gcn", "Vanilla_GCN", 1, 0, p)
	budget := attack.Budget(0.05, p.Adj.Nnz()/2)
	for _, c := range []struct {
		name string
		opts attack.Options
	}{{"prbcd", attack.Options{Epochs: 10}}, {"grbcd", attack.Options{Epochs: 10, BlockSize: 100_000}}} {
		var flips [2][]attack.Flip
		for k, limit := range []int64{0, 1} {
			spec, _ := attack.Default().Lookup(c.name)
			a, err := spec.New(c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if limit > 0 {
				a = attack.WithPairLimit(a, limit)
			}
			e, err := engine.NewGCN(gcn, p.Features)
			if err != nil {
				t.Fatal(err)
			}
			env := &attack.Env{Problem: p, Engine: e, Targets: p.Test, Loss: attacktest.MustLoss(t, spec.DefaultLoss)}
			if flips[k], err = a.Perturb(context.Background(), env, nil, budget); err != nil {
				t.Fatal(err)
			}
		}
		if len(flips[0]) == 0 || !slices.Equal(flips[0], flips[1]) {
			t.Errorf("%s: %d flips with the bitmap, %d with the hash set, not the same", c.name, len(flips[0]), len(flips[1]))
		}
	}
}

// Perturbed (a merge of adj's rows with the pairs' sorted entries) gives the
// same CSR, bit for bit, as sorting adj's entries followed by the pairs'
// (rowsToCSR), with edges, floors, weights that cancel and repeated pairs.
func TestPerturbedMatchesRowSort(t *testing.T) {
	p := attacktest.SmallProblem(t, 60, 7)
	big := attacktest.SmallProblem(t, 700, 8)
	r := rand.New(rand.NewPCG(7, 7))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for trial := 0; trial < 22; trial++ {
		adj := p.Adj
		pairs := attack.RandomBlock(adj, uint64(trial), 50+trial*40)
		if trial >= 20 { // above the parallel row sort's threshold, on one and on two workers
			adj = big.Adj
			pairs = attack.RandomBlock(adj, uint64(trial), 200_000)
			runtime.GOMAXPROCS(trial - 19)
		}
		if trial%3 == 0 && len(pairs) > 4 {
			pairs = append(pairs, pairs[1], pairs[3]) // repeats add up
		}
		pv := make([]float32, len(pairs))
		for i := range pv {
			switch r.IntN(4) {
			case 0:
				pv[i] = 1
			case 1:
				pv[i] = 1e-7
			default:
				pv[i] = r.Float32()
			}
		}
		for _, floor := range []float32{-1, 0, 2e-7, 0.5} {
			got, err := attack.Perturbed(adj, pairs, pv, floor)
			if err != nil {
				t.Fatal(err)
			}
			want := attack.PerturbedByRows(adj, pairs, pv, floor)
			if !slices.Equal(got.Indptr, want.Indptr) || !slices.Equal(got.Indices, want.Indices) ||
				!slices.EqualFunc(got.Values, want.Values, func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }) {
				t.Fatalf("trial %d floor %v: merged CSR differs from the row sort", trial, floor)
			}
		}
	}
}
