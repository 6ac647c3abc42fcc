package certify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/tensor"
)

// Predictor is a base classifier: it predicts the class of every node of a
// (randomly perturbed) graph. A Predictor may keep scratch state, the
// returned slice included (Votes reads it before the next call); Votes
// gives every worker its own.
type Predictor interface {
	Predict(adj, feats *tensor.CSR) ([]int32, error)
}

// BatchPredictor is a Predictor that classifies several sampled graphs in
// one call (a model in another process, package bridge): VotesMany hands it
// up to VoteOptions.Batch consecutive samples at a time. The counts are the
// same as one sample at a time.
type BatchPredictor interface {
	Predictor
	PredictBatch(adjs, feats []*tensor.CSR) ([][]int32, error)
}

// PredictorFunc adapts a function to Predictor.
type PredictorFunc func(adj, feats *tensor.CSR) ([]int32, error)

// Predict calls f.
func (f PredictorFunc) Predict(adj, feats *tensor.CSR) ([]int32, error) { return f(adj, feats) }

// Streams of the sample seeds: the pre-votes (n₀) and the votes (n₁) use
// independent samples.
const (
	StreamPreVotes uint64 = 0
	StreamVotes    uint64 = 1
)

// VoteOptions configure Votes and VotesMany.
type VoteOptions struct {
	Samples int    // number of samples
	Seed    uint64 // seed; sample i uses SampleRNG(Seed, Stream, i)
	Stream  uint64 // StreamPreVotes or StreamVotes (or any other)
	Workers int    // parallel workers (≤ 0: GOMAXPROCS)
	// NewPredictor makes the predictor of one worker (called once per
	// worker). Votes uses it.
	NewPredictor func() (Predictor, error)
	// NewPredictors makes one worker's predictors of several base
	// classifiers (called once per worker; the same number each call).
	// VotesMany uses it: every sample is drawn once and classified by each.
	NewPredictors func() ([]Predictor, error)
	// Progress, if set, is called after each finished sample with the
	// number done so far (serialised, increasing).
	Progress func(done, total int)
	// Resume, if set, holds per predictor the votes counted before (a
	// checkpoint; nil entries: none): predictor m classifies only the
	// samples from Resume[m].Done on, and its counts start from
	// Resume[m].Counts. The result is the same as a run from scratch.
	Resume []*Partial
	// Checkpoint, if set, is called every CheckpointEvery samples (≤ 0:
	// 500) with every predictor's votes so far, over a prefix of the
	// samples; a run resumed from them (Resume) counts the same votes. An
	// error stops the run.
	Checkpoint      func(parts []*Partial) error
	CheckpointEvery int
	// Batch is the number of consecutive samples a worker draws before
	// classifying them (≤ 1: one at a time); BatchPredictors get them in
	// one call. The counts do not depend on it.
	Batch int
	// CheckpointAfter, if > 0, also ends a stretch of samples between two
	// checkpoints after this much time, whichever of the two comes first
	// (a stop then loses at most about this much sampling; the counts do
	// not depend on where the stretches end).
	CheckpointAfter time.Duration
}

// Partial is a predictor's votes over the samples [0, Done) of a stream: a
// checkpoint of VotesMany.
type Partial struct {
	Done   int
	Counts *Counts
}

// Save writes p atomically: int64 `votes` [n, C] (the layout of a vote
// file's votes) and the scalar `done`.
func (p *Partial) Save(path string) error {
	if p.Counts == nil {
		return fmt.Errorf("save partial votes %s: no counts", path)
	}
	return npz.WriteFile(path,
		npz.I64("votes", []int{p.Counts.Nodes, p.Counts.Classes}, p.Counts.Data),
		npz.I64("done", []int{}, []int64{int64(p.Done)}))
}

// LoadPartial reads partial votes written by Partial.Save (the counts'
// shape checked as a vote file's; Validate checks them against a run).
func LoadPartial(path string) (*Partial, error) {
	a, err := npz.Open(path)
	if err != nil {
		return nil, err
	}
	c, err := loadCounts(a, "votes")
	if err != nil {
		return nil, err
	}
	d, _, err := a.Int64("done")
	if err != nil {
		return nil, fmt.Errorf("load partial votes: %w", err)
	}
	if len(d) != 1 || d[0] < 0 || d[0] > math.MaxInt32 {
		return nil, fmt.Errorf("load partial votes %s: done must be one count, got %v", path, d)
	}
	return &Partial{Done: int(d[0]), Counts: c}, nil
}

// Validate checks that p can resume votes over samples samples for n nodes
// and c classes: its shape, and exactly Done votes for every node.
func (p *Partial) Validate(n, c, samples int) error {
	if p.Counts == nil || p.Counts.Nodes != n || p.Counts.Classes != c || len(p.Counts.Data) != n*c {
		return fmt.Errorf("partial votes: not %d nodes × %d classes", n, c)
	}
	if p.Done < 0 || p.Done > samples {
		return fmt.Errorf("partial votes: %d samples done of %d", p.Done, samples)
	}
	for v := range n {
		var sum int64
		for _, x := range p.Counts.Row(v) {
			if x < 0 {
				return fmt.Errorf("partial votes: negative count for node %d", v)
			}
			sum += x
		}
		if sum != int64(p.Done) {
			return fmt.Errorf("partial votes: node %d has %d votes, want %d", v, sum, p.Done)
		}
	}
	return nil
}

// Votes draws o.Samples perturbed graphs from s, classifies each with a
// predictor and counts, per node, how often each of numClasses classes was
// predicted. Samples run in parallel; the counts are identical for any
// number of workers. Cancelling ctx stops the run with ctx's error.
func Votes(ctx context.Context, s *Sampler, numClasses int, o VoteOptions) (*Counts, error) {
	if o.NewPredictor == nil {
		return nil, errors.New("votes: no predictor")
	}
	o.NewPredictors = single(o.NewPredictor)
	c, err := VotesMany(ctx, s, numClasses, o)
	if err != nil {
		return nil, err
	}
	return c[0], nil
}

// single makes a worker's one predictor a list of one.
func single(newPredictor func() (Predictor, error)) func() ([]Predictor, error) {
	return func() ([]Predictor, error) {
		p, err := newPredictor()
		return []Predictor{p}, err
	}
}

// VotesMany is Votes for several base classifiers at once (o.NewPredictors):
// each sampled graph is drawn once and classified by every predictor, in
// order, so predictors that share work per graph (a preprocessing cache)
// do it once. Counts[i] are predictor i's votes, the same as Votes with that
// predictor alone would count.
func VotesMany(ctx context.Context, s *Sampler, numClasses int, o VoteOptions) ([]*Counts, error) {
	if o.Samples <= 0 {
		return nil, fmt.Errorf("votes: %d samples", o.Samples)
	}
	if numClasses < 2 {
		return nil, fmt.Errorf("votes: %d classes", numClasses)
	}
	if o.NewPredictors == nil {
		return nil, errors.New("votes: no predictor")
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	n := s.Nodes()
	// first is the first sample any predictor still needs.
	first := 0
	if len(o.Resume) > 0 {
		first = o.Samples
		for m, r := range o.Resume {
			if r == nil {
				first = 0
				continue
			}
			if err := r.Validate(n, numClasses, o.Samples); err != nil {
				return nil, fmt.Errorf("votes: resume predictor %d: %w", m, err)
			}
			first = min(first, r.Done)
		}
	}
	workers = max(1, min(workers, o.Samples-first))
	chunk := o.Samples - first
	if o.Checkpoint != nil {
		chunk = o.CheckpointEvery
		if chunk <= 0 {
			chunk = 500
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var (
		next, done atomic.Int64
		progMu     sync.Mutex
		errOnce    sync.Once
		firstErr   error
		models     atomic.Int64 // predictors per worker (-1: not known yet)
	)
	models.Store(-1)
	done.Store(int64(first))
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err; cancel() })
	}
	// starts[m] is the first sample predictor m classifies.
	var starts []int
	setStarts := func(k int) error {
		if len(o.Resume) > 0 && len(o.Resume) != k {
			return fmt.Errorf("votes: %d checkpoints to resume for %d predictors", len(o.Resume), k)
		}
		starts = make([]int, k)
		for m := range starts {
			if len(o.Resume) > 0 && o.Resume[m] != nil {
				starts[m] = o.Resume[m].Done
			}
		}
		return nil
	}
	var startsOnce sync.Once
	preds := make([][]Predictor, workers)
	partial := make([][]*Counts, workers)
	// worker w classifies samples next… until hi, or until the stretch's
	// time is up (deadline, after its first sample); its predictors and
	// counts live across chunks. Samples are claimed in order, so the
	// samples classified are exactly [lo, min(next, hi)).
	worker := func(w, hi int, deadline time.Time) {
		if preds[w] == nil {
			ps, err := o.NewPredictors()
			if err != nil {
				fail(fmt.Errorf("votes: make predictor: %w", err))
				return
			}
			if len(ps) == 0 {
				fail(errors.New("votes: no predictor"))
				return
			}
			if !models.CompareAndSwap(-1, int64(len(ps))) && models.Load() != int64(len(ps)) {
				fail(fmt.Errorf("votes: a worker made %d predictors, another %d", len(ps), models.Load()))
				return
			}
			var err2 error
			startsOnce.Do(func() { err2 = setStarts(len(ps)) })
			if err2 != nil {
				fail(err2)
				return
			}
			counts := make([]*Counts, len(ps))
			for m := range counts {
				counts[m] = NewCounts(n, numClasses)
			}
			preds[w], partial[w] = ps, counts
		}
		ps, counts := preds[w], partial[w]
		batch := max(1, o.Batch)
		adjs := make([]*tensor.CSR, 0, batch)
		feats := make([]*tensor.CSR, 0, batch)
		for started := false; ; started = true {
			if started && !deadline.IsZero() && time.Now().After(deadline) {
				return
			}
			lo := int(next.Add(int64(batch)) - int64(batch))
			if lo >= hi || ctx.Err() != nil {
				return
			}
			top := min(lo+batch, hi)
			adjs, feats = adjs[:0], feats[:0]
			for i := lo; i < top; i++ {
				a, f := s.SampleAt(o.Seed, o.Stream, i)
				adjs, feats = append(adjs, a), append(feats, f)
			}
			for m, pred := range ps {
				first := max(lo, starts[m]) // samples before starts[m] were counted before (Resume)
				if first >= top {
					continue
				}
				k := first - lo
				i, err := classify(pred, adjs[k:], feats[k:], counts[m], n, numClasses)
				if err != nil {
					if len(ps) > 1 {
						fail(fmt.Errorf("votes: %w", &PredictorError{Predictor: m, Sample: first + i, Err: err}))
					} else {
						fail(fmt.Errorf("votes: sample %d: %w", first+i, err))
					}
					return
				}
			}
			if o.Progress != nil {
				progMu.Lock()
				for range top - lo {
					o.Progress(int(done.Add(1)), o.Samples)
				}
				progMu.Unlock()
			}
		}
	}
	// total sums the resumed counts and every worker's.
	total := func(hi int) []*Counts {
		out := make([]*Counts, models.Load())
		for m := range out {
			out[m] = NewCounts(n, numClasses)
			if len(o.Resume) > 0 && o.Resume[m] != nil {
				out[m].Add(o.Resume[m].Counts)
			}
			for _, c := range partial {
				if c != nil {
					out[m].Add(c[m])
				}
			}
		}
		return out
	}
	next.Store(int64(first))
	for lo := first; ; {
		hi := min(lo+chunk, o.Samples)
		var deadline time.Time
		if o.Checkpoint != nil && o.CheckpointAfter > 0 {
			deadline = time.Now().Add(o.CheckpointAfter)
		}
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				worker(w, hi, deadline)
			}()
		}
		wg.Wait()
		if firstErr != nil {
			return nil, firstErr
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("votes: %w", err)
		}
		cut := min(int(next.Load()), hi) // the stretch classified [lo, cut)
		next.Store(int64(cut))
		if o.Checkpoint != nil && cut < o.Samples {
			counts := total(cut)
			parts := make([]*Partial, len(counts))
			for m, c := range counts {
				parts[m] = &Partial{Done: max(cut, starts[m]), Counts: c}
			}
			if err := o.Checkpoint(parts); err != nil {
				return nil, fmt.Errorf("votes: checkpoint: %w", err)
			}
		}
		if cut >= o.Samples {
			break
		}
		lo = cut
	}
	return total(o.Samples), nil
}

// PredictorError is the failure of one of VotesMany's predictors on a
// sample: the caller can tell which base classifier failed and go on
// without it.
type PredictorError struct {
	Predictor, Sample int
	Err               error
}

func (e *PredictorError) Error() string {
	return fmt.Sprintf("sample %d: predictor %d: %v", e.Sample, e.Predictor, e.Err)
}

func (e *PredictorError) Unwrap() error { return e.Err }

// classify counts pred's votes on the sampled graphs adjs (features
// feats): in one call for a BatchPredictor, else one by one. On error, i is
// the graph that failed (0 for a batch).
func classify(pred Predictor, adjs, feats []*tensor.CSR, counts *Counts, n, numClasses int) (i int, err error) {
	if bp, ok := pred.(BatchPredictor); ok && len(adjs) > 1 {
		ys, err := bp.PredictBatch(adjs, feats)
		if err != nil {
			return 0, err
		}
		if len(ys) != len(adjs) {
			return 0, fmt.Errorf("%d predictions for a batch of %d graphs", len(ys), len(adjs))
		}
		for j, y := range ys {
			if err := countInto(y, counts, n, numClasses); err != nil {
				return j, err
			}
		}
		return 0, nil
	}
	for j := range adjs {
		if err := predictInto(pred, adjs[j], feats[j], counts, n, numClasses); err != nil {
			return j, err
		}
	}
	return 0, nil
}

// predictInto classifies one sampled graph with pred and adds its votes to
// counts.
func predictInto(pred Predictor, adj, feats *tensor.CSR, counts *Counts, n, numClasses int) error {
	y, err := pred.Predict(adj, feats)
	if err != nil {
		return err
	}
	return countInto(y, counts, n, numClasses)
}

// countInto adds one graph's predictions y to counts.
func countInto(y []int32, counts *Counts, n, numClasses int) error {
	if len(y) != n {
		return fmt.Errorf("%d predictions for %d nodes", len(y), n)
	}
	for v, c := range y {
		if c < 0 || int(c) >= numClasses {
			return fmt.Errorf("class %d of node %d outside [0, %d)", c, v, numClasses)
		}
		counts.Data[v*numClasses+int(c)]++
	}
	return nil
}

// VoteFile is a smoothing run: votes, pre-votes and how they were drawn,
// enough to recompute a certificate. Its npz form has the keys of the
// reference's vote files, `votes` and `pre_votes` (int64 [n, C]), plus
// the sampling parameters under sparse smoothing's names: float64 scalars
// `pf_plus_adj`, `pf_minus_adj`, `pf_plus_att`, `pf_minus_att` and int64
// scalars `n_samples`, `n_samples_pre`, `seed`. A file written with np.savez
// may give any of them (`n_samples_pre_eval` for `n_samples_pre`, as sparse
// smoothing's configuration names it; flip probabilities it omits are 0).
type VoteFile struct {
	Votes, PreVotes *Counts
	// HasParams reports whether the flip probabilities (Sample) are known
	// (the reference's files have only the two arrays).
	HasParams bool
	Sample    SampleParams
	// NumSamples and NumPreSamples are n₁ and n₀ (0: not recorded); Seed
	// the sampling seed when HasSeed.
	NumSamples    int
	NumPreSamples int
	HasSeed       bool
	Seed          uint64
}

// probKeys are the flip probabilities' keys in a vote file.
var probKeys = [4]string{"pf_plus_adj", "pf_minus_adj", "pf_plus_att", "pf_minus_att"}

// DefaultSamples is n₁, the samples of the votes, when
// SmoothOptions.Samples is 0: the reference's 10,000.
const DefaultSamples = 10_000

// DefaultPreSamples is n₀, the samples of the pre-votes (the top class),
// when SmoothOptions.PreSamples is 0: the reference's 100.
const DefaultPreSamples = 100

// SmoothOptions configure Smooth and SmoothMany.
type SmoothOptions struct {
	PreSamples int // n₀ (≤ 0: DefaultPreSamples)
	Samples    int // n₁ (≤ 0: DefaultSamples)
	Seed       uint64
	Workers    int
	// NewPredictor makes the predictor of one worker (Smooth).
	NewPredictor func() (Predictor, error)
	// NewPredictors makes one worker's predictors of several base
	// classifiers (SmoothMany).
	NewPredictors func() ([]Predictor, error)
	// Progress, if set, reports each stage ("pre-votes", "votes").
	Progress func(stage string, done, total int)
	// Resume, Checkpoint and CheckpointEvery keep the votes stage (n₁
	// samples, by far the longer) resumable: see VoteOptions. The
	// pre-votes are drawn again on resume.
	Resume          []*Partial
	Checkpoint      func(parts []*Partial) error
	CheckpointEvery int
	// Batch: see VoteOptions.
	Batch           int
	CheckpointAfter time.Duration
}

// Smooth draws the pre-votes (n₀ samples, stream StreamPreVotes) and the
// votes (n₁ samples, stream StreamVotes) of the smoothed classifier.
func Smooth(ctx context.Context, s *Sampler, numClasses int, o SmoothOptions) (*VoteFile, error) {
	if o.NewPredictor == nil {
		return nil, errors.New("votes: no predictor")
	}
	o.NewPredictors = single(o.NewPredictor)
	f, err := SmoothMany(ctx, s, numClasses, o)
	if err != nil {
		return nil, err
	}
	return f[0], nil
}

// SmoothMany is Smooth for several base classifiers on the same samples
// (o.NewPredictors, see VotesMany): files[i] are predictor i's votes, the
// same as Smooth with that predictor alone draws.
func SmoothMany(ctx context.Context, s *Sampler, numClasses int, o SmoothOptions) ([]*VoteFile, error) {
	if o.PreSamples <= 0 {
		o.PreSamples = DefaultPreSamples
	}
	if o.Samples <= 0 {
		o.Samples = DefaultSamples
	}
	vo := VoteOptions{Seed: o.Seed, Workers: o.Workers, NewPredictors: o.NewPredictors, Batch: o.Batch}
	stage := func(name string) func(int, int) {
		if o.Progress == nil {
			return nil
		}
		return func(d, t int) { o.Progress(name, d, t) }
	}
	vo.Samples, vo.Stream, vo.Progress = o.PreSamples, StreamPreVotes, stage("pre-votes")
	pre, err := VotesMany(ctx, s, numClasses, vo)
	if err != nil {
		return nil, err
	}
	vo.Samples, vo.Stream, vo.Progress = o.Samples, StreamVotes, stage("votes")
	vo.Resume, vo.Checkpoint, vo.CheckpointEvery, vo.CheckpointAfter = o.Resume, o.Checkpoint, o.CheckpointEvery, o.CheckpointAfter
	votes, err := VotesMany(ctx, s, numClasses, vo)
	if err != nil {
		return nil, err
	}
	if len(votes) != len(pre) {
		return nil, fmt.Errorf("votes: %d predictors for the votes, %d for the pre-votes", len(votes), len(pre))
	}
	files := make([]*VoteFile, len(votes))
	for i := range files {
		files[i] = &VoteFile{Votes: votes[i], PreVotes: pre[i], HasParams: true, Sample: s.Params(),
			NumSamples: o.Samples, NumPreSamples: o.PreSamples, HasSeed: true, Seed: o.Seed}
	}
	return files, nil
}

// Save writes the vote file atomically.
func (f *VoteFile) Save(path string) error {
	if f.Votes == nil || f.PreVotes == nil {
		return fmt.Errorf("save votes %s: missing votes or pre-votes", path)
	}
	entries := []npz.Entry{
		npz.I64("votes", []int{f.Votes.Nodes, f.Votes.Classes}, f.Votes.Data),
		npz.I64("pre_votes", []int{f.PreVotes.Nodes, f.PreVotes.Classes}, f.PreVotes.Data),
	}
	sc := func(name string, v int64) npz.Entry { return npz.I64(name, []int{}, []int64{v}) }
	if f.HasParams {
		p := []float64{f.Sample.PPlusAdj, f.Sample.PMinusAdj, f.Sample.PPlusAtt, f.Sample.PMinusAtt}
		for i, k := range probKeys {
			entries = append(entries, npz.F64(k, []int{}, []float64{p[i]}))
		}
	}
	if f.NumSamples > 0 {
		entries = append(entries, sc("n_samples", int64(f.NumSamples)))
	}
	if f.NumPreSamples > 0 {
		entries = append(entries, sc("n_samples_pre", int64(f.NumPreSamples)))
	}
	if f.HasSeed {
		entries = append(entries, sc("seed", int64(f.Seed)))
	}
	return npz.WriteFile(path, entries...)
}

// LoadVotes reads a vote file (ours or the reference's).
func LoadVotes(path string) (*VoteFile, error) {
	a, err := npz.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load votes: %w", err)
	}
	f := &VoteFile{}
	if f.Votes, err = loadCounts(a, "votes"); err != nil {
		return nil, err
	}
	if f.PreVotes, err = loadCounts(a, "pre_votes"); err != nil {
		return nil, err
	}
	if f.Votes.Nodes != f.PreVotes.Nodes || f.Votes.Classes != f.PreVotes.Classes {
		return nil, fmt.Errorf("load votes %s: votes are %d×%d but pre_votes %d×%d", path,
			f.Votes.Nodes, f.Votes.Classes, f.PreVotes.Nodes, f.PreVotes.Classes)
	}
	probs := []*float64{&f.Sample.PPlusAdj, &f.Sample.PMinusAdj, &f.Sample.PPlusAtt, &f.Sample.PMinusAtt}
	for i, k := range probKeys {
		if !a.Has(k) {
			continue
		}
		f.HasParams = true
		v, _, err := a.Float64(k)
		if err != nil {
			return nil, fmt.Errorf("load votes: %w", err)
		}
		if len(v) != 1 || !(v[0] >= 0 && v[0] <= 1) {
			return nil, fmt.Errorf("load votes %s: %s must be one probability, got %v", path, k, v)
		}
		*probs[i] = v[0]
	}
	scalar := func(keys ...string) (int64, bool, error) {
		for _, k := range keys {
			if !a.Has(k) {
				continue
			}
			v, _, err := a.Int64(k)
			if err != nil {
				return 0, false, fmt.Errorf("load votes: %w", err)
			}
			if len(v) != 1 {
				return 0, false, fmt.Errorf("load votes %s: %s must be a scalar", path, k)
			}
			return v[0], true, nil
		}
		return 0, false, nil
	}
	ns, _, err := scalar("n_samples")
	if err != nil {
		return nil, err
	}
	np, _, err := scalar("n_samples_pre", "n_samples_pre_eval")
	if err != nil {
		return nil, err
	}
	seed, hasSeed, err := scalar("seed")
	if err != nil {
		return nil, err
	}
	if ns < 0 || np < 0 || ns > math.MaxInt32 || np > math.MaxInt32 {
		return nil, fmt.Errorf("load votes %s: sample counts %d, %d", path, ns, np)
	}
	f.NumSamples, f.NumPreSamples, f.HasSeed, f.Seed = int(ns), int(np), hasSeed, uint64(seed)
	if err := f.checkTotals(); err != nil {
		return nil, fmt.Errorf("load votes %s: %w", path, err)
	}
	return f, nil
}

// checkTotals checks that every node's votes sum to the recorded number of
// samples (votes to n₁, pre-votes to n₀), where recorded.
func (f *VoteFile) checkTotals() error {
	for _, c := range []struct {
		name   string
		counts *Counts
		want   int
	}{{"votes", f.Votes, f.NumSamples}, {"pre_votes", f.PreVotes, f.NumPreSamples}} {
		if c.want == 0 {
			continue
		}
		for v := range c.counts.Nodes {
			var sum int64
			for _, x := range c.counts.Row(v) {
				sum += x
			}
			if sum != int64(c.want) {
				return fmt.Errorf("%s of node %d sum to %d, but the file records %d samples", c.name, v, sum, c.want)
			}
		}
	}
	return nil
}

func loadCounts(a *npz.Archive, key string) (*Counts, error) {
	v, shape, err := a.Int64(key)
	if err != nil {
		return nil, fmt.Errorf("load votes: %w", err)
	}
	if len(shape) != 2 || shape[0] < 1 || shape[1] < 2 {
		return nil, fmt.Errorf("load votes %s: %s has shape %v, want [nodes ≥ 1, classes ≥ 2]", a.Path, key, shape)
	}
	c := &Counts{Nodes: shape[0], Classes: shape[1], Data: v}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("load votes %s: %s: %w", a.Path, key, err)
	}
	return c, nil
}
