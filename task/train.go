package task

import (
	"context"
	"fmt"
	"time"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/protocol"
	"github.com/rgnn/rgnn/bridge"
	"github.com/rgnn/rgnn/certify"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/train"
)

// Hooks receive progress of long work and keep it resumable; every field
// may be nil.
type Hooks struct {
	// Epoch is called after every training epoch (stage names the model
	// being trained).
	Epoch func(stage string, epoch int, trainLoss, valLoss float64)
	// Progress reports work done out of total in a stage (attack budgets,
	// smoothing samples, surrogate training).
	Progress func(stage string, done, total int)
	// Resume and Checkpoint keep a certificate's sampling resumable
	// (certify.SmoothOptions): Resume[i] holds the votes counted before for
	// the i-th certify spec (nil entries: none), Checkpoint is called now
	// and then with every spec's votes so far. The votes do not change.
	Resume          []*certify.Partial
	Checkpoint      func(parts []*certify.Partial) error
	CheckpointEvery int
	// CheckpointAfter, if > 0, also checkpoints after this much sampling
	// time, whichever comes first (certify.VoteOptions.CheckpointAfter).
	CheckpointAfter time.Duration
	// Flips receives every flip so far of an incremental global attack
	// (FGSM, Metattack) after each flip: a checkpoint that Perturb.Continue
	// continues from with the same result.
	Flips func(flips []attack.Flip)
	// Notice receives one-line notes on what a task does that the user may
	// not expect (a victim without weights trained here first).
	Notice func(msg string)
}

func (h Hooks) notice(format string, args ...any) {
	if h.Notice != nil {
		h.Notice(fmt.Sprintf(format, args...))
	}
}

func (h Hooks) epoch(stage string) func(int, float64, float64) {
	if h.Epoch == nil {
		return nil
	}
	return func(e int, tl, vl float64) { h.Epoch(stage, e, tl, vl) }
}

// Trained is a model with its weights: trained here or loaded.
type Trained struct {
	Spec  Model
	Seed  int // initialisation seed
	Model model.Model
}

// Name labels the model in results: the model name and, for models with a
// temperature, the temperature ("sm_gdc_T0.5").
func (t *Trained) Name() string { return t.Spec.Label() }

// Label names a model with its temperature where it takes one.
func (m Model) Label() string {
	switch {
	case Applies("temperature", m.Model):
		return fmt.Sprintf("%s_T%g", m.Model, m.Temperature)
	case Applies("external_cmd", m.Model):
		return fmt.Sprintf("%s(%s)", m.Model, bridge.ShortName(m.ExternalCmd))
	}
	return m.Model
}

// Save writes the weights (npz, the reference layout) and records the
// model in the file, so they load into that model only
// (model.SaveWeightsOf).
func (t *Trained) Save(path string) error { return model.SaveWeightsOf(t.Model, path) }

// SaveArtifact writes the weights as the store keeps them: the reference
// layout alone (model.SaveWeights; the store's results record their
// hashes, and the run's parameters name the model).
func (t *Trained) SaveArtifact(path string) error { return model.SaveWeights(t.Model, path) }

// NewModel builds the untrained model of spec m for problem p.
func NewModel(m Model, p *data.Problem, seed int) (*Trained, error) {
	return newModel(m, p, seed, nil)
}

// Replica returns a model of t's spec and seed for problem p (the one t
// was built for) holding a copy of t's weights: the same logits, with
// state of its own (a model's aggregations keep buffers between calls, so
// two goroutines need two models).
func (t *Trained) Replica(p *data.Problem) (*Trained, error) {
	if t.Spec.External() {
		return nil, fmt.Errorf("model %s runs in its own process: it has no replica here", t.Spec.Model)
	}
	c, err := newModel(t.Spec, p, t.Seed, nil)
	if err != nil {
		return nil, err
	}
	c.copyWeights(t)
	return c, nil
}

// newModel is NewModel with a preprocessing cache (nil: none) that models
// built with the same cache share (model.Options.Cache).
func newModel(m Model, p *data.Problem, seed int, cache *graph.PrepCache) (*Trained, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := m.checkMemory(p, 1, "hidden", m.Hidden); err != nil {
		return nil, err
	}
	o := m.options(seed)
	o.Cache = cache
	// No row of any graph on p's nodes holds more than n entries, so a
	// larger k selects the same (whole) rows: clamp it, sparing buffers
	// sized by k.
	o.K = min(o.K, p.NumNodes())
	mm, err := Models().New(m.Model, p.Features.Cols, p.NumClasses, o)
	if err != nil {
		return nil, err
	}
	return &Trained{Spec: m, Seed: seed, Model: mm}, nil
}

// Load builds the model of spec m with the weights in path (ours or the
// reference's layout).
func Load(m Model, p *data.Problem, seed int, path string) (*Trained, error) {
	if m.External() {
		return nil, bad("weights", path, "model %s keeps its weights in its own process: give none (its command loads them)", m.Model)
	}
	t, err := NewModel(m, p, seed)
	if err != nil {
		return nil, err
	}
	if err := model.LoadWeights(t.Model, path); err != nil {
		return nil, err
	}
	return t, nil
}

// LoadOrTrain returns the model of s with the weights in path, or, when path
// is empty, trained here on p with the protocol of s. An external model is
// started (and fits itself on p if it can); close it with Trained.Close.
func (s Train) LoadOrTrain(ctx context.Context, p *data.Problem, path string, h Hooks) (*Trained, error) {
	if s.Model.External() {
		if path != "" {
			return nil, bad("weights", path, "model %s keeps its weights in its own process: give none (its command loads them)", s.Model.Model)
		}
		if err := s.Validate(); err != nil {
			return nil, err
		}
		return s.Model.startExternal(ctx, p, s.Seed)
	}
	if path != "" {
		return Load(s.Model, p, s.Seed, path)
	}
	res, err := s.Run(ctx, p, h)
	if err != nil {
		return nil, err
	}
	return res.Trained, nil
}

// copyWeights sets c's parameters to t's (the same architecture).
func (c *Trained) copyWeights(t *Trained) {
	for i, q := range c.Model.Params() {
		copy(q.Value.Data, t.Model.Params()[i].Value.Data)
	}
}

// TrainResult is the outcome of Train.Run.
type TrainResult struct {
	Dataset      string       `json:"dataset"`
	Model        string       `json:"model"`
	Seed         int          `json:"seed"`
	SplitSeed    int          `json:"split_seed"`
	TestAccuracy float64      `json:"test_accuracy"`
	ValAccuracy  float64      `json:"val_accuracy"`
	NTest        int          `json:"n_test"`
	Fit          train.Result `json:"train"`
	// Trained is the model with its trained weights.
	Trained *Trained `json:"-"`
}

// Metrics are the result's values as an experiment stores them.
func (r *TrainResult) Metrics() map[string]any {
	return map[string]any{
		"test_accuracy": r.TestAccuracy, "val_accuracy": r.ValAccuracy,
		"epochs": r.Fit.Epochs, "best_epoch": r.Fit.BestEpoch, "best_val_loss": r.Fit.BestValLoss,
		"ms_per_epoch": r.Fit.MsPerEpoch, "train_seconds": r.Fit.DurationSecs,
	}
}

// config is the train.Config of the protocol.
func (f Fit) config(seed int) train.Config {
	cfg := train.Config{Seed: uint64(seed), MaxEpochs: f.MaxEpochs, Patience: f.Patience, LR: f.LR, WeightDecay: f.WeightDecay}
	if cfg.WeightDecay == 0 {
		cfg.WeightDecay = -1 // explicit none
	}
	return cfg
}

// Run trains the model of s on p (p's graph: the clean one, or a perturbed
// one for poisoning) and evaluates it on p's test and validation nodes.
// Cancelled after at least one epoch, it returns the result of the best
// weights so far together with the context's error.
func (s Train) Run(ctx context.Context, p *data.Problem, h Hooks) (*TrainResult, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.Model.External() {
		return s.runExternal(ctx, p)
	}
	t, err := NewModel(s.Model, p, s.Seed)
	if err != nil {
		return nil, err
	}
	g, res, err := s.fit(ctx, t, p, h.epoch("train "+s.Model.Model))
	if err != nil && !(res.Interrupted && res.Epochs > 0) {
		return nil, err
	}
	// Interrupted after some epochs: the result of the best weights so far,
	// returned with the context's error (TrainResult.Fit.Interrupted).
	logits := train.Predict(t.Model, g, p.X)
	return &TrainResult{Dataset: p.Name, Model: s.Model.Model, Seed: s.Seed, SplitSeed: p.SplitSeed,
		TestAccuracy: train.Accuracy(logits, p.Labels, p.Test), ValAccuracy: train.Accuracy(logits, p.Labels, p.Val),
		NTest: len(p.Test), Fit: res, Trained: t}, err
}

// fit trains t on p with the protocol of s.
func (s Train) fit(ctx context.Context, t *Trained, p *data.Problem, epoch func(int, float64, float64)) (*model.Graph, train.Result, error) {
	g, err := t.Model.Preprocess(p.Adj, p.Features)
	if err != nil {
		return nil, train.Result{}, err
	}
	cfg := s.Fit.config(s.Seed)
	cfg.Progress = epoch
	cfg.BatchSize = s.EffectiveBatchSize(p.NumNodes())
	res, err := train.Fit(ctx, t.Model, g, p, cfg)
	return g, res, err
}

// EvalResult is the outcome of Eval.Run.
type EvalResult struct {
	Dataset      string  `json:"dataset"`
	Model        string  `json:"model"`
	SplitSeed    int     `json:"split_seed"`
	Graph        string  `json:"graph,omitempty"`
	FeatureFlips int     `json:"feature_flips,omitempty"`
	TestAccuracy float64 `json:"test_accuracy"`
	NTest        int     `json:"n_test"`
	NCorrect     int     `json:"n_correct"`
	Edges        int     `json:"edges"`
	// NaNLogits says why the model's logits were NaN, as the reference's
	// are on such a graph (protocol.Evaluation.NaN); "" when finite.
	NaNLogits string `json:"nan_logits,omitempty"`
}

// Run evaluates the trained model t on s.Graph (the clean graph when
// empty): its preprocessing is recomputed on that graph.
func (s Eval) Run(ctx context.Context, p *data.Problem, t *Trained) (*EvalResult, error) {
	gr, err := OnGraph(p, s.Graph)
	if err != nil {
		return nil, err
	}
	q := gr.Problem
	ev, err := protocol.Evaluate(t.Model, q, q.Adj)
	if err != nil {
		return nil, err
	}
	acc := ev.Accuracy
	return &EvalResult{Dataset: p.Name, Model: t.Spec.Model, SplitSeed: p.SplitSeed, Graph: gr.Path,
		FeatureFlips: gr.FeatureFlips, TestAccuracy: acc, NTest: len(p.Test),
		NCorrect: int(acc*float64(len(p.Test)) + 0.5), Edges: q.Adj.Nnz() / 2, NaNLogits: ev.NaN}, nil
}

// Uses lists the options a model reads (model.Spec.Uses).
type Uses = model.Uses

// UsesOf returns what the named model uses (zero for an unknown name).
func UsesOf(name string) Uses {
	s, _ := Models().Lookup(name)
	return s.Uses
}
