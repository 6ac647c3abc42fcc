package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"time"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/task"
)

// Env is what runs share: the store, the kinds, the dataset loader and
// in-process caches. It is safe for concurrent use by the runner's workers.
type Env struct {
	Store      *store.Store
	Kinds      *Kinds
	DataDir    string
	Experiment string // name recorded with results produced as dependencies
	// SampleWorkers is the number of goroutines a certify run samples with
	// (0: GOMAXPROCS).
	SampleWorkers int
	// Log receives progress lines (nil: discarded).
	Log io.Writer

	mu      sync.Mutex
	loader  *task.Loader
	flights map[string]*flight
	claims  *lease          // set while runs are claimed from the store's queue
	shared  map[string]bool // runs stored by another run that shared their work (runCertify)
	forming sync.Mutex      // held while a certify run claims its companions
	// checkpointAfter is the least time between two checkpoints of a
	// perturb run's flips (0: flipsCheckpointAfter; tests shorten it).
	checkpointAfter time.Duration
}

// markShared records that run key was executed and stored as part of
// another run (a certify run that shared its samples, or a dependency such
// as the training an eval run required); shared false takes the mark back
// (its result could not be stored).
func (e *Env) markShared(key string, shared bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.shared == nil {
		e.shared = map[string]bool{}
	}
	if shared {
		e.shared[key] = true
	} else {
		delete(e.shared, key)
	}
}

// ranShared reports whether run key was executed here as part of another run.
func (e *Env) ranShared(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.shared[key]
}

// setCoordinator makes require coordinate runs with other workers through
// l (nil: run whatever is missing).
func (e *Env) setCoordinator(l *lease) {
	e.mu.Lock()
	e.claims = l
	e.mu.Unlock()
}

type flight struct {
	done chan struct{}
	res  store.Result
	err  error
}

type experimentKey struct{}

// withExperiment makes name the experiment recorded with the results of
// runs under ctx (a worker runs runs of several grids with one Env).
func withExperiment(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, experimentKey{}, name)
}

// experimentName is the experiment recorded with results made under ctx.
func (e *Env) experimentName(ctx context.Context) string {
	if name, ok := ctx.Value(experimentKey{}).(string); ok && name != "" {
		return name
	}
	return e.Experiment
}

func (e *Env) logf(format string, args ...any) {
	if e.Log != nil {
		e.mu.Lock()
		fmt.Fprintf(e.Log, format+"\n", args...)
		e.mu.Unlock()
	}
}

// Problem loads (once per process) the dataset d and returns its split of
// seed.
func (e *Env) Problem(ctx context.Context, d task.Data, seed int) (*data.Problem, error) {
	e.mu.Lock()
	if e.loader == nil {
		e.loader = &task.Loader{Dir: e.DataDir, Report: e.Log}
	}
	l := e.loader
	e.mu.Unlock()
	return l.Problem(ctx, d, seed)
}

// ParamsOf returns the run parameters of a spec (a pointer to a task spec):
// every experiment parameter with its value, in the store's form.
func ParamsOf(spec any) store.Params {
	p := store.Params{}
	for _, f := range task.Fields(spec) {
		if !f.CLIOnly {
			p[f.Param] = f.ParamValue()
		}
	}
	return p
}

// Trained returns the model of the training spec s with trained weights:
// loaded from the store's train result with the same parameters, or trained
// now (and recorded) if there is none. Concurrent calls for the same
// parameters train once. It also returns the problem and the train result.
func (e *Env) Trained(ctx context.Context, s task.Train) (*task.Trained, *data.Problem, store.Result, error) {
	if s.Model.External() {
		// Its weights live in its process: started here (and fitted on the
		// run's problem if it fits itself), no train run read. The caller
		// closes it.
		p, err := e.Problem(ctx, s.Data, s.Seed)
		if err != nil {
			return nil, nil, store.Result{}, err
		}
		t, err := s.LoadOrTrain(ctx, p, "", task.Hooks{})
		if err != nil {
			return nil, nil, store.Result{}, err
		}
		acc, err := task.Accuracy(t, p)
		if err != nil {
			t.Close()
			return nil, nil, store.Result{}, err
		}
		return t, p, store.Result{Metrics: map[string]any{"test_accuracy": acc}}, nil
	}
	res, err := e.Require(ctx, "train", ParamsOf(&s))
	if err != nil {
		return nil, nil, store.Result{}, err
	}
	p, err := e.Problem(ctx, s.Data, s.Seed)
	if err != nil {
		return nil, nil, store.Result{}, err
	}
	path, err := e.artifact(ctx, res, "weights")
	if err != nil {
		return nil, nil, store.Result{}, err
	}
	t, err := task.Load(s.Model, p, s.Seed, path)
	if err != nil {
		return nil, nil, store.Result{}, err
	}
	return t, p, res, nil
}

// artifact returns the path of the artifact name of the stored result res.
// A result imported without its artifact files (a results file) names one
// the folder lacks: the run is then recomputed here — runs are
// deterministic — and the new file must have the recorded hash (else an
// error, and the store keeps what it had). Concurrent requests for the same
// artifact recompute it once.
func (e *Env) artifact(ctx context.Context, res store.Result, name string) (string, error) {
	sha, ok := res.Artifacts[name]
	if !ok {
		return "", fmt.Errorf("%s run %s has no artifact %q", res.Kind, res.Key, name)
	}
	path, err := e.Store.OpenArtifact(sha)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return path, err
	}
	k, ok := e.Kinds.Lookup(res.Kind)
	if !ok {
		return "", fmt.Errorf("artifact %s of run %s: unknown kind %q", name, res.Key, res.Kind)
	}
	flightKey := "artifact " + sha
	f, lead, err := e.joinFlight(ctx, flightKey)
	if err != nil {
		return "", err
	}
	if lead {
		func() {
			defer e.landFlight(flightKey, f)
			e.logf("  %s of %s run %s is not in the artifact folder (imported without it): recomputing the run", name, res.Kind, res.Key)
			out, err := k.Run(ctx, e, res.Params)
			switch {
			case err != nil:
				f.err = fmt.Errorf("recomputing the %s of %s run %s: %w", name, res.Kind, res.Key, err)
			case out.Artifacts[name] != sha:
				f.err = fmt.Errorf("recomputing the %s of %s run %s gave content hash %s, the store records %s "+
					"(another build or machine? the run is not bit-for-bit reproducible here)", name, res.Kind, res.Key,
					out.Artifacts[name], sha)
			}
		}()
	}
	if f.err != nil {
		return "", f.err
	}
	return e.Store.OpenArtifact(sha)
}

// joinFlight returns the flight of key: a new one that the caller leads
// (lead: it must call landFlight when done), or the one already running,
// once it has landed (err: ctx ended first).
func (e *Env) joinFlight(ctx context.Context, key string) (f *flight, lead bool, err error) {
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
	if !running {
		return f, true, nil
	}
	select {
	case <-f.done:
		return f, false, nil
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
}

// landFlight ends the flight of key that the caller led: its waiters wake
// up, and the next joinFlight of key leads a new one.
func (e *Env) landFlight(key string, f *flight) {
	close(f.done)
	e.mu.Lock()
	delete(e.flights, key)
	e.mu.Unlock()
}

// Require returns the result of the run of kind whose parameters are p's
// (projected onto the kind's parameters, defaults filled in): from the
// store, or by running it now and recording it. This is how runs depend on
// each other — through their parameters, never through run ids: a certify
// run requires the train run with its model and training parameters. In one
// process, concurrent calls for the same run execute it once.
func (e *Env) Require(ctx context.Context, kind string, p store.Params) (store.Result, error) {
	key, kp, err := e.Kinds.Dependency(kind, p)
	if err != nil {
		return store.Result{}, err
	}
	k, _ := e.Kinds.Lookup(kind)
	return e.require(ctx, k, key, kp)
}

func (e *Env) require(ctx context.Context, k *Kind, key string, kp store.Params) (store.Result, error) {
	if r, ok, err := e.Store.Get(ctx, key); err != nil || ok {
		return r, err
	}
	f, lead, err := e.joinFlight(ctx, key)
	if err != nil {
		return store.Result{}, err
	}
	if !lead {
		return f.res, f.err
	}
	defer e.landFlight(key, f)
	// Another process may have finished it meanwhile.
	if r, ok, err := e.Store.Get(ctx, key); err != nil || ok {
		f.res, f.err = r, err
		return r, err
	}
	// Or may be running it now: wait for it rather than run it twice.
	e.mu.Lock()
	claims := e.claims
	e.mu.Unlock()
	if claims != nil {
		if r, ok, err := claims.await(ctx, k.Name, key, kp, e.experimentName(ctx)); err != nil || ok {
			f.res, f.err = r, err
			return r, err
		}
	}
	start := time.Now()
	out, err := k.Run(ctx, e, kp)
	if err != nil {
		f.err = err
		return store.Result{}, err
	}
	secs := time.Since(start).Seconds()
	if out.Seconds > 0 {
		secs = out.Seconds
	}
	f.res = store.Result{Key: key, Kind: k.Name, Experiment: e.experimentName(ctx), Params: kp, Metrics: out.Metrics,
		Artifacts: out.Artifacts, Started: start, Finished: time.Now(), Seconds: secs}
	// A worker of this process waiting for this run (it is in the grid
	// too) sees it done as soon as the Put commits: it was run here.
	e.markShared(key, true)
	if _, err := e.Store.Put(ctx, f.res); err != nil {
		e.markShared(key, false)
		f.err = err
	}
	return f.res, f.err
}
