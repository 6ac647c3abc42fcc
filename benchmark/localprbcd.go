package benchmark

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/engine"
	"github.com/rgnn/rgnn/attack/nettack"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
	"github.com/rgnn/rgnn/train"
)

// LocalPRBCDSpec is a timed local PR-BCD attack on a trained PPRGo model
// (the local_prbcd rows of the scale benchmark), with the follow-up's
// protocol: targets from the test set, budget round(ε·deg), the target's
// PPR row updated locally by the PPRGo engine (engine.PPRGo), one target
// at a time.
type LocalPRBCDSpec struct {
	// Targets are the attacked nodes; nil draws Count test nodes of degree
	// ≥ MinDegree (seeded).
	Targets   []int
	Count     int     // default 5
	Epsilon   float64 // budget round(ε·deg) (default 0.5)
	MinDegree int     // default int(1/ε) (the follow-up's)
	Epochs    int     // search epochs (default 500)
	FineTune  int     // fine-tuning epochs (default 100)
	BlockSize int     // candidates per epoch (default 10,000)
	Seed      uint64
	// Progress, if set, sees the targets done out of all.
	Progress func(done, total int)
}

// LocalPRBCDTarget is one attacked target.
type LocalPRBCDTarget struct {
	Node, Degree, Budget, Flips int
	// Seconds and CPUSeconds are the attack's (search and final sampling);
	// EvalSeconds the recomputed evaluation (the target's top-k PPR pushed
	// on the perturbed graph, the model at the target).
	Seconds, CPUSeconds, EvalSeconds float64
	// Probability margins: clean, after the flips under the engine's local
	// update, after the flips recomputed.
	CleanMargin, RelaxedMargin, Margin float64
}

// LocalPRBCDResult is the measurement of RunLocalPRBCD.
type LocalPRBCDResult struct {
	// SetupSeconds and SetupCPUSeconds build the engine from the clean
	// top-k PPR matrix (walk-PPR rows, degrees, scratch).
	SetupSeconds, SetupCPUSeconds float64
	Targets                       []LocalPRBCDTarget
	// Seconds and CPUSeconds are the mean attack time per target.
	Seconds, CPUSeconds float64
}

// RunLocalPRBCD attacks targets of p one after the other with local PR-BCD
// on m (a trained pprgo or softmedian_pprgo) through its local engine; pi
// and sums are the clean top-k PPR matrix of every node and its row sums
// (graph.TopKPPRScaled with m's parameters).
func RunLocalPRBCD(ctx context.Context, p *data.Problem, m model.Model, pi *tensor.CSR, sums []float64,
	s LocalPRBCDSpec) (LocalPRBCDResult, error) {
	np, ok := m.(model.NodePreprocessor)
	if _, isPPRGo := model.PPRGoParams(m); !ok || !isPPRGo {
		return LocalPRBCDResult{}, fmt.Errorf("benchmark: local PR-BCD rows attack a PPRGo model, got %s", m.Name())
	}
	if s.Count == 0 {
		s.Count = 5
	}
	if s.Epsilon == 0 {
		s.Epsilon = 0.5
	}
	if s.MinDegree == 0 {
		s.MinDegree = nettack.MinDegreeFor([]float64{s.Epsilon})
	}
	deg := make([]int, p.Adj.Rows)
	for u := range deg {
		deg[u] = p.Adj.Indptr[u+1] - p.Adj.Indptr[u]
	}
	targets := s.Targets
	if targets == nil {
		rng := rand.New(rand.NewPCG(s.Seed, 0x6c6f63616c))
		for _, i := range rng.Perm(len(p.Test)) {
			if u := p.Test[i]; deg[u] >= s.MinDegree && len(targets) < s.Count {
				targets = append(targets, u)
			}
		}
	}
	if len(targets) == 0 {
		return LocalPRBCDResult{}, errors.New("benchmark: no target")
	}
	var res LocalPRBCDResult
	var e *engine.PPRGo
	var err error
	res.SetupSeconds, res.SetupCPUSeconds, err = timed(func() error {
		e, err = engine.NewPPRGoFromRows(m, p, pi, sums)
		return err
	})
	if err != nil {
		return res, err
	}
	spec, ok := attack.Default().Lookup("local_prbcd")
	if !ok {
		return res, errors.New("benchmark: no local_prbcd in the registry")
	}
	a, err := spec.NewTargeted(attack.Options{Epochs: s.Epochs, FineTuneEpochs: s.FineTune, BlockSize: s.BlockSize})
	if err != nil {
		return res, err
	}
	loss, err := attack.LossByName(spec.DefaultLoss)
	if err != nil {
		return res, err
	}
	env := &attack.TargetEnv{Problem: p, Loss: loss, Seed: s.Seed, Workers: 1,
		NewEngine: func() (attack.Engine, error) { return e, nil }}
	margin := func(logits []float32, u int) float64 {
		return nettack.ProbMargins(&tensor.Dense{Rows: 1, Cols: len(logits), Data: logits}, []int32{p.Labels[u]})[0]
	}
	for k, u := range targets {
		if u < 0 || u >= p.Adj.Rows {
			return res, fmt.Errorf("benchmark: target %d outside [0, %d)", u, p.Adj.Rows)
		}
		tr := LocalPRBCDTarget{Node: u, Degree: deg[u], Budget: nettack.BudgetFraction(deg[u], s.Epsilon)}
		ev, err := e.EvaluateLocal(u, p.Labels[u], nil, nil, loss, nil)
		if err != nil {
			return res, err
		}
		tr.CleanMargin = margin(ev.Logits, u)
		var flips [][]attack.Flip
		tr.Seconds, tr.CPUSeconds, err = timed(func() error {
			flips, err = a.PerturbTargets(ctx, env, []attack.TargetBudget{{Node: u, Budget: tr.Budget}})
			return err
		})
		if err != nil {
			return res, fmt.Errorf("benchmark: target %d: %w", u, err)
		}
		fl := flips[0]
		tr.Flips = len(fl)
		vs, ws := make([]int32, len(fl)), make([]float32, len(fl))
		for i, f := range fl {
			o := int(f.U) + int(f.V) - u
			vs[i], ws[i] = int32(o), 1
			if k, ok := p.Adj.Find(u, o); ok && p.Adj.Values[k] != 0 {
				ws[i] = 0
			}
		}
		if ev, err = e.EvaluateLocal(u, p.Labels[u], vs, ws, loss, nil); err != nil {
			return res, err
		}
		tr.RelaxedMargin = margin(ev.Logits, u)
		t0 := time.Now()
		adj, err := attack.ApplyFlips(p.Adj, fl)
		if err != nil {
			return res, err
		}
		g, err := np.PreprocessNodes(adj, p.Features, []int{u})
		if err != nil {
			return res, err
		}
		logits := np.ForwardNodes(autograd.NoGrad(), g, p.X, []int{0}, model.Mode{}).Value
		tr.Margin = margin(logits.Data, u)
		tr.EvalSeconds = time.Since(t0).Seconds()
		res.Targets = append(res.Targets, tr)
		res.Seconds += tr.Seconds / float64(len(targets))
		res.CPUSeconds += tr.CPUSeconds / float64(len(targets))
		if s.Progress != nil {
			s.Progress(k+1, len(targets))
		}
	}
	return res, nil
}

// scaleLocalPRBCD trains a PPRGo for the job's epochs (mini-batches, on
// the ppr stage's matrix) and attacks a few test targets with local PR-BCD
// (ε = 0.5, the default 500 + 100 epochs and block of 10,000); the row
// reports the seconds per target.
func scaleLocalPRBCD(ctx context.Context, job ScaleJob, reg *model.Registry, row *ScaleRow, h ScaleHooks) error {
	g, err := scaleLoad(ScaleJob{Stage: StageLoad, File: job.File}, &ScaleRow{})
	if err != nil {
		return err
	}
	row.Edges = int64(g.NumEdges())
	p, err := data.NewProblem(g, int(job.Seed%(1<<32)))
	if err != nil {
		return err
	}
	pi, err := readCSR(job.PPRFile)
	if err != nil {
		return fmt.Errorf("%w (the ppr stage writes it)", err)
	}
	sums, err := readFloats(job.PPRFile + sumsSuffix)
	if err != nil {
		return fmt.Errorf("%w (the ppr stage writes it)", err)
	}
	m, err := reg.New("pprgo", g.Features.Cols, g.NumClasses, model.Options{K: job.K, PPREps: job.Eps, Seed: job.Seed})
	if err != nil {
		return err
	}
	cfg := train.Config{Seed: job.Seed, MaxEpochs: job.Epochs, Patience: job.Epochs, BatchSize: job.BatchSize,
		Progress: func(epoch int, _, _ float64) { h.progress("train pprgo", epoch+1, job.Epochs) }}
	if _, err := train.Fit(ctx, m, model.PPRGoGraph(pi), p, cfg); err != nil {
		return err
	}
	res, err := RunLocalPRBCD(ctx, p, m, pi, sums, LocalPRBCDSpec{Seed: job.Seed,
		Progress: func(done, total int) { h.progress("local prbcd targets", done, total) }})
	if err != nil {
		return err
	}
	row.Seconds, row.CPUSeconds = res.Seconds, res.CPUSeconds
	var eval, clean, relaxed, recomputed float64
	correct := 0
	budgets, secs := "", ""
	for i, t := range res.Targets {
		f := 1 / float64(len(res.Targets))
		eval, clean, relaxed, recomputed = eval+t.EvalSeconds*f, clean+t.CleanMargin*f, relaxed+t.RelaxedMargin*f, recomputed+t.Margin*f
		if t.Margin > 0 {
			correct++
		}
		if i > 0 {
			budgets, secs = budgets+",", secs+","
		}
		budgets += fmt.Sprint(t.Budget)
		secs += fmt.Sprintf("%.2f", t.Seconds)
	}
	row.Note = fmt.Sprintf("per target: %d test targets (deg ≥ 2), ε=0.5 budgets %s, block 10000, 500+100 epochs, seconds %s; "+
		"engine setup %.2f s (%.2f CPU s); recomputed evaluation %.2f s/target; mean margin %.3f → relaxed %.3f, recomputed %.3f; %d still correct",
		len(res.Targets), budgets, secs, res.SetupSeconds, res.SetupCPUSeconds, eval, clean, relaxed, recomputed, correct)
	return nil
}
