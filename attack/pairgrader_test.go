package attack_test

import (
	"math"
	"testing"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/engine"
	"github.com/rgnn/rgnn/attack/internal/attacktest"
)

// The row-streamed block gradient equals PairGrad.
func TestPairGraderScanPath(t *testing.T) {
	p := attacktest.SmallProblem(t, 30, 11)
	e, err := engine.NewGCN(attacktest.RandomGCN(t, p, 12), p.Features)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Evaluate(p.Adj, attacktest.MustLoss(t, "ce"), p.Test, p.Labels, true); err != nil {
		t.Fatal(err)
	}
	pairs := attack.RandomBlock(p.Adj, 1, 200)
	want, got := make([]float32, len(pairs)), make([]float32, len(pairs))
	if err := e.PairGrad(pairs, want); err != nil {
		t.Fatal(err)
	}
	if err := attack.GradPairs(e, 30, pairs, got); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Abs(float64(want[i]-got[i])) > 1e-6+1e-5*math.Abs(float64(want[i])) {
			t.Fatalf("pair %v: scan %v, PairGrad %v", pairs[i], got[i], want[i])
		}
	}
}

// A large block's gradients, asked for in row order and written back,
// equal PairGrad's in the block's order bit for bit.
func TestPairGraderSortedPath(t *testing.T) {
	p := attacktest.SmallProblem(t, 1200, 13)
	e, err := engine.NewGCN(attacktest.RandomGCN(t, p, 14), p.Features)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Evaluate(p.Adj, attacktest.MustLoss(t, "ce"), p.Test, p.Labels, true); err != nil {
		t.Fatal(err)
	}
	pairs := attack.RandomBlock(p.Adj, 2, 70_000) // above the sorted path's minimum, below the scan's share
	want, got := make([]float32, len(pairs)), make([]float32, len(pairs))
	if err := e.PairGrad(pairs, want); err != nil {
		t.Fatal(err)
	}
	if err := attack.GradPairs(e, 1200, pairs, got); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Float32bits(want[i]) != math.Float32bits(got[i]) {
			t.Fatalf("pair %v: sorted %v, PairGrad %v", pairs[i], got[i], want[i])
		}
	}
}
