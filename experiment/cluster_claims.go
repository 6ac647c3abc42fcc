package experiment

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rgnn/rgnn/experiment/store"
)

// DefaultLease is how long a claim holds a run without a heartbeat; the
// holder renews it every third of that.
const DefaultLease = 2 * time.Minute

// WorkerID names this process in the queue: host/pid/pid-namespace-random
// and, inside a Slurm job, /slurm-JOB_TASK. The host, pid and namespace let
// a worker on the same host see that the holder of a run is gone.
func WorkerID() string {
	var b [3]byte
	rand.Read(b[:])
	id := fmt.Sprintf("%s/%d/%s-%s", hostTag(), os.Getpid(), pidNamespace(), hex.EncodeToString(b[:]))
	if j := os.Getenv("SLURM_ARRAY_JOB_ID"); j != "" {
		id += fmt.Sprintf("/slurm-%s_%s", j, os.Getenv("SLURM_ARRAY_TASK_ID"))
	} else if j := os.Getenv("SLURM_JOB_ID"); j != "" {
		id += "/slurm-" + j
	}
	return id
}

func hostTag() string {
	host, _ := os.Hostname()
	return strings.ReplaceAll(host, "/", "_")
}

// pidNamespace identifies this process's pid namespace (the inode of
// /proc/self/ns/pid; "0" where there is none), so pids are compared only
// within one.
func pidNamespace() string {
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return "0"
	}
	return strings.Trim(strings.TrimPrefix(ns, "pid:"), "[]")
}

// deadHere reports whether worker ran on this host in this pid namespace
// and its process no longer exists.
func deadHere(worker string) bool {
	parts := strings.Split(worker, "/")
	if len(parts) < 3 || parts[0] != hostTag() {
		return false
	}
	ns, _, _ := strings.Cut(parts[2], "-")
	pid, err := strconv.Atoi(parts[1])
	if err != nil || ns != pidNamespace() || pid == os.Getpid() {
		return false
	}
	return !processAlive(pid)
}

// releaseDead puts back in the queue the runs held by workers of this host
// whose process is gone (kill -9, the OOM killer), which would otherwise
// stay theirs until their lease expires. Workers elsewhere are left to
// their leases.
func (l *lease) releaseDead(ctx context.Context, q []store.QueueEntry) error {
	for _, e := range q {
		if e.State == store.Claimed && e.Worker != l.worker && e.LeaseLeft > 0 && deadHere(e.Worker) {
			if err := l.st.Release(ctx, e.Worker, e.Key); err != nil {
				return err
			}
		}
	}
	return nil
}

// priority orders claims: training first, since the other kinds load the
// weights it records.
func priority(kind string) int {
	if kind == "train" {
		return 0
	}
	return 1
}

// lease is what an execution needs to hold claims.
type lease struct {
	st     *store.Store
	worker string
	length time.Duration
	poll   time.Duration
}

func newLease(st *store.Store, worker string, length time.Duration) *lease {
	if worker == "" {
		worker = WorkerID()
	}
	if length <= 0 {
		length = DefaultLease
	}
	return &lease{st: st, worker: worker, length: length, poll: min(max(length/10, 100*time.Millisecond), 5*time.Second)}
}

// heartbeat renews the worker's leases every third of their length until
// the returned function is called.
func (l *lease) heartbeat(log func(string, ...any)) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(l.length / 3)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				if _, err := l.st.Heartbeat(context.Background(), l.worker, l.length); err != nil {
					log("heartbeat: %v", err)
				}
			case <-done:
				return
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// await coordinates a run this process is about to execute for a caller
// (a top-level run, or a dependency such as the training a certify run
// needs) with the other workers of the store: it enqueues the run if need
// be and returns to run it here once this worker holds it (it may already);
// while another worker holds it under a live lease it waits for its result
// (ok). A dependency that failed before returns its error: it is retried
// only when asked.
func (l *lease) await(ctx context.Context, kind, key string, p store.Params, experiment string) (store.Result, bool, error) {
	if _, err := l.st.Enqueue(ctx, []store.QueueItem{{Key: key, Kind: kind, Experiment: experiment, Params: p,
		Priority: priority(kind)}}); err != nil {
		return store.Result{}, false, err
	}
	for {
		e, queued, err := l.st.Entry(ctx, key)
		if err != nil {
			return store.Result{}, false, err
		}
		switch {
		case !queued, e.State == store.Claimed && e.Worker == l.worker:
			return store.Result{}, false, nil
		case e.State == store.Failed:
			return store.Result{}, false, fmt.Errorf("%s run %s failed before (--retry-failed runs it again): %s", kind, key, e.Error)
		case e.State == store.Done:
			if r, ok, err := l.st.Get(ctx, key); err != nil || ok {
				return r, ok, err
			}
			// done, but its result was deleted: queue it again
			if _, err := l.st.Enqueue(ctx, []store.QueueItem{{Key: key, Kind: kind, Experiment: experiment, Params: p,
				Priority: priority(kind)}}); err != nil {
				return store.Result{}, false, err
			}
			continue
		}
		if _, ok, err := l.st.ClaimKey(ctx, key, l.worker, l.length); err != nil || ok {
			return store.Result{}, false, err
		}
		if r, ok, err := l.st.Get(ctx, key); err != nil || ok {
			return r, ok, err
		}
		if deadHere(e.Worker) {
			if err := l.st.Release(ctx, e.Worker, key); err != nil {
				return store.Result{}, false, err
			}
			continue
		}
		sleep(ctx, l.poll)
		if err := ctx.Err(); err != nil {
			return store.Result{}, false, err
		}
	}
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// source hands out claimed runs: next blocks until it holds one (ok), or
// there is nothing left for this process (!ok, err nil), or it fails.
type source func(ctx context.Context) (Run, bool, error)

// runClaimed runs what next hands out on a pool of workers, each claiming
// only when it is free, so a busy process never sits on runs others could
// take. Runs abandoned (cancelled, unavailable, missing data) go back to the
// queue.
func (x *execution) runClaimed(ctx context.Context, l *lease, workers int, next source) error {
	feed, halt := context.WithCancel(ctx)
	defer halt()
	x.halt = halt
	stopBeat := x.heartbeatOf(l)
	defer stopBeat()
	x.env.setCoordinator(l)
	defer x.env.setCoordinator(nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	// A certify run claims the runs that share its samples as soon as it
	// is handed out, before the next worker asks: two workers starting at
	// once make one group, not a group and a run left alone that samples
	// the same graphs again.
	var handing sync.Mutex
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for feed.Err() == nil {
				handing.Lock()
				r, ok, err := next(feed)
				var pre *companionSet
				if ok && err == nil {
					pre = x.env.preformGroup(feed, r)
				}
				handing.Unlock()
				if err != nil && feed.Err() == nil {
					mu.Lock()
					firstErr = cmpErr(firstErr, err)
					mu.Unlock()
					halt()
				}
				if !ok || err != nil {
					return
				}
				if !x.runRecorded(ctx, r, pre) {
					// not recorded: give the run back
					l.st.Release(context.WithoutCancel(ctx), l.worker, r.Key)
				}
			}
		}()
	}
	wg.Wait()
	// Whatever this process still holds (cancelled runs) goes back now
	// rather than when its lease expires.
	if err := l.st.Release(context.WithoutCancel(ctx), l.worker); err != nil {
		firstErr = cmpErr(firstErr, err)
	}
	return firstErr
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func (x *execution) heartbeatOf(l *lease) func() {
	return l.heartbeat(func(f string, a ...any) {
		x.mu.Lock()
		defer x.mu.Unlock()
		x.logf(f, a...)
	})
}

// gridSource hands out the runs of todo in order, claiming each; runs held
// by other workers are waited for (and claimed if their lease expires) until
// every one is done or failed.
func (x *execution) gridSource(l *lease, todo []Run) source {
	var mu sync.Mutex
	pending := todo
	var waiting []Run
	return func(ctx context.Context) (Run, bool, error) {
		mu.Lock()
		defer mu.Unlock()
		for ctx.Err() == nil {
			for len(pending) > 0 {
				r := pending[0]
				pending = pending[1:]
				_, ok, err := l.st.ClaimKey(ctx, r.Key, l.worker, l.length)
				if err != nil {
					return Run{}, false, err
				}
				if ok {
					return r, true, nil
				}
				waiting = append(waiting, r)
			}
			if len(waiting) == 0 {
				return Run{}, false, nil
			}
			// Look at what the others hold: done and failed runs leave the
			// list; the rest are tried again after a pause.
			open, err := x.stillOpen(ctx, l, waiting)
			if err != nil {
				return Run{}, false, err
			}
			pending, waiting = open, nil
			if len(pending) == 0 {
				return Run{}, false, nil
			}
			sleep(ctx, l.poll)
		}
		return Run{}, false, nil
	}
}

// stillOpen returns the runs of rs that are neither done nor failed,
// counting the others in the summary.
func (x *execution) stillOpen(ctx context.Context, l *lease, rs []Run) ([]Run, error) {
	q, err := l.st.Queue(ctx)
	if err != nil {
		return nil, err
	}
	if err := l.releaseDead(ctx, q); err != nil {
		return nil, err
	}
	state := make(map[string]store.QueueEntry, len(q))
	for _, e := range q {
		state[e.Key] = e
	}
	var open []Run
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, r := range rs {
		switch e := state[r.Key]; e.State {
		case store.Done:
			if x.env.ranShared(r.Key) {
				x.sum.Ran++ // run here, as part of another run (runCertify)
			} else {
				x.sum.ByOthers++
			}
			x.finished++
		case store.Failed:
			x.sum.FailedBefore++
			delete(x.left, r.Key)
			x.finished++
			x.logf("[%d/%d] failed before, not retried: %s: %s", x.finished, x.sum.Total, r.Label(), e.Error)
		default:
			open = append(open, r)
		}
	}
	return open, nil
}

// queueSource claims any run of the queue; when none is claimable but other
// workers hold some, it waits (their leases may expire). It stops handing
// out runs once stopAt (if set) is near: within the longest run seen so far
// (at least reserve).
func (x *execution) queueSource(l *lease, stopAt time.Time, reserve time.Duration) source {
	var mu sync.Mutex
	return func(ctx context.Context) (Run, bool, error) {
		mu.Lock()
		defer mu.Unlock()
		for ctx.Err() == nil {
			if !stopAt.IsZero() {
				x.mu.Lock()
				need := max(reserve, x.longest)
				x.mu.Unlock()
				if time.Until(stopAt) < need {
					x.mu.Lock()
					x.sum.Notes = appendOnce(x.sum.Notes, fmt.Sprintf("stopped claiming %s before the time limit", need.Round(time.Second)))
					x.mu.Unlock()
					return Run{}, false, nil
				}
			}
			c, ok, err := l.st.Claim(ctx, l.worker, l.length)
			if err != nil {
				return Run{}, false, err
			}
			if ok {
				k, known := x.env.Kinds.Lookup(c.Kind)
				if !known {
					err := fmt.Errorf("unknown kind %q (a newer rgnn enqueued it?)", c.Kind)
					x.env.Store.PutFailure(ctx, store.Failure{Key: c.Key, Kind: c.Kind, Experiment: c.Experiment,
						Params: c.Params, Error: err.Error(), At: time.Now()})
					continue
				}
				x.mu.Lock()
				x.sum.Total++
				x.experiments[c.Key] = c.Experiment
				x.mu.Unlock()
				return Run{Kind: k.Name, Key: c.Key, Params: c.Params, Block: c.Experiment}, true, nil
			}
			q, err := l.st.Queue(ctx)
			if err != nil {
				return Run{}, false, err
			}
			held := 0
			for _, e := range q {
				if e.State == store.Claimed || e.State == store.Queued {
					held++
				}
			}
			if held == 0 {
				return Run{}, false, nil
			}
			if err := l.releaseDead(ctx, q); err != nil {
				return Run{}, false, err
			}
			sleep(ctx, l.poll)
		}
		return Run{}, false, nil
	}
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// WorkOptions configure Work.
type WorkOptions struct {
	// Workers is the number of runs executed concurrently (≤ 0: 1).
	Workers int
	// Worker names this process in the queue (empty: WorkerID()).
	Worker string
	// Lease is the length of a claim between heartbeats (0: DefaultLease).
	Lease time.Duration
	// TimeLimit, if set, is the wall time this process may take: it stops
	// claiming when less than Reserve (or the longest run so far, if
	// longer) is left, and abandons (releases) runs still in flight at the
	// limit.
	TimeLimit, Reserve time.Duration
	// RetryFailed queues every failed run of the store again first.
	RetryFailed bool
	// Progress and StatusEvery as in RunOptions.
	Progress    io.Writer
	StatusEvery time.Duration
}

// Work claims and runs runs from the store's queue (whatever grid enqueued
// them) until none is left to claim and no other worker holds one, or the
// time limit approaches, or ctx is cancelled. Every run's experiment is the
// one that enqueued it.
func Work(ctx context.Context, env *Env, o WorkOptions) (Summary, error) {
	x := &execution{env: env, opt: RunOptions{Progress: o.Progress, StatusEvery: o.StatusEvery}, start: time.Now(),
		sum: Summary{Experiment: "(queue)"}, running: map[string]inFlight{}, unavailable: map[string]bool{},
		experiments: map[string]string{}}
	if o.RetryFailed {
		n, err := env.Store.RetryFailed(ctx, nil)
		if err != nil {
			return x.sum, err
		}
		x.logf("%d failed runs queued again", n)
	}
	l := newLease(env.Store, o.Worker, o.Lease)
	var stopAt time.Time
	if o.TimeLimit > 0 {
		stopAt = x.start.Add(o.TimeLimit)
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, stopAt)
		defer cancel()
	}
	x.logf("worker %s: claiming runs from %s (lease %s)", l.worker, env.Store.Path(), l.length)
	stopStatus := x.statusEvery(o.StatusEvery)
	err := x.runClaimed(ctx, l, max(o.Workers, 1), x.queueSource(l, stopAt, o.Reserve))
	stopStatus()
	x.sum.Seconds = time.Since(x.start).Seconds()
	if err != nil {
		return x.sum, err
	}
	if x.missing != nil {
		return x.sum, fmt.Errorf("worker stopped after %d runs: %w", x.finished, x.missing)
	}
	if err := ctx.Err(); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return x.sum, fmt.Errorf("worker stopped after %d runs (its claims went back to the queue): %w", x.finished, err)
	}
	return x.sum, nil
}
