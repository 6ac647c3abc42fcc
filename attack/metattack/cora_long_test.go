//go:build long

package metattack_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rgnn/rgnn/aggregate"
	"github.com/rgnn/rgnn/attack/metattack"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/train"
)

func env(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// TestMetattackCoraML runs Metattack on cora_ml and evaluates poisoning:
// the victims are trained from scratch on the perturbed graph. The attack
// is incremental: each ε continues from the previous one's flips, and the
// victims are evaluated as soon as a budget is reached.
//
//	RGNN_META_EPS=0.05,0.1,0.25 RGNN_META_VARIANT=self|approx RGNN_META_SEEDS=0 \
//	RGNN_META_VICTIMS=gcn,sm_gdc RGNN_META_OUT=dir \
//	go test -tags long -run TestMetattackCoraML -timeout 10h -v ./attack/metattack
func TestMetattackCoraML(t *testing.T) {
	dataDir := fixture.DataDir(t)
	g, err := data.Load(context.Background(), "cora_ml", data.Options{Dir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	var eps []float64
	for _, s := range strings.Split(env("RGNN_META_EPS", "0.05"), ",") {
		e, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		eps = append(eps, e)
	}
	slices.Sort(eps)
	variant := metattack.Self
	if env("RGNN_META_VARIANT", "self") == "approx" {
		variant = metattack.Approx
	}
	victims := strings.Split(env("RGNN_META_VICTIMS", "gcn"), ",")
	reg := model.Default(func(name string, o model.Options) (autograd.Aggregator, error) {
		return aggregate.ForModel(name, o.K, o.Temperature, o.Normalization)
	})
	x := autograd.NewSparse(g.Features)
	for _, ss := range strings.Split(env("RGNN_META_SEEDS", "0"), ",") {
		seed, _ := strconv.Atoi(ss)
		trainIdx, valIdx, testIdx, err := data.Split(g.Labels, g.NumClasses, 20, uint32(seed))
		if err != nil {
			t.Fatal(err)
		}
		p := &data.Problem{Adj: g.Adj, Features: g.Features, Labels: g.Labels, NumClasses: g.NumClasses,
			Train: trainIdx, Val: valIdx, Test: testIdx}
		self, err := metattack.SelfTrainingLabels(context.Background(), p, uint64(seed))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		var ms runtime.MemStats
		var flips [][2]int
		for _, e := range eps {
			// incremental: each ε continues from the previous one's flips
			k := metattack.Budget(g.Adj, e)
			res, err := metattack.Continue(context.Background(), p, flips, k, metattack.Options{Variant: variant, Seed: uint64(seed), SelfLabels: self},
				func(done, total int) {
					if done%25 == 0 || done == total {
						runtime.ReadMemStats(&ms)
						fmt.Fprintf(os.Stderr, "seed %d: %d/%d flips, %.1f s, heap %d MB\n", seed, done, total, time.Since(start).Seconds(), ms.HeapAlloc>>20)
					}
				})
			if err != nil {
				t.Fatal(err)
			}
			flips = res.Flips
			secs := time.Since(start).Seconds()
			runtime.ReadMemStats(&ms)
			t.Logf("seed %d variant %v: %d flips after %.1f s (%.2f s/flip), GOMAXPROCS %d, heap sys %d MB",
				seed, env("RGNN_META_VARIANT", "self"), len(flips), secs, secs/float64(max(1, len(flips))), runtime.GOMAXPROCS(0), ms.HeapSys>>20)
			pert := res.Perturbed
			if dir := os.Getenv("RGNN_META_OUT"); dir != "" {
				if err := data.SavePerturbedAdj(filepath.Join(dir, fmt.Sprintf("cora_ml_metattack_%s_s%d_eps%g.npz", env("RGNN_META_VARIANT", "self"), seed, e)), pert); err != nil {
					t.Fatal(err)
				}
			}
			for _, v := range victims {
				o := model.Options{Seed: uint64(seed)}
				if v == "sm_gdc" {
					o.Temperature = 0.2
				}
				m, err := reg.New(v, g.Features.Cols, g.NumClasses, o)
				if err != nil {
					t.Fatal(err)
				}
				pg, err := m.Preprocess(pert, g.Features)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := train.Fit(context.Background(), m, pg, &data.Problem{X: x, Labels: g.Labels, Train: trainIdx, Val: valIdx},
					train.Config{Seed: uint64(seed)}); err != nil {
					t.Fatal(err)
				}
				acc := train.Accuracy(train.Predict(m, pg, x), g.Labels, testIdx)
				t.Logf("seed %d ε=%g (%d flips) poisoned %s: test accuracy %.4f", seed, e, k, v, acc)
			}
		}
	}
}
