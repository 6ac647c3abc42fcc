package experiment

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/train"
)

// isSoft reports whether a model uses the temperature parameter.
func isSoft(name string) bool { return strings.HasPrefix(name, "sm_") || name == "softmedian_gdc" }

// Env is what runs share: the store, the dataset and model registries, and
// in-process caches. It is safe for concurrent use by the runner's workers.
type Env struct {
	Store      *store.Store
	Kinds      *Kinds
	Models     *model.Registry
	DataDir    string
	Experiment string // name recorded with results produced as dependencies
	// SampleWorkers is the number of goroutines a certify run samples with
	// (0: GOMAXPROCS).
	SampleWorkers int
	// Log receives progress lines (nil: discarded).
	Log io.Writer

	mu       sync.Mutex
	datasets map[string]*datasetEntry
	flights  map[string]*flight
}

type datasetEntry struct {
	once sync.Once
	g    *data.Graph
	x    *autograd.Sparse
	err  error
}

type flight struct {
	done chan struct{}
	res  store.Result
	err  error
}

// Problem is a loaded dataset with the split of one seed.
type Problem struct {
	Graph            *data.Graph
	X                *autograd.Sparse
	Train, Val, Test []int
}

func (e *Env) logf(format string, args ...any) {
	if e.Log != nil {
		e.mu.Lock()
		fmt.Fprintf(e.Log, format+"\n", args...)
		e.mu.Unlock()
	}
}

// Problem loads (once per process) the run's dataset and returns its split.
func (e *Env) Problem(ctx context.Context, p store.Params) (*Problem, error) {
	name, bin := pStr(p, "dataset"), pBool(p, "binary_attr")
	key := fmt.Sprintf("%s|%v", name, bin)
	e.mu.Lock()
	if e.datasets == nil {
		e.datasets = map[string]*datasetEntry{}
	}
	d, ok := e.datasets[key]
	if !ok {
		d = &datasetEntry{}
		e.datasets[key] = d
	}
	e.mu.Unlock()
	d.once.Do(func() {
		if strings.HasSuffix(name, ".npz") {
			d.g, d.err = data.LoadFile(name, bin)
		} else {
			d.g, d.err = data.Load(ctx, name, data.Options{Dir: e.DataDir, BinaryAttr: bin})
		}
		if d.err == nil {
			d.x = autograd.NewSparse(d.g.Features)
		}
	})
	if d.err != nil {
		return nil, d.err
	}
	seed := pInt(p, "seed")
	tr, va, te, err := data.Split(d.g.Labels, d.g.NumClasses, 20, uint32(seed))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Problem{Graph: d.g, X: d.x, Train: tr, Val: va, Test: te}, nil
}

// ModelOptions are the model.Options of the run's parameters.
func ModelOptions(p store.Params) model.Options {
	return model.Options{
		Hidden: pInt(p, "hidden"), Temperature: pFloat(p, "temperature"), K: pInt(p, "k"),
		Normalization: pStr(p, "normalization"), PPREps: pFloat(p, "ppr_eps"), Seed: uint64(pInt(p, "seed")),
	}
}

// NewModel builds the run's model (untrained).
func (e *Env) NewModel(p store.Params, pb *Problem, o model.Options) (model.Model, error) {
	return e.Models.New(pStr(p, "model"), pb.Graph.Features.Cols, pb.Graph.NumClasses, o)
}

// Trained returns the model of the run's model and training parameters with
// trained weights: loaded from the store's train result with the same
// parameters, or trained now (and recorded) if there is none. Concurrent
// calls for the same parameters train once.
func (e *Env) Trained(ctx context.Context, p store.Params) (model.Model, *Problem, store.Result, error) {
	res, err := e.Require(ctx, "train", p)
	if err != nil {
		return nil, nil, store.Result{}, err
	}
	tp := res.Params
	pb, err := e.Problem(ctx, tp)
	if err != nil {
		return nil, nil, store.Result{}, err
	}
	m, err := e.NewModel(tp, pb, ModelOptions(tp))
	if err != nil {
		return nil, nil, store.Result{}, err
	}
	path, err := e.Store.OpenArtifact(res.Artifacts["weights"])
	if err != nil {
		return nil, nil, store.Result{}, err
	}
	if err := model.LoadWeights(m, path); err != nil {
		return nil, nil, store.Result{}, err
	}
	return m, pb, res, nil
}

// Require returns the result of the run of kind whose parameters are p's
// (projected onto the kind's parameters, defaults filled in): from the
// store, or by running it now and recording it. This is how runs depend on
// each other — through their parameters, never through run ids: a certify
// run requires the train run with its model and training parameters. In one
// process, concurrent calls for the same run execute it once.
func (e *Env) Require(ctx context.Context, kind string, p store.Params) (store.Result, error) {
	k, ok := e.Kinds.Lookup(kind)
	if !ok {
		return store.Result{}, fmt.Errorf("unknown kind %q", kind)
	}
	kp, err := e.Kinds.project(k, p)
	if err != nil {
		return store.Result{}, err
	}
	key, err := store.Key(k.Name, kp)
	if err != nil {
		return store.Result{}, err
	}
	return e.require(ctx, k, key, kp)
}

func (e *Env) require(ctx context.Context, k *Kind, key string, kp store.Params) (store.Result, error) {
	if r, ok, err := e.Store.Get(ctx, key); err != nil || ok {
		return r, err
	}
	e.mu.Lock()
	if e.flights == nil {
		e.flights = map[string]*flight{}
	}
	f, running := e.flights[key]
	if !running {
		f = &flight{done: make(chan struct{})}
		e.flights[key] = f
	}
	e.mu.Unlock()
	if running {
		select {
		case <-f.done:
			return f.res, f.err
		case <-ctx.Done():
			return store.Result{}, ctx.Err()
		}
	}
	defer func() {
		close(f.done)
		e.mu.Lock()
		delete(e.flights, key)
		e.mu.Unlock()
	}()
	// Another process may have finished it meanwhile.
	if r, ok, err := e.Store.Get(ctx, key); err != nil || ok {
		f.res, f.err = r, err
		return r, err
	}
	start := time.Now()
	out, err := k.Run(ctx, e, kp)
	if err != nil {
		f.err = err
		return store.Result{}, err
	}
	f.res = store.Result{Key: key, Kind: k.Name, Experiment: e.Experiment, Params: kp, Metrics: out.Metrics,
		Artifacts: out.Artifacts, Started: start, Finished: time.Now(), Seconds: time.Since(start).Seconds()}
	if _, err := e.Store.Put(ctx, f.res); err != nil {
		f.err = err
	}
	return f.res, f.err
}

// train fits the model of tp and stores its weights as an artifact.
func (e *Env) train(ctx context.Context, tp store.Params) (*Output, error) {
	pb, err := e.Problem(ctx, tp)
	if err != nil {
		return nil, err
	}
	m, err := e.NewModel(tp, pb, ModelOptions(tp))
	if err != nil {
		return nil, err
	}
	g, err := m.Preprocess(pb.Graph.Adj, pb.Graph.Features)
	if err != nil {
		return nil, err
	}
	cfg := train.Config{Seed: uint64(pInt(tp, "seed")), MaxEpochs: pInt(tp, "max_epochs"),
		Patience: pInt(tp, "patience"), LR: pFloat(tp, "lr"), WeightDecay: pFloat(tp, "weight_decay")}
	if cfg.WeightDecay == 0 {
		cfg.WeightDecay = -1 // explicit none
	}
	res, err := train.Fit(ctx, m, g, attackProblem(pb), cfg)
	if err != nil {
		return nil, err
	}
	logits := train.Predict(m, g, pb.X)
	sha, err := e.Store.PutArtifact(func(path string) error { return model.SaveWeights(m, path) })
	if err != nil {
		return nil, err
	}
	return &Output{
		Metrics: map[string]any{
			"test_accuracy": train.Accuracy(logits, pb.Graph.Labels, pb.Test),
			"val_accuracy":  train.Accuracy(logits, pb.Graph.Labels, pb.Val),
			"epochs":        res.Epochs, "best_epoch": res.BestEpoch, "best_val_loss": res.BestValLoss,
			"ms_per_epoch": res.MsPerEpoch, "train_seconds": res.DurationSecs,
		},
		Artifacts: map[string]string{"weights": sha},
	}, nil
}
