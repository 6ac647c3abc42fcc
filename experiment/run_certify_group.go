package experiment

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rgnn/rgnn/certify"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/task"
)

// maxCertifyGroup bounds how many certify runs share one pass over the
// samples (each member keeps its model and buffers per sampling worker).
const maxCertifyGroup = 32

// companion is a queued certify run claimed to share a run's samples.
type companion struct {
	entry store.QueueEntry
	spec  task.Certify
}

// certifyCompanions claims the queued certify runs that draw the same
// sampled graphs as s (task.Certify.SameSamples: dataset, attributes,
// seed, flip probabilities, sample counts) — other models of a certificate
// grid, whatever experiment file queued them — up to maxCertifyGroup−1, so
// that one pass over the samples serves them all (task.SampleGroup): the
// graphs are drawn once and GDC models diffuse each once. Only runs in the
// store's queue are considered (the runner's), never runs other workers
// hold under a live lease (a run whose holder's lease expired — a sitting
// that was killed — is claimable again, as the runner's own claims treat
// it); nothing is claimed when the queue cannot be read.
func (e *Env) certifyCompanions(ctx context.Context, s task.Certify) []companion {
	e.mu.Lock()
	l := e.claims
	e.mu.Unlock()
	if l == nil {
		return nil
	}
	// One group forms at a time in a process: two workers that start on
	// runs with the same samples at once (the first two of a sitting) make
	// one group and a run left alone, not two halves that both diffuse
	// every sampled graph.
	e.forming.Lock()
	defer e.forming.Unlock()
	q, err := l.st.Queue(ctx)
	if err != nil {
		return nil
	}
	k, _ := e.Kinds.Lookup("certify")
	var out []companion
	for _, qe := range q {
		if len(out) >= maxCertifyGroup-1 {
			break
		}
		if qe.Kind != "certify" || !claimable(qe) {
			continue
		}
		spec, err := k.Decode(qe.Params)
		if err != nil {
			continue
		}
		c := *spec.(*task.Certify)
		if c.Validate() != nil || s.SameSamples(c) != nil {
			continue
		}
		if _, ok, err := l.st.ClaimKey(ctx, qe.Key, l.worker, l.length); err != nil || !ok {
			continue
		}
		out = append(out, companion{entry: qe, spec: c})
	}
	return out
}

// preformGroup claims, for a certify run just handed out, the queued runs
// that share its samples (certifyCompanions); the run takes them through
// withCompanions. Other kinds (and specs that do not decode) get nil.
func (e *Env) preformGroup(ctx context.Context, r Run) *companionSet {
	if r.Kind != "certify" {
		return nil
	}
	k, _ := e.Kinds.Lookup("certify")
	spec, err := k.Decode(r.Params)
	if err != nil {
		return nil
	}
	c := *spec.(*task.Certify)
	if c.Validate() != nil {
		return nil
	}
	return &companionSet{group: e.certifyCompanions(ctx, c)}
}

// companionSet is the companions claimed for a run before it started;
// runCertify takes them (taken), else the run gives them back. The run
// executes on the goroutine that was handed it, so no lock is needed.
type companionSet struct {
	group []companion
	taken bool
}

type companionsKey struct{}

// withCompanions hands a run its pre-claimed companions.
func withCompanions(ctx context.Context, g *companionSet) context.Context {
	return context.WithValue(ctx, companionsKey{}, g)
}

// takeCompanions returns the companions pre-claimed for the run of ctx
// (ok false: none were, the run claims its own).
func takeCompanions(ctx context.Context) ([]companion, bool) {
	g, ok := ctx.Value(companionsKey{}).(*companionSet)
	if !ok {
		return nil, false
	}
	g.taken = true
	return g.group, true
}

// left returns the companions the run did not take.
func (g *companionSet) left() []companion {
	if g.taken {
		return nil
	}
	return g.group
}

// claimable reports whether a queue entry can be claimed now: queued, or
// claimed under a lease that expired.
func claimable(qe store.QueueEntry) bool {
	return qe.State == store.Queued || qe.State == store.Claimed && qe.LeaseLeft < 0
}

// releaseCompanions gives claimed companions back to the queue.
func (e *Env) releaseCompanions(ctx context.Context, group []companion) {
	e.mu.Lock()
	l := e.claims
	e.mu.Unlock()
	if l == nil || len(group) == 0 {
		return
	}
	keys := make([]string, len(group))
	for i, c := range group {
		keys[i] = c.entry.Key
	}
	if err := l.st.Release(context.WithoutCancel(ctx), l.worker, keys...); err != nil {
		e.logf("  certify: releasing %d runs: %v", len(keys), err)
	}
}

// runCertify runs the certify run s, sharing its samples with the
// companions it can claim: their results are stored here (and marked done
// in the queue), s's is returned. A member that fails (its training, or its
// model on a sample) leaves the group, which starts over without it: a
// companion goes back to the queue to fail (or not) on its own; if s itself
// failed, the others still finish and s's error is returned. Cancellation
// gives every companion back.
func runCertify(ctx context.Context, env *Env, s task.Certify) (*Output, error) {
	group, pre := takeCompanions(ctx)
	if !pre {
		group = env.certifyCompanions(ctx, s)
	}
	if len(group) == 0 {
		outs, _, err := certifyOutputs(ctx, env, []task.Certify{s}, "")
		if err != nil {
			return nil, err
		}
		return outs[0], nil
	}
	// members[0] is s while it is in the group (primary).
	members := append([]companion{{spec: s}}, group...)
	primary := true
	var primaryErr error
	for {
		specs := make([]task.Certify, len(members))
		names := make([]string, len(members))
		for i, m := range members {
			specs[i], names[i] = m.spec, m.spec.Model.Label()
			if m.spec.Model.Normalization != "" {
				names[i] += "_" + m.spec.Model.Normalization // SM† beside SM at the same T
			}
		}
		env.logf("  certify %s %s seed=%d: %d runs share the samples (%s)", s.Dataset, noiseLabel(s), s.Seed,
			len(specs), strings.Join(names, ", "))
		start := time.Now()
		outs, bad, err := certifyOutputs(ctx, env, specs, fmt.Sprintf("%d models", len(specs)))
		if err != nil {
			if ctx.Err() != nil || bad < 0 || len(members) == 1 {
				env.releaseCompanions(ctx, members[b2i(primary):])
				if primary {
					return nil, err
				}
				return nil, errors.Join(primaryErr, err)
			}
			env.logf("  certify group: %s failed (%v); the other %d runs start over without it", names[bad], err, len(members)-1)
			if bad == 0 && primary {
				primary, primaryErr = false, err
			} else {
				env.releaseCompanions(ctx, members[bad:bad+1])
			}
			members = append(members[:bad:bad], members[bad+1:]...)
			continue
		}
		finished := time.Now()
		share := finished.Sub(start).Seconds() / float64(len(specs))
		first := 0
		if primary {
			first = 1
		}
		for i := first; i < len(members); i++ {
			c, out := members[i], outs[i]
			r := store.Result{Key: c.entry.Key, Kind: "certify", Experiment: c.entry.Experiment, Params: c.entry.Params,
				Metrics: out.Metrics, Artifacts: out.Artifacts, Started: start, Finished: finished, Seconds: share}
			// Marked before it is stored: another worker of this process
			// waiting for the run sees it done as soon as the Put commits,
			// and must count it as run here, not by another process.
			env.markShared(c.entry.Key, true)
			if _, err := env.Store.Put(context.WithoutCancel(ctx), r); err != nil {
				env.markShared(c.entry.Key, false)
				env.releaseCompanions(ctx, members[i:])
				return nil, fmt.Errorf("storing the certify run %s of the group: %w", c.entry.Key, err)
			}
			env.logf("  ok   %s (samples shared)%s", Run{Kind: "certify", Key: c.entry.Key, Params: c.entry.Params}.Label(),
				brief(out.Metrics))
		}
		if !primary {
			return nil, primaryErr
		}
		outs[0].Seconds = share
		return outs[0], nil
	}
}

// b2i is 1 for true.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// certifyOutputs samples the votes of the certify runs specs together
// (task.SampleGroup; their models trained first where the store has no
// weights), stores the votes and returns each run's output. Metrics:
// accumulated_certifications, smoothed_accuracy, avg_radius_add/_del (all
// test nodes, as the reference), avg_radius_add/_del_correct (paper Eq. 9),
// ratio (R[ra][rd]), degree_bins, clean_accuracy, n_test — the same
// whether the runs shared their samples or not.
//
// When the failure is one member's (its training, or its model on a
// sample), bad is its index, else −1.
func certifyOutputs(ctx context.Context, env *Env, specs []task.Certify, what string) (outs []*Output, bad int, err error) {
	trained := make([]*task.Trained, len(specs))
	clean := make([]any, len(specs))
	p0 := specs[0]
	var pr *data.Problem
	defer func() {
		for _, t := range trained {
			t.Close() // an external model's process
		}
	}()
	for i, s := range specs {
		t, p, tr, err := env.Trained(ctx, s.Train)
		if err != nil {
			return nil, i, err
		}
		trained[i], clean[i] = t, tr.Metrics["test_accuracy"]
		if i == 0 {
			pr = p
		}
	}
	if what == "" {
		what = p0.Model.Model
	}
	last := time.Now()
	cps := newVoteCheckpoints(env, specs)
	h := cps.hooks(task.Hooks{Progress: func(stage string, done, total int) {
		if time.Since(last) > 10*time.Second {
			last = time.Now()
			env.logf("    certify %s %s: %s %d/%d", what, noiseLabel(p0), stage, done, total)
		}
	}}, pr.NumNodes(), pr.NumClasses, p0.Samples)
	if h.Resume != nil {
		var from []string
		for _, r := range h.Resume {
			if r != nil {
				from = append(from, fmt.Sprint(r.Done))
			} else {
				from = append(from, "0")
			}
		}
		env.logf("    certify %s %s: votes resumed from saved samples (%s of %d)", what, noiseLabel(p0),
			strings.Join(from, ", "), p0.Samples)
	}
	vfs, err := task.SampleGroup(ctx, specs, pr, trained, env.SampleWorkers, h)
	if err != nil {
		var pe *certify.PredictorError
		if errors.As(err, &pe) {
			return nil, pe.Predictor, err
		}
		return nil, -1, err
	}
	outs = make([]*Output, len(specs))
	for i, vf := range vfs {
		sha, err := env.Store.PutArtifact(vf.Save)
		if err != nil {
			return nil, -1, err
		}
		cps.remove(i)
		res, err := specs[i].FromVotes(pr, vf, "votes "+sha, nil)
		if err != nil {
			return nil, i, err
		}
		m := res.Metrics()
		m["clean_accuracy"] = clean[i]
		outs[i] = &Output{Metrics: m, Artifacts: map[string]string{"votes": sha}}
	}
	return outs, -1, nil
}

// noiseLabel names the smoothing distribution of c for progress lines:
// the edges' flip probabilities, or the attributes' where c smooths them.
func noiseLabel(c task.Certify) string {
	if c.PAddAtt != 0 || c.PDelAtt != 0 {
		return fmt.Sprintf("attributes p+=%g p-=%g", c.PAddAtt, c.PDelAtt)
	}
	return fmt.Sprintf("p+=%g p-=%g", c.PAdd, c.PDel)
}
