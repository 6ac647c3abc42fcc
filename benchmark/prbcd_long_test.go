//go:build long

package benchmark

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rgnn/rgnn/aggregate"
	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/protocol"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/data/synth"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/train"
)

// arxivProblem generates the arxiv preset (seed 0: 169,343 nodes, 1.17M
// edges, 128 features, 40 classes) into a temporary directory and returns
// it with its seeded split and a GCN trained for trainEpochs epochs.
func arxivProblem(t *testing.T, trainEpochs int) (*data.Problem, model.Model) {
	return arxivVictim(t, "gcn", model.Options{Seed: 0}, trainEpochs)
}

// arxivVictim is arxivProblem with the model name and options to train.
func arxivVictim(t *testing.T, name string, o model.Options, trainEpochs int) (*data.Problem, model.Model) {
	t.Helper()
	preset, err := synth.LookupPreset("arxiv")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "arxiv.npz")
	if _, err := synth.Generate(context.Background(), preset, 0, file, synth.Options{}); err != nil {
		t.Fatal(err)
	}
	g, err := data.LoadFileCached(file, false)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(file)
	p, err := data.NewProblem(g, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Default(func(n string, o model.Options) (autograd.Aggregator, error) {
		return aggregate.ForModel(n, o.K, o.Temperature, o.Normalization)
	}).New(name, p.Features.Cols, p.NumClasses, o)
	if err != nil {
		t.Fatal(err)
	}
	mg, err := m.Preprocess(p.Adj, p.Features)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if _, err := train.Fit(context.Background(), m, mg, p, train.Config{Seed: 0, MaxEpochs: trainEpochs,
		Patience: trainEpochs}); err != nil {
		t.Fatal(err)
	}
	t.Logf("arxiv preset: %d nodes, %d edges, %d test nodes; %s trained %d epochs in %.0f s",
		p.NumNodes(), p.Adj.Nnz()/2, len(p.Test), name, trainEpochs, time.Since(t0).Seconds())
	return p, m
}

// The arXiv-sized PR-BCD row (go test -tags long -run TestArxivPRBCD
// -timeout 2h -v ./benchmark): global PR-BCD, ε = 0.1, block 1e6, 500
// epochs (RGNN_ARXIV_EPOCHS), against a GCN (trained 100 epochs) on the
// generated arxiv graph. Logs the epoch time, the whole attack's time, the peak RSS and
// the GCN's accuracy before and after; fails if the attack does not lower
// the accuracy by 5 points or the process's peak RSS exceeds 6 GB.
func TestArxivPRBCD(t *testing.T) {
	p, m := arxivProblem(t, 100)
	start := time.Now()
	res, err := RunPRBCD(context.Background(), p, m, PRBCDSpec{Epsilon: 0.1, Epochs: envInt(t, "RGNN_ARXIV_EPOCHS", 500),
		Progress: func(done, total int) {
			if done%25 == 0 || done == total {
				el := time.Since(start).Seconds()
				t.Logf("epoch %d/%d, %.0f s, eta %.0f s", done, total, el, el/float64(done)*float64(total-done))
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	rss := peakRSS()
	t.Logf("PR-BCD ε=0.1: budget %d, %d flips (+%d −%d); GCN accuracy %.4f → %.4f", res.Budget, res.Flips,
		res.Added, res.Removed, res.CleanAccuracy, res.Accuracy)
	t.Logf("epoch %.2f s (%.2f CPU s; first %.2f s); whole attack %.0f s (%.0f CPU s); peak RSS %s; GOMAXPROCS %d",
		res.EpochSeconds, res.EpochCPUSeconds, res.FirstEpochSeconds, res.Seconds, res.CPUSeconds, formatBytes(rss),
		runtime.GOMAXPROCS(0))
	if res.Accuracy > res.CleanAccuracy-0.05 {
		t.Errorf("accuracy %.4f → %.4f: the attack barely hurt", res.CleanAccuracy, res.Accuracy)
	}
	if rss > 6e9 {
		t.Errorf("peak RSS %s above 6 GB", formatBytes(rss))
	}
}

// A short PR-BCD (10 epochs) on the arxiv-sized graph makes the same flips
// at GOMAXPROCS 1 and 2.
func TestArxivPRBCDDeterminism(t *testing.T) {
	p, m := arxivProblem(t, 5)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var flips [2][]attack.Flip
	for k, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		res, err := protocol.Run(context.Background(), protocol.Config{Attack: "prbcd", Epsilons: []float64{0.1},
			Adaptive: true, Options: attack.Options{Epochs: 10, Samples: 2},
			Victims: []protocol.Victim{{Name: "gcn", Model: m}}}, p)
		if err != nil {
			t.Fatal(err)
		}
		flips[k] = res.Budgets[0].Flips
		t.Logf("GOMAXPROCS %d: %d flips, accuracy %.4f → %.4f in %.0f s", procs, len(flips[k]), res.Clean[0].Accuracy,
			res.Budgets[0].Victims[0].Accuracy, res.Budgets[0].Seconds)
	}
	if len(flips[0]) == 0 || !slices.Equal(flips[0], flips[1]) {
		t.Fatalf("%d flips at GOMAXPROCS 1, %d at 2: not the same", len(flips[0]), len(flips[1]))
	}
}

// The arXiv-sized adaptive PR-BCD row against a Soft Median GDC (go test
// -tags long -run TestArxivPRBCDSoftMedianGDC -timeout 3h -v ./benchmark):
// ε = 0.1, block 1e6, through the push engine (engine.PushPPR; push GDC
// with k 64, eps 1e-4), the victim trained RGNN_ARXIV_TRAIN epochs
// (default 100); RGNN_ARXIV_EPOCHS attack epochs (default 500, the last
// fifth fine-tuning). Logs the epoch time (target ≤ 10 s), the whole
// attack's time, the peak RSS and the accuracy before and after.
func TestArxivPRBCDSoftMedianGDC(t *testing.T) {
	arxivAdaptive(t, "softmedian_gdc")
}

// TestArxivPRBCDPPRGo is TestArxivPRBCDSoftMedianGDC against a PPRGo (k 64,
// eps 1e-4, trained full batch), through the same push engine.
func TestArxivPRBCDPPRGo(t *testing.T) {
	arxivAdaptive(t, "pprgo")
}

func arxivAdaptive(t *testing.T, name string) {
	p, m := arxivVictim(t, name, model.Options{Seed: 0, K: 64, PPREps: 1e-4}, envInt(t, "RGNN_ARXIV_TRAIN", 100))
	epochs := envInt(t, "RGNN_ARXIV_EPOCHS", 500)
	var engineEps float64 // RGNN_ARXIV_ENGINE_EPS: the attack's push error (default: the model's)
	if v := os.Getenv("RGNN_ARXIV_ENGINE_EPS"); v != "" {
		var err error
		if engineEps, err = strconv.ParseFloat(v, 64); err != nil || !(engineEps > 0) {
			t.Fatalf("RGNN_ARXIV_ENGINE_EPS=%q: want a positive number", v)
		}
	}
	start := time.Now()
	res, err := RunPRBCD(context.Background(), p, m, PRBCDSpec{Epsilon: 0.1, Epochs: epochs, EnginePPREps: engineEps, Progress: func(done, total int) {
		if done%max(1, min(25, total/10)) == 0 || done == total {
			el := time.Since(start).Seconds()
			t.Logf("epoch %d/%d, %.0f s, eta %.0f s", done, total, el, el/float64(done)*float64(total-done))
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("PR-BCD ε=0.1: budget %d, %d flips (+%d −%d); %s accuracy %.4f → %.4f", res.Budget, res.Flips,
		res.Added, res.Removed, name, res.CleanAccuracy, res.Accuracy)
	t.Logf("epoch %.2f s (%.2f CPU s; first %.2f s); whole attack %.0f s (%.0f CPU s); peak RSS %s; GOMAXPROCS %d; engine push eps %v (0: the model's)",
		res.EpochSeconds, res.EpochCPUSeconds, res.FirstEpochSeconds, res.Seconds, res.CPUSeconds, formatBytes(peakRSS()),
		runtime.GOMAXPROCS(0), engineEps)
	if res.Accuracy > res.CleanAccuracy {
		t.Errorf("accuracy %.4f → %.4f: the attack raised it", res.CleanAccuracy, res.Accuracy)
	}
}

// envInt reads a positive whole number from the environment (def when unset).
func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive whole number", name, v)
	}
	return n
}
