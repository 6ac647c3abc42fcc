package experiment

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rgnn/rgnn/experiment/store"
)

// Run states beyond the queue's own (store.Queued, Claimed, Done, Failed).
const (
	StateExpired   = "expired"    // claimed, but its lease ran out: the holder died; claimable again
	StateNotQueued = "not queued" // in the grid, not in the store's queue nor done
)

// StatusRow is one run of a Status.
type StatusRow struct {
	Key        string  `json:"key"`
	Kind       string  `json:"kind"`
	Experiment string  `json:"experiment,omitempty"`
	Run        string  `json:"run"`
	State      string  `json:"state"`
	Worker     string  `json:"worker,omitempty"`
	LeaseLeft  float64 `json:"lease_left_seconds,omitempty"`
	Attempts   int     `json:"attempts,omitempty"`
	Error      string  `json:"error,omitempty"`
}

// Status is what `rgnn run --status` shows: how many runs are in each
// state, and every run that is not done.
type Status struct {
	Store  string         `json:"store"`
	Counts map[string]int `json:"counts"`
	Open   []StatusRow    `json:"open"` // queued, claimed, expired, failed, not queued
}

// NewStatus reports the state of runs in st (every run of its queue when
// runs is nil).
func NewStatus(ctx context.Context, st *store.Store, runs []Run) (*Status, error) {
	q, err := st.Queue(ctx)
	if err != nil {
		return nil, err
	}
	s := &Status{Store: st.Path(), Counts: map[string]int{}}
	row := func(e store.QueueEntry, label string) StatusRow {
		r := StatusRow{Key: e.Key, Kind: e.Kind, Experiment: e.Experiment, Run: label, State: e.State,
			Worker: e.Worker, Attempts: e.Attempts, Error: e.Error}
		if e.State == store.Claimed {
			r.LeaseLeft = e.LeaseLeft.Round(time.Millisecond).Seconds()
			if e.LeaseLeft < 0 {
				r.State = StateExpired
			}
		}
		return r
	}
	add := func(r StatusRow) {
		s.Counts[r.State]++
		if r.State != store.Done {
			s.Open = append(s.Open, r)
		}
	}
	if runs == nil {
		for _, e := range q {
			add(row(e, Run{Kind: e.Kind, Params: e.Params}.Label()))
		}
		return s, nil
	}
	byKey := make(map[string]store.QueueEntry, len(q))
	for _, e := range q {
		byKey[e.Key] = e
	}
	keys := make([]string, len(runs))
	for i, r := range runs {
		keys[i] = r.Key
	}
	done, err := st.Has(ctx, keys)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		e, queued := byKey[r.Key]
		switch {
		case done[r.Key]:
			add(StatusRow{Key: r.Key, Kind: r.Kind, Run: r.Label(), State: store.Done})
		case queued:
			add(row(e, r.Label()))
		default:
			add(StatusRow{Key: r.Key, Kind: r.Kind, Run: r.Label(), State: StateNotQueued})
		}
	}
	return s, nil
}

// WriteText prints the counts, then one line per open run.
func (s *Status) WriteText(w io.Writer) {
	var parts []string
	for _, st := range []string{store.Done, store.Queued, store.Claimed, StateExpired, store.Failed, StateNotQueued} {
		if n := s.Counts[st]; n > 0 || st == store.Done {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	fmt.Fprintf(w, "%s: %s\n", s.Store, strings.Join(parts, ", "))
	if len(s.Open) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tSTATE\tRUN\tWORKER / ERROR")
	for _, r := range s.Open {
		detail := ""
		switch r.State {
		case store.Claimed:
			detail = fmt.Sprintf("%s (lease %.0f s left, attempt %d)", r.Worker, r.LeaseLeft, r.Attempts)
		case StateExpired:
			detail = fmt.Sprintf("%s (lease expired %.0f s ago)", r.Worker, -r.LeaseLeft)
		case store.Failed:
			detail = r.Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Key, r.State, r.Run, detail)
	}
	tw.Flush()
}

// Enqueue puts the runs of e that st does not have into its queue (for
// workers to claim, e.g. under Slurm) and, with retryFailed, queues its
// failed runs again. It returns how many runs are left to do.
func Enqueue(ctx context.Context, st *store.Store, name string, runs []Run, retryFailed bool) (int, error) {
	keys := make([]string, len(runs))
	for i, r := range runs {
		keys[i] = r.Key
	}
	done, err := st.Has(ctx, keys)
	if err != nil {
		return 0, err
	}
	var todo []Run
	for _, r := range runs {
		if !done[r.Key] {
			todo = append(todo, r)
		}
	}
	x := &execution{env: &Env{Store: st}, opt: RunOptions{RetryFailed: retryFailed}}
	return len(todo), x.enqueue(ctx, name, todo)
}
