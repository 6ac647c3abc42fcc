package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

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
}

// Summary is the outcome of Execute.
type Summary struct {
	Experiment  string   `json:"experiment"`
	Total       int      `json:"total"`
	AlreadyDone int      `json:"already_done"`
	Ran         int      `json:"ran"`
	Failed      int      `json:"failed"`
	Unavailable int      `json:"unavailable"`
	Failures    []string `json:"failures,omitempty"`
	Notes       []string `json:"notes,omitempty"`
	Seconds     float64  `json:"seconds"`
}

// Execute expands the experiment, skips runs whose key is in the store,
// and runs the rest on a worker pool, committing each result in its own
// transaction as it finishes. Cancelling ctx stops taking new runs; runs in
// flight are abandoned (nothing of them is recorded), so Execute can be
// resumed at any point by calling it again.
func Execute(ctx context.Context, env *Env, e *Experiment, opt RunOptions) (Summary, error) {
	start := time.Now()
	sum := Summary{Experiment: e.Name}
	if env.Experiment == "" {
		env.Experiment = e.Name
	}
	runs, err := e.Expand(env.Kinds)
	if err != nil {
		return sum, err
	}
	if len(opt.Only) > 0 {
		keep := runs[:0]
		for _, r := range runs {
			for _, k := range opt.Only {
				if r.Kind == k {
					keep = append(keep, r)
				}
			}
		}
		runs = keep
	}
	sum.Total = len(runs)
	keys := make([]string, len(runs))
	for i, r := range runs {
		keys[i] = r.Key
	}
	done, err := env.Store.Has(ctx, keys)
	if err != nil {
		return sum, err
	}
	var todo []Run
	for _, r := range runs {
		if done[r.Key] {
			sum.AlreadyDone++
		} else {
			todo = append(todo, r)
		}
	}
	// Training first: later kinds depend on the weights.
	sort.SliceStable(todo, func(i, j int) bool { return todo[i].Kind == "train" && todo[j].Kind != "train" })

	var mu sync.Mutex
	logf := func(format string, args ...any) {
		if opt.Progress != nil {
			fmt.Fprintf(opt.Progress, format+"\n", args...)
		}
	}
	logf("%s: %d runs, %d already done, %d to run", e.Name, sum.Total, sum.AlreadyDone, len(todo))
	workers := opt.Workers
	if workers <= 0 {
		workers = 1
	}
	running := map[string]time.Time{}
	finished := sum.AlreadyDone
	unavailable := map[string]bool{}
	status := func() {
		mu.Lock()
		defer mu.Unlock()
		var names []string
		for l, t := range running {
			names = append(names, fmt.Sprintf("%s (%.0f s)", l, time.Since(t).Seconds()))
		}
		sort.Strings(names)
		el := time.Since(start)
		eta := ""
		if n := sum.Ran + sum.Failed; n > 0 {
			rest := len(todo) - n - sum.Unavailable
			eta = fmt.Sprintf(", ~%s left", (el / time.Duration(n) * time.Duration(rest)).Round(time.Second))
		}
		logf("[%d/%d] %s elapsed%s; running: %s", finished, sum.Total, el.Round(time.Second), eta, strings.Join(names, ", "))
	}
	stopStatus := make(chan struct{})
	var statusWG sync.WaitGroup
	if opt.StatusEvery > 0 {
		statusWG.Add(1)
		go func() {
			defer statusWG.Done()
			t := time.NewTicker(opt.StatusEvery)
			defer t.Stop()
			for {
				select {
				case <-t.C:
					status()
				case <-stopStatus:
					return
				}
			}
		}()
	}

	jobs := make(chan Run)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range jobs {
				label := r.Label()
				mu.Lock()
				running[label] = time.Now()
				mu.Unlock()
				t0 := time.Now()
				out, err := runOne(ctx, env, r)
				secs := time.Since(t0).Seconds()
				mu.Lock()
				delete(running, label)
				switch {
				case err == nil:
					sum.Ran++
					finished++
					logf("[%d/%d] ok   %s (%.1f s)%s", finished, sum.Total, label, secs, brief(out.Metrics))
				case errors.Is(err, ErrUnavailable):
					sum.Unavailable++
					if !unavailable[r.Kind] {
						unavailable[r.Kind] = true
						sum.Notes = append(sum.Notes, fmt.Sprintf("%s runs skipped: %v", r.Kind, err))
					}
				case ctx.Err() != nil:
					// cancelled: nothing recorded, the run is redone on resume
				default:
					sum.Failed++
					finished++
					sum.Failures = append(sum.Failures, fmt.Sprintf("%s [%s]: %v", label, r.Key, err))
					logf("[%d/%d] FAIL %s: %v", finished, sum.Total, label, err)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, r := range todo {
		select {
		case jobs <- r:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	close(stopStatus)
	statusWG.Wait()
	sum.Seconds = time.Since(start).Seconds()
	for _, n := range sum.Notes {
		logf("note: %s", n)
	}
	if err := ctx.Err(); err != nil {
		return sum, fmt.Errorf("%s: stopped after %d of %d runs (rerun to resume): %w", e.Name, finished, sum.Total, err)
	}
	return sum, nil
}

// runOne runs r through Env.Require (so a run that another worker needs as
// a dependency at the same moment executes once) and records a failure.
func runOne(ctx context.Context, env *Env, r Run) (*Output, error) {
	k, _ := env.Kinds.Lookup(r.Kind)
	res, err := env.require(ctx, k, r.Key, r.Params)
	if err != nil {
		if !errors.Is(err, ErrUnavailable) && ctx.Err() == nil {
			if ferr := env.Store.PutFailure(context.WithoutCancel(ctx), store.Failure{Key: r.Key, Kind: r.Kind,
				Experiment: env.Experiment, Params: r.Params, Error: err.Error(), At: time.Now()}); ferr != nil {
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
