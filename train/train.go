package train

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

// Config holds the training hyper-parameters; zero values mean the
// reference's defaults.
type Config struct {
	LR          float64 // 0.01
	WeightDecay float64 // 1e-3 (negative: none)
	MaxEpochs   int     // 3000
	Patience    int     // 300
	Seed        uint64  // dropout seed (mini-batches: also the batch order)
	// BatchSize > 0 trains in mini-batches of that many training nodes
	// (models implementing model.Batched; see fitBatches); 0 trains full
	// batch.
	BatchSize int
	// Progress, if set, is called after every epoch.
	Progress func(epoch int, trainLoss, valLoss float64)
	// BatchProgress, if set, is called after every mini-batch step with the
	// steps done and the steps of the epoch.
	BatchProgress func(done, total int)
}

func (c Config) withDefaults() Config {
	if c.LR == 0 {
		c.LR = 0.01
	}
	if c.WeightDecay == 0 {
		c.WeightDecay = 1e-3
	} else if c.WeightDecay < 0 {
		c.WeightDecay = 0
	}
	if c.MaxEpochs == 0 {
		c.MaxEpochs = 3000
	}
	if c.Patience == 0 {
		c.Patience = 300
	}
	return c
}

// Result summarises a training run.
type Result struct {
	Epochs       int           `json:"epochs"`
	BestEpoch    int           `json:"best_epoch"`
	BestValLoss  float64       `json:"best_val_loss"`
	FinalLoss    float64       `json:"final_train_loss"`
	Duration     time.Duration `json:"-"`
	MsPerEpoch   float64       `json:"ms_per_epoch"`
	DurationSecs float64       `json:"duration_seconds"`
	// Interrupted: the context was cancelled after Epochs epochs; Fit
	// then returns the context's error with this result, the model holding
	// the best weights of the epochs done.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Fit trains m on the preprocessed graph g of problem p (its features X,
// labels, training and validation nodes) with the reference protocol and restores the weights of
// the epoch with the lowest validation loss. It returns an error if the loss
// becomes NaN or the context is cancelled; cancelled, it stops at the end
// of the epoch (of the mini-batch) and still restores the best weights so
// far, returning them with the context's error (Result.Interrupted).
func Fit(ctx context.Context, m model.Model, g *model.Graph, d *data.Problem, cfg Config) (Result, error) {
	cfg = cfg.withDefaults()
	if g == nil || d == nil || d.X == nil {
		return Result{}, fmt.Errorf("train: no graph or features")
	}
	if len(d.Train) == 0 || len(d.Val) == 0 {
		return Result{}, fmt.Errorf("train: empty training or validation set")
	}
	if cfg.BatchSize < 0 {
		return Result{}, fmt.Errorf("train: batch size %d, want ≥ 0", cfg.BatchSize)
	}
	if cfg.BatchSize > 0 {
		bm, ok := m.(model.Batched)
		if !ok {
			return Result{}, fmt.Errorf("train: model %s trains full batch only (batch size %d)", m.Name(), cfg.BatchSize)
		}
		return fitBatches(ctx, bm, g, d, cfg)
	}
	st := newFitState(m, cfg)
	tp := autograd.NewTape()
	var res Result
	epoch := 0
	for ; epoch < cfg.MaxEpochs; epoch++ {
		if err := ctx.Err(); err != nil {
			return st.interrupted(res, epoch), err
		}
		tp.Reset()
		logits := m.Forward(tp, g, d.X, model.Mode{Train: true, Seed: epochSeed(cfg.Seed, epoch)})
		loss := tp.CrossEntropy(logits, d.Train, d.Labels)
		valLoss := autograd.CrossEntropyValue(logits.Value, d.Val, d.Labels)
		trainLoss := float64(loss.Value.Data[0])
		if st.reg != nil {
			loss = tp.Add(loss, st.reg.Penalty(tp))
		}
		if math.IsNaN(trainLoss) || math.IsNaN(valLoss) {
			return res, fmt.Errorf("train: loss became NaN at epoch %d", epoch)
		}
		tp.Backward(loss)
		st.opt.Step()
		res.FinalLoss = trainLoss
		if cfg.Progress != nil {
			cfg.Progress(epoch, trainLoss, valLoss)
		}
		if st.endEpoch(epoch, valLoss) {
			epoch++
			break
		}
	}
	return st.finish(res, epoch), nil
}

// fitState is what full-batch and mini-batch training share: the
// optimiser over the model's parameters (weight decay off for models that
// ask), its regulariser, and the reference's early stopping on the
// validation loss with the best weights kept.
type fitState struct {
	cfg       Config
	hints     model.TrainingHints
	reg       model.Regularized
	params    []*autograd.Param
	opt       *Adam
	best      [][]float32
	bestLoss  float64
	bestEpoch int
	start     time.Time
}

func newFitState(m model.Model, cfg Config) *fitState {
	st := &fitState{cfg: cfg, params: m.Params(), bestLoss: math.Inf(1), start: time.Now()}
	if h, ok := m.(model.Hinted); ok {
		st.hints = h.TrainingHints()
	}
	if st.hints.NoWeightDecay {
		st.cfg.WeightDecay = 0
	}
	st.reg, _ = m.(model.Regularized)
	st.opt = NewAdam(st.params, st.cfg.LR, st.cfg.WeightDecay)
	st.best = snapshot(st.params, nil)
	return st
}

// endEpoch records the epoch's validation loss and reports whether
// training stops (patience exhausted, unless the model keeps its final
// weights).
func (st *fitState) endEpoch(epoch int, valLoss float64) bool {
	if valLoss < st.bestLoss {
		st.bestLoss, st.bestEpoch = valLoss, epoch
		st.best = snapshot(st.params, st.best)
		return false
	}
	return !st.hints.KeepFinal && epoch >= st.bestEpoch+st.cfg.Patience
}

// finish restores the best weights and fills res's bookkeeping after
// epochs epochs.
func (st *fitState) finish(res Result, epochs int) Result {
	if !st.hints.KeepFinal {
		restore(st.params, st.best)
	}
	res.Epochs, res.BestEpoch, res.BestValLoss = epochs, st.bestEpoch, st.bestLoss
	res.Duration = time.Since(st.start)
	res.DurationSecs = res.Duration.Seconds()
	if epochs > 0 {
		res.MsPerEpoch = float64(res.Duration.Microseconds()) / 1000 / float64(epochs)
	}
	return res
}

// interrupted is finish for a run cancelled after epochs epochs.
func (st *fitState) interrupted(res Result, epochs int) Result {
	res = st.finish(res, epochs)
	res.Interrupted = true
	return res
}

// epochSeed derives the dropout seed of an epoch.
func epochSeed(seed uint64, epoch int) uint64 {
	return seed*0x9e3779b97f4a7c15 + uint64(epoch+1)*0xd1b54a32d192ed03
}

func snapshot(params []*autograd.Param, into [][]float32) [][]float32 {
	if into == nil {
		into = make([][]float32, len(params))
		for i, p := range params {
			into[i] = make([]float32, len(p.Value.Data))
		}
	}
	for i, p := range params {
		copy(into[i], p.Value.Data)
	}
	return into
}

func restore(params []*autograd.Param, from [][]float32) {
	for i, p := range params {
		copy(p.Value.Data, from[i])
	}
}

// Predict runs an inference forward pass (dropout off) and returns logits.
func Predict(m model.Model, g *model.Graph, x *autograd.Sparse) *tensor.Dense {
	tp := autograd.NoGrad()
	return m.Forward(tp, g, x, model.Mode{}).Value
}

// Classify preprocesses adj (a perturbed graph, say) and feats with m's own
// preprocessing, runs m and returns every node's argmax class. x is feats
// as a sparse operand; nil builds it.
func Classify(m model.Model, adj, feats *tensor.CSR, x *autograd.Sparse) ([]int32, error) {
	g, err := m.Preprocess(adj, feats)
	if err != nil {
		return nil, err
	}
	if x == nil {
		x = autograd.NewSparse(feats)
	}
	return argmaxRows(nil, Predict(m, g, x)), nil
}

// Accuracy returns the fraction of idx whose argmax logit equals the label.
func Accuracy(logits *tensor.Dense, labels []int32, idx []int) float64 {
	if len(idx) == 0 {
		return math.NaN()
	}
	correct := 0
	for _, i := range idx {
		if logits.ArgmaxRow(i) == int(labels[i]) {
			correct++
		}
	}
	return float64(correct) / float64(len(idx))
}
