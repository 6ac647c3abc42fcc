package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/experiment/store"
)

// RunOptions configure Execute.
type RunOptions struct {
	// Workers is the number of runs executed concurrently (≤ 0: 1; the
	// kernels are already parallel, so more workers mostly help small runs).
	Workers int
	// Progress receives one line per finished run and a status line every
	// StatusEvery (nil: silent).
	Progress    io.Writer
	StatusEvery time.Duration
	// Only, if set, restricts the runs to these kinds.
	Only []string
	// RetryFailed queues the grid's failed runs again; without it a run
	// that failed before (here or in another process) keeps its error and
	// is not run.
	RetryFailed bool
	// Worker names this process in the store's queue (empty: WorkerID());
	// Lease is the length of its claims between heartbeats (0:
	// DefaultLease).
	Worker string
	Lease  time.Duration
}

// Summary is the outcome of Execute.
type Summary struct {
	Experiment  string `json:"experiment"`
	Total       int    `json:"total"`
	AlreadyDone int    `json:"already_done"`
	Ran         int    `json:"ran"`
	Failed      int    `json:"failed"`
	Unavailable int    `json:"unavailable"`
	// ByOthers counts runs of the grid that other processes finished while
	// this one ran; FailedBefore, runs that failed before and were not
	// retried (RetryFailed).
	ByOthers     int      `json:"by_others"`
	FailedBefore int      `json:"failed_before"`
	Failures     []string `json:"failures,omitempty"`
	Notes        []string `json:"notes,omitempty"`
	Seconds      float64  `json:"seconds"`
}

// Execute expands the experiment, skips runs whose key is in the store,
// enqueues the rest in the store's queue and runs them on a worker pool,
// each worker claiming a run (with a lease renewed by a heartbeat) when it
// is free and committing its result in its own transaction as it finishes.
// Runs claimed by other processes on the same store (another `rgnn run` of
// the grid, `rgnn worker`s) are left to them and waited for; if their lease
// expires (the holder died) they are claimed here. Cancelling ctx stops
// taking new runs; runs in flight are abandoned (nothing of them is
// recorded, their claims are released), so Execute can be resumed at any
// point by calling it again. A dataset that is missing
// (*data.MissingError) stops it at the first run that needs it: no further
// run is started, and that one error is returned.
func Execute(ctx context.Context, env *Env, e *Experiment, opt RunOptions) (Summary, error) {
	x := &execution{env: env, opt: opt, start: time.Now(), sum: Summary{Experiment: e.Name},
		running: map[string]inFlight{}, unavailable: map[string]bool{}}
	if env.Experiment == "" {
		env.Experiment = e.Name
	}
	todo, err := x.plan(ctx, e)
	if err != nil {
		return x.sum, err
	}
	x.logf("%s: %d runs, %d already done, %d to run", e.Name, x.sum.Total, x.sum.AlreadyDone, len(todo))
	if err := x.enqueue(ctx, e.Name, todo); err != nil {
		return x.sum, err
	}
	return x.runGrid(ctx, todo)
}

// runGrid runs the planned and queued runs todo on the worker pool and
// returns the summary: a missing dataset or a cancelled ctx end it with an
// error that says how far it got.
func (x *execution) runGrid(ctx context.Context, todo []Run) (Summary, error) {
	x.todo = len(todo)
	x.planTimeLeft(ctx, todo)
	l := newLease(x.env.Store, x.opt.Worker, x.opt.Lease)
	stopStatus := x.statusEvery(x.opt.StatusEvery)
	err := x.runClaimed(ctx, l, max(x.opt.Workers, 1), x.gridSource(l, todo))
	stopStatus()
	if err != nil {
		return x.sum, err
	}
	x.sum.Seconds = time.Since(x.start).Seconds()
	for _, n := range x.sum.Notes {
		x.logf("note: %s", n)
	}
	name := x.sum.Experiment
	if x.missing != nil {
		return x.sum, fmt.Errorf("%s: stopped after %d of %d runs: %w", name, x.finished, x.sum.Total, x.missing)
	}
	if err := ctx.Err(); err != nil {
		return x.sum, fmt.Errorf("%s: stopped after %d of %d runs (rerun to resume): %w", name, x.finished, x.sum.Total, err)
	}
	return x.sum, nil
}

// ExecuteAll executes several experiments as one grid on one worker pool,
// as Execute does one: every experiment's runs are planned and queued
// (each recorded with its own experiment's name; a run that an earlier
// experiment has too counts there only) before the first starts, then
// handed out in order, trainings first, so that no worker idles at the end
// of one experiment while another has runs to give, and runs of different
// experiments that share their work (certify runs drawing the same
// samples) find each other in the queue.
func ExecuteAll(ctx context.Context, env *Env, es []*Experiment, opt RunOptions) (Summary, error) {
	if len(es) == 1 {
		return Execute(ctx, env, es[0], opt)
	}
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.Name
	}
	x := &execution{env: env, opt: opt, start: time.Now(), sum: Summary{Experiment: strings.Join(names, ", ")},
		running: map[string]inFlight{}, unavailable: map[string]bool{}, names: map[string]string{}}
	var todo []Run
	for _, e := range es {
		runs, err := e.Expand(env.Kinds)
		if err != nil {
			return x.sum, fmt.Errorf("%s: %w", e.Name, err)
		}
		own := runs[:0:0]
		for _, r := range runs {
			if _, seen := x.names[r.Key]; !seen {
				x.names[r.Key] = e.Name
				own = append(own, r)
			}
		}
		total, done := x.sum.Total, x.sum.AlreadyDone
		t, err := x.planRuns(ctx, own)
		if err != nil {
			return x.sum, fmt.Errorf("%s: %w", e.Name, err)
		}
		x.logf("%s: %d runs, %d already done, %d to run", e.Name, x.sum.Total-total, x.sum.AlreadyDone-done, len(t))
		if err := x.enqueue(ctx, e.Name, t); err != nil {
			return x.sum, fmt.Errorf("%s: %w", e.Name, err)
		}
		todo = append(todo, t...)
	}
	sort.SliceStable(todo, func(i, j int) bool { return todo[i].Kind == "train" && todo[j].Kind != "train" })
	return x.runGrid(ctx, todo)
}

// execution is the state of one Execute: the summary so far and the runs
// in flight, guarded by mu.
type execution struct {
	env   *Env
	opt   RunOptions
	start time.Time

	mu          sync.Mutex
	sum         Summary
	todo        int
	finished    int
	running     map[string]inFlight // run key -> the run in flight
	unavailable map[string]bool
	missing     error              // the first *data.MissingError
	halt        context.CancelFunc // stops feeding runs
	longest     time.Duration      // the longest run so far
	experiments map[string]string  // run key -> experiment that enqueued it (workers)
	names       map[string]string  // run key -> its experiment (ExecuteAll)
	// The time left: the grid's runs without a result yet and what runs
	// like them cost (status_eta.go).
	left map[string]Run
	cost *costModel
}

// inFlight is a run being executed: its label and since when.
type inFlight struct {
	label string
	since time.Time
}

// enqueue puts todo in the store's queue (training first) and, if asked,
// queues its failed runs again.
func (x *execution) enqueue(ctx context.Context, name string, todo []Run) error {
	items := make([]store.QueueItem, len(todo))
	keys := make([]string, len(todo))
	for i, r := range todo {
		items[i] = store.QueueItem{Key: r.Key, Kind: r.Kind, Experiment: name, Params: r.Params, Priority: priority(r.Kind)}
		keys[i] = r.Key
	}
	if _, err := x.env.Store.Enqueue(ctx, items); err != nil {
		return err
	}
	if x.opt.RetryFailed {
		n, err := x.env.Store.RetryFailed(ctx, keys)
		if err != nil {
			return err
		}
		if n > 0 {
			x.logf("%d failed runs queued again", n)
		}
	}
	return nil
}

func (x *execution) logf(format string, args ...any) {
	if x.opt.Progress != nil {
		fmt.Fprintf(x.opt.Progress, format+"\n", args...)
	}
}

// plan expands e, keeps the kinds in opt.Only, and returns the runs the
// store does not have yet, training first (later kinds need the weights).
func (x *execution) plan(ctx context.Context, e *Experiment) ([]Run, error) {
	runs, err := e.Expand(x.env.Kinds)
	if err != nil {
		return nil, err
	}
	return x.planRuns(ctx, runs)
}

// planRuns is plan for expanded runs; the summary's counts add up over
// calls (ExecuteAll plans several experiments).
func (x *execution) planRuns(ctx context.Context, runs []Run) ([]Run, error) {
	if len(x.opt.Only) > 0 {
		keep := runs[:0]
		for _, r := range runs {
			if slices.Contains(x.opt.Only, r.Kind) {
				keep = append(keep, r)
			}
		}
		runs = keep
	}
	x.sum.Total += len(runs)
	keys := make([]string, len(runs))
	for i, r := range runs {
		keys[i] = r.Key
	}
	done, err := x.env.Store.Has(ctx, keys)
	if err != nil {
		return nil, err
	}
	var todo []Run
	for _, r := range runs {
		if done[r.Key] {
			x.sum.AlreadyDone++
		} else {
			todo = append(todo, r)
		}
	}
	x.finished = x.sum.AlreadyDone
	sort.SliceStable(todo, func(i, j int) bool { return todo[i].Kind == "train" && todo[j].Kind != "train" })
	return todo, nil
}

// statusEvery prints a status line every d (0: never) until the returned
// function is called.
func (x *execution) statusEvery(d time.Duration) (stop func()) {
	if d <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				x.status()
			case <-done:
				return
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// status prints the progress, an estimate of the time left and the runs in
// flight.
func (x *execution) status() {
	x.refreshLeft()
	x.mu.Lock()
	defer x.mu.Unlock()
	var names []string
	for _, f := range x.running {
		names = append(names, fmt.Sprintf("%s (%.0f s)", f.label, time.Since(f.since).Seconds()))
	}
	sort.Strings(names)
	el := time.Since(x.start)
	eta := ""
	if d, ok := x.timeLeft(); ok {
		eta = fmt.Sprintf(", ~%s left", d.Round(time.Second))
	} else if n := x.sum.Ran + x.sum.Failed; n > 0 && n >= max(3, x.todo/10) {
		// Without stored times of runs like these: from the runs done so
		// far, once they are a tenth of the grid (the first runs,
		// trainings and a certify run that takes its companions along, say
		// little about the rest).
		rest := x.todo - n - x.sum.Unavailable
		eta = fmt.Sprintf(", ~%s left", (el / time.Duration(n) * time.Duration(rest)).Round(time.Second))
	}
	x.logf("[%d/%d] %s elapsed%s; running: %s", x.finished, x.sum.Total, el.Round(time.Second), eta, strings.Join(names, ", "))
}

// runRecorded runs r and records its outcome in the summary. It reports
// whether the store recorded it (a result or a failure); a run it did not
// record (cancelled, unavailable, missing data) is for the queue again.
// pre, if not nil, holds the runs claimed to share r's work as it was
// handed out (preformGroup).
func (x *execution) runRecorded(ctx context.Context, r Run, pre *companionSet) (recorded bool) {
	label := r.Label()
	x.mu.Lock()
	x.running[r.Key] = inFlight{label: label, since: time.Now()}
	name := x.experiments[r.Key]
	if name == "" {
		name = x.names[r.Key]
	}
	if name != "" {
		ctx = withExperiment(ctx, name)
	}
	x.mu.Unlock()
	if pre != nil {
		ctx = withCompanions(ctx, pre)
		// Companions the run did not take (its result was found stored)
		// go back to the queue.
		defer func() { x.env.releaseCompanions(context.WithoutCancel(ctx), pre.left()) }()
	}
	t0 := time.Now()
	out, err := runOne(ctx, x.env, r)
	if err == nil {
		// The result may have been in the store already (then Put did not
		// run): the queue entry is done either way.
		err = x.env.Store.MarkDone(context.WithoutCancel(ctx), r.Key)
	}
	took := time.Since(t0)
	secs := took.Seconds()
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.running, r.Key)
	x.longest = max(x.longest, took)
	switch {
	case err == nil:
		recorded = true
		x.sum.Ran++
		x.finished++
		x.logf("[%d/%d] ok   %s (%.1f s)%s", x.finished, x.sum.Total, label, secs, brief(out.Metrics))
	case errors.As(err, new(*data.MissingError)):
		if x.missing == nil {
			x.missing = err
			x.halt()
		}
	case errors.Is(err, ErrUnavailable):
		if x.experiments != nil {
			// A worker would claim it again and again: record it as failed
			// (--retry-failed queues it again for a build that has it).
			recorded = x.env.Store.PutFailure(context.WithoutCancel(ctx), store.Failure{Key: r.Key, Kind: r.Kind,
				Experiment: x.experiments[r.Key], Params: r.Params, Error: err.Error(), At: time.Now()}) == nil
		}
		x.sum.Unavailable++
		delete(x.left, r.Key)
		if !x.unavailable[r.Kind] {
			x.unavailable[r.Kind] = true
			x.sum.Notes = append(x.sum.Notes, fmt.Sprintf("%s runs skipped: %v", r.Kind, err))
		}
	case ctx.Err() != nil:
		// cancelled: nothing recorded, the run is redone on resume
	default:
		recorded = true
		x.sum.Failed++
		x.finished++
		delete(x.left, r.Key)
		x.sum.Failures = append(x.sum.Failures, fmt.Sprintf("%s [%s]: %v", label, r.Key, err))
		x.logf("[%d/%d] FAIL %s: %v", x.finished, x.sum.Total, label, err)
	}
	return recorded
}

// runOne runs r through Env.Require (so a run that another worker needs as
// a dependency at the same moment executes once) and records a failure.
func runOne(ctx context.Context, env *Env, r Run) (*Output, error) {
	k, _ := env.Kinds.Lookup(r.Kind)
	res, err := env.require(ctx, k, r.Key, r.Params)
	if err != nil {
		if !errors.Is(err, ErrUnavailable) && !errors.As(err, new(*data.MissingError)) && ctx.Err() == nil {
			if ferr := env.Store.PutFailure(context.WithoutCancel(ctx), store.Failure{Key: r.Key, Kind: r.Kind,
				Experiment: env.experimentName(ctx), Params: r.Params, Error: err.Error(), At: time.Now()}); ferr != nil {
				return nil, errors.Join(err, ferr)
			}
		}
		return nil, err
	}
	return &Output{Metrics: res.Metrics, Artifacts: res.Artifacts}, nil
}

// brief renders the scalar headline metrics of a run.
func brief(m map[string]any) string {
	var parts []string
	for _, k := range []string{"test_accuracy", "perturbed_acc", "accumulated_certifications", "smoothed_accuracy"} {
		if v, ok := m[k].(float64); ok {
			parts = append(parts, fmt.Sprintf("%s=%.4f", k, v))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "  " + strings.Join(parts, " ")
}
