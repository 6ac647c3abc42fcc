package experiment

import (
	"context"
	"time"

	"github.com/rgnn/rgnn/experiment/store"
)

// costModel estimates how long a run takes from the stored results of runs
// like it: the same kind and parameters but for the seed (a run's cost
// hardly depends on it), else the same kind. A grid's runs differ in cost
// by four orders of magnitude (a GCN trains in seconds, a Soft Medoid GDC
// certificate takes minutes, a Metattack budget tens of minutes), so a time
// left that counts runs misleads; one that sums their expected costs does
// not, and on a resumed grid it is right from the first status line.
type costModel struct {
	class map[string]*meanAcc // kind + parameters without the seed
	kind  map[string]*meanAcc
}

type meanAcc struct {
	sum float64
	n   int
}

func (m *meanAcc) add(v float64) { m.sum += v; m.n++ }

func (m *meanAcc) mean() (float64, bool) {
	if m == nil || m.n == 0 {
		return 0, false
	}
	return m.sum / float64(m.n), true
}

func newCostModel() *costModel {
	return &costModel{class: map[string]*meanAcc{}, kind: map[string]*meanAcc{}}
}

// costClass is the class of runs whose costs are averaged together: the
// kind and the canonical parameters without the seed.
func costClass(kind string, p store.Params) string {
	q := make(store.Params, len(p))
	for k, v := range p {
		if k != "seed" {
			q[k] = v
		}
	}
	s, err := store.Canonical(q)
	if err != nil {
		return kind
	}
	return kind + " " + s
}

// add records that a run of kind with parameters p took secs.
func (c *costModel) add(kind string, p store.Params, secs float64) {
	if !(secs >= 0) {
		return
	}
	k := costClass(kind, p)
	if c.class[k] == nil {
		c.class[k] = &meanAcc{}
	}
	c.class[k].add(secs)
	if c.kind[kind] == nil {
		c.kind[kind] = &meanAcc{}
	}
	c.kind[kind].add(secs)
}

// load adds every stored result's time.
func (c *costModel) load(ctx context.Context, st *store.Store) error {
	rs, err := st.Query(ctx, store.Filter{})
	if err != nil {
		return err
	}
	for _, r := range rs {
		c.add(r.Kind, r.Params, r.Seconds)
	}
	return nil
}

// estimate returns the expected seconds of r: the mean of its class, else
// of its kind; ok is false when no run of its kind was seen.
func (c *costModel) estimate(r Run) (secs float64, ok bool) {
	if v, ok := c.class[costClass(r.Kind, r.Params)].mean(); ok {
		return v, true
	}
	return c.kind[r.Kind].mean()
}

// timeLeft estimates the wall time the runs left take on workers workers:
// the sum of their expected costs (less what the running ones have run
// already) over the workers, but at least the longest single run's
// remainder. ok is false when some run has no estimate.
func (c *costModel) timeLeft(left []Run, running map[string]time.Duration, workers int) (time.Duration, bool) {
	var total, longest float64
	for _, r := range left {
		v, ok := c.estimate(r)
		if !ok {
			return 0, false
		}
		if el, run := running[r.Key]; run {
			// A run past its estimate is taken to need a tenth more of
			// what it has run so far.
			v = max(v-el.Seconds(), el.Seconds()/10)
		}
		total += v
		longest = max(longest, v)
	}
	secs := max(total/float64(max(workers, 1)), longest)
	return time.Duration(secs * float64(time.Second)), true
}

// planTimeLeft sets up the time left of a grid whose runs todo are to run:
// the stored results' times are what runs like them will cost. A store
// that cannot be read leaves the estimate to the runs of this execution.
func (x *execution) planTimeLeft(ctx context.Context, todo []Run) {
	x.left = make(map[string]Run, len(todo))
	for _, r := range todo {
		x.left[r.Key] = r
	}
	x.cost = newCostModel()
	if err := x.cost.load(ctx, x.env.Store); err != nil {
		x.logf("note: no stored run times for the time left: %v", err)
	}
}

// refreshLeft drops the runs that have a result now (run here, as another
// run's companions or by other workers) from the runs left, adding their
// times to the cost model. It runs outside x.mu (store queries).
func (x *execution) refreshLeft() {
	x.mu.Lock()
	keys := make([]string, 0, len(x.left))
	for k := range x.left {
		keys = append(keys, k)
	}
	x.mu.Unlock()
	if len(keys) == 0 || x.cost == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done, err := x.env.Store.Has(ctx, keys)
	if err != nil || len(done) == 0 {
		return
	}
	var got []store.Result
	for k := range done {
		if r, ok, err := x.env.Store.Get(ctx, k); err == nil && ok {
			got = append(got, r)
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for k := range done {
		delete(x.left, k)
	}
	for _, r := range got {
		x.cost.add(r.Kind, r.Params, r.Seconds)
	}
}

// timeLeft is costModel.timeLeft for the runs left; x.mu is held.
func (x *execution) timeLeft() (time.Duration, bool) {
	if x.cost == nil || x.left == nil {
		return 0, false
	}
	left := make([]Run, 0, len(x.left))
	for _, r := range x.left {
		left = append(left, r)
	}
	running := make(map[string]time.Duration, len(x.running))
	for k, f := range x.running {
		running[k] = time.Since(f.since)
	}
	return x.cost.timeLeft(left, running, x.opt.Workers)
}
