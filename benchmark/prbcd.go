package benchmark

import (
	"context"
	"time"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/protocol"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/internal/cputime"
	"github.com/rgnn/rgnn/model"
)

// PRBCDSpec is a timed global PR-BCD attack on a trained model (the attack
// rows of the scale benchmark): adaptive, so the gradient is the model's
// own (engine.New: the GCN's analytic one, the push engine through a Soft
// Median GDC's top-k PPR), with the block of candidate pairs drawn by
// linear index over the upper triangle and nothing of size n².
type PRBCDSpec struct {
	Epsilon float64 // budget round(ε·m) (default 0.1)
	Epochs  int     // PR-BCD epochs, the last fifth (at most 100) fine-tuning (default 500)
	Block   int     // block size (default 1e6)
	Samples int     // final Bernoulli samples (default 20)
	Seed    uint64
	// EnginePPREps, if > 0, is the push error of the attack's forward
	// passes through a push-PPR victim (attack.Options.EnginePPREps).
	EnginePPREps float64
	// Progress, if set, sees the epochs done out of Epochs.
	Progress func(done, total int)
}

// PRBCDResult is the measurement of RunPRBCD.
type PRBCDResult struct {
	Budget, Flips, Added, Removed int
	// CleanAccuracy and Accuracy are the victim's test accuracy on the clean
	// and on the perturbed graph.
	CleanAccuracy, Accuracy float64
	// EpochSeconds and EpochCPUSeconds are the mean wall and process CPU
	// time of an epoch after the first (FirstEpochSeconds: it also draws
	// the first block and sizes the buffers).
	EpochSeconds, EpochCPUSeconds, FirstEpochSeconds float64
	// Seconds and CPUSeconds are the whole attack's: the epochs, the final
	// sampling and the evaluation of the perturbed graph.
	Seconds, CPUSeconds float64
}

// RunPRBCD attacks the trained victim on p with adaptive PR-BCD.
func RunPRBCD(ctx context.Context, p *data.Problem, victim model.Model, s PRBCDSpec) (PRBCDResult, error) {
	if s.Epsilon == 0 {
		s.Epsilon = 0.1
	}
	if s.Epochs == 0 {
		s.Epochs = 500
	}
	var walls []time.Time
	var cpus []time.Duration
	cfg := protocol.Config{Attack: "prbcd", Epsilons: []float64{s.Epsilon}, Seed: s.Seed, Adaptive: true,
		Options: attack.Options{Epochs: s.Epochs, BlockSize: s.Block, Samples: s.Samples, EnginePPREps: s.EnginePPREps},
		Victims: []protocol.Victim{{Name: victim.Name(), Model: victim}},
		Progress: func(stage string, done, total int) {
			c, _ := cputime.Process()
			walls, cpus = append(walls, time.Now()), append(cpus, c)
			if s.Progress != nil {
				s.Progress(done, total)
			}
		}}
	c0, _ := cputime.Process()
	t0 := time.Now()
	res, err := protocol.Run(ctx, cfg, p)
	if err != nil {
		return PRBCDResult{}, err
	}
	c1, _ := cputime.Process()
	out := PRBCDResult{Seconds: time.Since(t0).Seconds(), CPUSeconds: (c1 - c0).Seconds()}
	b := res.Budgets[0]
	out.Budget, out.Flips, out.Added, out.Removed = b.Budget, b.NumFlips, b.Added, b.Removed
	out.CleanAccuracy, out.Accuracy = res.Clean[0].Accuracy, b.Victims[0].Accuracy
	if len(walls) > 0 {
		// the first progress report ends the first epoch; it starts after
		// the clean evaluation, which Run does first (a fraction of an epoch)
		out.FirstEpochSeconds = walls[0].Sub(t0).Seconds()
	}
	if e := len(walls) - 1; e > 0 {
		out.EpochSeconds = walls[e].Sub(walls[0]).Seconds() / float64(e)
		out.EpochCPUSeconds = (cpus[e] - cpus[0]).Seconds() / float64(e)
	}
	return out, nil
}
