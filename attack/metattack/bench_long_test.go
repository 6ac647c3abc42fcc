//go:build long

package metattack_test

import (
	"context"
	"testing"
	"time"

	"github.com/rgnn/rgnn/attack/metattack"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/internal/cputime"
	"github.com/rgnn/rgnn/internal/fixture"
)

// BenchmarkFlipCoraML times one Metattack flip (inner training, meta-
// gradient, scoring) on cora_ml, after a first untimed flip:
//
//	go test -tags long -run xxx -bench FlipCoraML -benchtime 3x ./attack/metattack
func BenchmarkFlipCoraML(b *testing.B) {
	g, err := data.Load(context.Background(), "cora_ml", data.Options{Dir: fixture.DataDir(b)})
	if err != nil {
		b.Fatal(err)
	}
	tr, val, test, _ := data.Split(g.Labels, g.NumClasses, 20, 0)
	p := &data.Problem{Adj: g.Adj, Features: g.Features, Labels: g.Labels, NumClasses: g.NumClasses,
		Train: tr, Val: val, Test: test}
	for _, v := range []struct {
		name string
		v    metattack.Variant
	}{{"self", metattack.Self}, {"approx", metattack.Approx}} {
		b.Run(v.name, func(b *testing.B) {
			// b.N+1 flips; the first (which allocates the reused buffers)
			// is not timed.
			var cpu0 time.Duration
			progress := func(done, _ int) {
				if done == 1 {
					b.ResetTimer()
					cpu0, _ = cputime.Process()
				}
			}
			if _, err := metattack.Attack(context.Background(), p, b.N+1, metattack.Options{Variant: v.v, SelfLabels: g.Labels}, progress); err != nil {
				b.Fatal(err)
			}
			if cpu1, ok := cputime.Process(); ok {
				b.ReportMetric((cpu1-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			}
		})
	}
}
