//go:build long

package engine_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/rgnn/rgnn/attack/engine"
	"github.com/rgnn/rgnn/attack/internal/attacktest"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/data/synth"
	"github.com/rgnn/rgnn/model"
)

// BenchmarkPushPPRArxiv is one adaptive PR-BCD step of the push engine at
// arXiv's size (go test -tags long -run '^$' -bench PushPPRArxiv
// -benchtime 3x ./attack/engine): the generated arxiv preset (169,343
// nodes, 1.17M edges), an untrained Soft Median GDC (push GDC, k 64, eps
// 1e-4), a block of 1e6 random pairs stored, half at PR-BCD's floor and
// half at 0.01 (kept in the diffusion); Evaluate with gradients, then
// PairGrad of the block.
func BenchmarkPushPPRArxiv(b *testing.B) {
	preset, err := synth.LookupPreset("arxiv")
	if err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(b.TempDir(), "arxiv.npz")
	if _, err := synth.Generate(context.Background(), preset, 0, file, synth.Options{}); err != nil {
		b.Fatal(err)
	}
	g, err := data.LoadFileCached(file, false)
	if err != nil {
		b.Fatal(err)
	}
	p, err := data.NewProblem(g, 0)
	if err != nil {
		b.Fatal(err)
	}
	m, err := model.Default(attacktest.Aggregators).New("softmedian_gdc", p.Features.Cols, p.NumClasses,
		model.Options{Seed: 0, K: 64, PPREps: 1e-4})
	if err != nil {
		b.Fatal(err)
	}
	w, block := randomBlock(p, 1_000_000, func(i int) float32 { return []float32{0.01, 1e-7}[i%2] })
	e, err := engine.NewPushPPR(m, p)
	if err != nil {
		b.Fatal(err)
	}
	out := make([]float32, len(block))
	loss := attacktest.MustLoss(b, "tanh_margin")
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Evaluate(w, loss, p.Test, p.Labels, true); err != nil {
			b.Fatal(err)
		}
		if err := e.PairGrad(block, out); err != nil {
			b.Fatal(err)
		}
	}
}
