//go:build long

package benchmark

import (
	"context"
	"testing"

	"github.com/rgnn/rgnn/aggregate"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/model"
)

// The arXiv-sized row end to end (go test -tags long ./benchmark -run
// ArxivScale -v): generate the arxiv preset (169,343 nodes, 1.17M edges,
// 128 features, 40 classes), convert and load it, top-k PPR of every node
// (k = 64), then three training epochs each of GCN, Soft Median GDC, and
// PPRGo and the Soft Median PPRGo in mini-batches of 512; the PPRGo models
// must be far above chance (twice the largest class's share) on 10,000
// test nodes.
func TestArxivScale(t *testing.T) {
	reg := model.Default(func(n string, o model.Options) (autograd.Aggregator, error) {
		return aggregate.ForModel(n, o.K, o.Temperature, o.Normalization)
	})
	s := ScaleSpec{}.Defaults()
	s.Dir, s.Preset, s.Sizes, s.Epochs = t.TempDir(), "arxiv", []int{169_343}, 3
	rows, err := s.Run(context.Background(), func(ctx context.Context, job ScaleJob) (ScaleRow, error) {
		return RunScaleJob(ctx, job, reg, ScaleHooks{})
	}, func(r ScaleRow) {
		t.Logf("%-9s %d nodes %d edges: %.2f s, %.2f CPU s, peak RSS %s, accuracy %.3f (chance %.3f) %s",
			r.Stage, r.Nodes, r.Edges, r.Seconds, r.CPUSeconds, formatBytes(r.PeakRSS), r.Accuracy, r.Chance, r.Note)
	})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r.Stage] = true
		if r.Nodes != 169_343 || r.Edges < 1_100_000 || r.Edges > 1_250_000 {
			t.Errorf("%s: %d nodes, %d edges", r.Stage, r.Nodes, r.Edges)
		}
		if (r.Stage == StagePPRGo || r.Stage == StageSMPPRGo) && !(r.Accuracy >= 2*r.Chance) {
			t.Errorf("%s: accuracy %.3f after %d epochs, want ≥ 2 × chance (%.3f)", r.Stage, r.Accuracy, r.Epochs, r.Chance)
		}
	}
	for _, st := range []string{StageGenerate, StageConvert, StageLoad, StagePPR, StageGCN, StageSMGDC, StagePPRGo, StageSMPPRGo} {
		if !seen[st] {
			t.Errorf("stage %s did not run", st)
		}
	}
}
