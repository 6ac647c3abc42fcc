package certify

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rgnn/rgnn/tensor"
)

// undirected builds a symmetric CSR from undirected edges.
func undirected(t testing.TB, n int, edges [][2]int) *tensor.CSR {
	t.Helper()
	var es []tensor.Entry
	for _, e := range edges {
		es = append(es, tensor.Entry{Row: int32(e[0]), Col: int32(e[1]), Val: 1}, tensor.Entry{Row: int32(e[1]), Col: int32(e[0]), Val: 1})
	}
	a, err := tensor.FromCOO(n, n, es)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func binaryFeats(t testing.TB, rows [][]int, d int) *tensor.CSR {
	t.Helper()
	var es []tensor.Entry
	for i, r := range rows {
		for _, j := range r {
			es = append(es, tensor.Entry{Row: int32(i), Col: int32(j), Val: 1})
		}
	}
	f, err := tensor.FromCOO(len(rows), d, es)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func checkSymmetric(t testing.TB, a *tensor.CSR) {
	t.Helper()
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	for i := range a.Rows {
		lo, hi := a.RowRange(i)
		for k := lo; k < hi; k++ {
			j := int(a.Indices[k])
			if j == i {
				t.Fatalf("self loop at %d", i)
			}
			if _, ok := a.Find(j, i); !ok {
				t.Fatalf("(%d, %d) without (%d, %d)", i, j, j, i)
			}
			if a.Values[k] != 1 {
				t.Fatalf("weight %v", a.Values[k])
			}
		}
	}
}

// TestSamplerMarginals checks that every pair / attribute is flipped
// independently with the right probability.
func TestSamplerMarginals(t *testing.T) {
	const n, d, samples = 9, 7, 20000
	edges := [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 8}, {0, 8}, {6, 7}}
	adj := undirected(t, n, edges)
	feats := binaryFeats(t, [][]int{{0, 3}, {1}, {}, {2, 4, 6}, {5}, {0, 6}, {1, 2}, {3}, {4, 5}}, d)
	p := SampleParams{PPlusAdj: 0.15, PMinusAdj: 0.4, PPlusAtt: 0.1, PMinusAtt: 0.3}
	s, err := NewSampler(adj, feats, p)
	if err != nil {
		t.Fatal(err)
	}
	pairCount := make([]int, n*n)
	attCount := make([]int, n*d)
	joint := 0 // pairs (0,1) and (4,6) present together
	for i := range samples {
		a, f := s.SampleAt(7, StreamVotes, i)
		if i < 50 {
			checkSymmetric(t, a)
			if err := f.Validate(); err != nil {
				t.Fatal(err)
			}
		}
		for r := range n {
			lo, hi := a.RowRange(r)
			for _, c := range a.Indices[lo:hi] {
				pairCount[r*n+int(c)]++
			}
			lo, hi = f.RowRange(r)
			for _, c := range f.Indices[lo:hi] {
				attCount[r*d+int(c)]++
			}
		}
		_, e1 := a.Find(0, 1)
		_, e2 := a.Find(4, 6)
		if e1 && e2 {
			joint++
		}
	}
	check := func(what string, got int, prob float64) {
		t.Helper()
		sd := math.Sqrt(prob * (1 - prob) / samples)
		if f := float64(got) / samples; math.Abs(f-prob) > 5*sd {
			t.Errorf("%s: frequency %.4f, want %.4f ± %.4f", what, f, prob, 5*sd)
		}
	}
	for i := range n {
		for j := range n {
			want := p.PPlusAdj
			if _, ok := adj.Find(i, j); ok {
				want = 1 - p.PMinusAdj
			}
			if i == j {
				if pairCount[i*n+j] != 0 {
					t.Errorf("self loop (%d, %d) sampled", i, j)
				}
				continue
			}
			check("pair", pairCount[i*n+j], want)
		}
		for j := range d {
			want := p.PPlusAtt
			if _, ok := feats.Find(i, j); ok {
				want = 1 - p.PMinusAtt
			}
			check("attribute", attCount[i*d+j], want)
		}
	}
	check("joint (0,1)&(4,6)", joint, (1-p.PMinusAdj)*p.PPlusAdj)
}

// TestSamplerSparse samples a large empty-ish graph: the number of added
// pairs must follow Binomial(#absent pairs, p₊) without touching n² pairs.
func TestSamplerSparse(t *testing.T) {
	const n = 20000
	var edges [][2]int
	for i := 0; i+1 < n; i += 2 {
		edges = append(edges, [2]int{i, i + 1})
	}
	adj := undirected(t, n, edges)
	p := SampleParams{PPlusAdj: 1e-5, PMinusAdj: 0.5}
	s, err := NewSampler(adj, nil, p)
	if err != nil {
		t.Fatal(err)
	}
	absent := float64(n)*float64(n-1)/2 - float64(len(edges))
	total := 0.0
	const samples = 20
	for i := range samples {
		a, _ := s.SampleAt(3, 0, i)
		total += float64(a.Nnz() / 2)
	}
	want := absent*p.PPlusAdj + float64(len(edges))*(1-p.PMinusAdj)
	sd := math.Sqrt((absent*p.PPlusAdj + float64(len(edges))*0.25) / samples)
	if got := total / samples; math.Abs(got-want) > 5*sd {
		t.Errorf("mean edges %.1f, want %.1f ± %.1f", got, want, 5*sd)
	}
}

func TestSamplerDeterminism(t *testing.T) {
	adj := undirected(t, 30, [][2]int{{0, 1}, {2, 3}, {5, 9}, {9, 20}, {1, 29}})
	s, err := NewSampler(adj, nil, SampleParams{PPlusAdj: 0.05, PMinusAdj: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	a1, _ := s.SampleAt(1, 1, 4)
	a2, _ := s.SampleAt(1, 1, 4)
	if !slices.Equal(a1.Indices, a2.Indices) || !slices.Equal(a1.Indptr, a2.Indptr) {
		t.Error("same (seed, stream, i) gave different samples")
	}
	differ := func(x, y *tensor.CSR) bool {
		return !slices.Equal(x.Indices, y.Indices) || !slices.Equal(x.Indptr, y.Indptr)
	}
	b, _ := s.SampleAt(1, 1, 5)
	c, _ := s.SampleAt(1, 0, 4)
	d, _ := s.SampleAt(2, 1, 4)
	if !differ(a1, b) || !differ(a1, c) || !differ(a1, d) {
		t.Error("different (seed, stream, i) gave identical samples")
	}
}

func TestSamplerErrors(t *testing.T) {
	sym := undirected(t, 3, [][2]int{{0, 1}})
	asym, _ := tensor.FromCOO(3, 3, []tensor.Entry{{Row: 0, Col: 1, Val: 1}})
	loop, _ := tensor.FromCOO(3, 3, []tensor.Entry{{Row: 1, Col: 1, Val: 1}})
	tfidf, _ := tensor.FromCOO(3, 2, []tensor.Entry{{Row: 0, Col: 1, Val: 0.3}})
	ok := SampleParams{PMinusAdj: 0.4}
	for name, f := range map[string]func() error{
		"asymmetric":     func() error { _, err := NewSampler(asym, nil, ok); return err },
		"self loop":      func() error { _, err := NewSampler(loop, nil, ok); return err },
		"no flips":       func() error { _, err := NewSampler(sym, nil, SampleParams{}); return err },
		"p > 1":          func() error { _, err := NewSampler(sym, nil, SampleParams{PPlusAdj: 2}); return err },
		"att no feats":   func() error { _, err := NewSampler(sym, nil, SampleParams{PPlusAtt: 0.1}); return err },
		"att non-binary": func() error { _, err := NewSampler(sym, tfidf, SampleParams{PPlusAtt: 0.1}); return err },
	} {
		if f() == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// degreeParity predicts class (degree mod c): a deterministic function of
// the sampled graph.
func degreeParity(c int) func() (Predictor, error) {
	return func() (Predictor, error) {
		return PredictorFunc(func(adj, _ *tensor.CSR) ([]int32, error) {
			y := make([]int32, adj.Rows)
			for i := range y {
				lo, hi := adj.RowRange(i)
				y[i] = int32((hi - lo) % c)
			}
			return y, nil
		}), nil
	}
}

func TestVotesDeterministicAcrossWorkers(t *testing.T) {
	adj := undirected(t, 40, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {10, 11}, {11, 30}, {30, 39}})
	s, err := NewSampler(adj, nil, SampleParams{PPlusAdj: 0.02, PMinusAdj: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	var ref *Counts
	for _, w := range []int{1, 2, 5} {
		last := 0
		v, err := Votes(context.Background(), s, 3, VoteOptions{Samples: 300, Seed: 9, Stream: StreamVotes, Workers: w,
			NewPredictor: degreeParity(3), Progress: func(done, total int) {
				if done != last+1 || total != 300 {
					t.Errorf("progress %d/%d after %d", done, total, last)
				}
				last = done
			}})
		if err != nil {
			t.Fatal(err)
		}
		if last != 300 {
			t.Errorf("progress ended at %d", last)
		}
		if tot, err := v.rowTotal(); err != nil || tot != 300 {
			t.Errorf("rows sum to %d (%v), want 300", tot, err)
		}
		if ref == nil {
			ref = v
		} else if !slices.Equal(ref.Data, v.Data) {
			t.Errorf("%d workers: votes differ from 1 worker", w)
		}
	}
}

func TestVotesErrorsAndCancel(t *testing.T) {
	adj := undirected(t, 10, [][2]int{{0, 1}})
	s, err := NewSampler(adj, nil, SampleParams{PPlusAdj: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	calls := 0
	_, err = Votes(context.Background(), s, 2, VoteOptions{Samples: 50, Workers: 1, NewPredictor: func() (Predictor, error) {
		return PredictorFunc(func(adj, _ *tensor.CSR) ([]int32, error) {
			calls++
			if calls == 5 {
				return nil, boom
			}
			return make([]int32, adj.Rows), nil
		}), nil
	}})
	if !errors.Is(err, boom) {
		t.Errorf("error %v, want boom", err)
	}
	_, err = Votes(context.Background(), s, 2, VoteOptions{Samples: 5, NewPredictor: func() (Predictor, error) {
		return PredictorFunc(func(adj, _ *tensor.CSR) ([]int32, error) { return []int32{0, 1, 2}, nil }), nil
	}})
	if err == nil {
		t.Error("wrong number of predictions: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	_, err = Votes(ctx, s, 2, VoteOptions{Samples: 1000, Workers: 2, NewPredictor: degreeParity(2),
		Progress: func(done, _ int) {
			if done == 10 {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

// smallVoteFile smooths degreeParity(3) on a 12-node graph (20 pre-samples,
// 200 samples, seed 4) and saves the votes in a temporary folder: the
// vote file and its path.
func smallVoteFile(tb testing.TB) (*VoteFile, string) {
	tb.Helper()
	adj := undirected(tb, 12, [][2]int{{0, 1}, {1, 2}, {5, 6}})
	s, err := NewSampler(adj, nil, SampleParams{PPlusAdj: 0.05, PMinusAdj: 0.3})
	if err != nil {
		tb.Fatal(err)
	}
	vf, err := Smooth(context.Background(), s, 3, SmoothOptions{PreSamples: 20, Samples: 200, Seed: 4, NewPredictor: degreeParity(3)})
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(tb.TempDir(), "votes.npz")
	if err := vf.Save(path); err != nil {
		tb.Fatal(err)
	}
	return vf, path
}

func TestSmoothSaveLoad(t *testing.T) {
	vf, path := smallVoteFile(t)
	got, err := LoadVotes(path)
	if err != nil {
		t.Fatal(err)
	}
	if !got.HasParams || got.Sample != vf.Sample || got.NumSamples != 200 || got.NumPreSamples != 20 || got.Seed != 4 ||
		!slices.Equal(got.Votes.Data, vf.Votes.Data) || !slices.Equal(got.PreVotes.Data, vf.PreVotes.Data) {
		t.Errorf("round trip: got %+v, want %+v", got, vf)
	}
	if _, err := LoadVotes(filepath.Join(t.TempDir(), "missing.npz")); err == nil {
		t.Error("missing file: no error")
	}
}

// TestVotesManySameAsVotes: several predictors on shared samples count what
// each counts alone, and a failing one is named by a PredictorError.
func TestVotesManySameAsVotes(t *testing.T) {
	adj := undirected(t, 40, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {10, 11}, {11, 30}, {30, 39}})
	s, err := NewSampler(adj, nil, SampleParams{PPlusAdj: 0.02, PMinusAdj: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	shifted := func() (Predictor, error) {
		p, _ := degreeParity(3)()
		return PredictorFunc(func(a, f *tensor.CSR) ([]int32, error) {
			y, err := p.Predict(a, f)
			for i := range y {
				y[i] = (y[i] + 1) % 3
			}
			return y, err
		}), nil
	}
	o := VoteOptions{Samples: 200, Seed: 4, Stream: StreamVotes, Workers: 2}
	var alone []*Counts
	for _, np := range []func() (Predictor, error){degreeParity(3), shifted} {
		o.NewPredictor = np
		v, err := Votes(context.Background(), s, 3, o)
		if err != nil {
			t.Fatal(err)
		}
		alone = append(alone, v)
	}
	o.NewPredictor = nil
	o.NewPredictors = func() ([]Predictor, error) {
		a, _ := degreeParity(3)()
		b, _ := shifted()
		return []Predictor{a, b}, nil
	}
	many, err := VotesMany(context.Background(), s, 3, o)
	if err != nil {
		t.Fatal(err)
	}
	for i := range alone {
		if !slices.Equal(alone[i].Data, many[i].Data) {
			t.Errorf("predictor %d: shared-sample votes differ from its votes alone", i)
		}
	}
	boom := errors.New("boom")
	o.NewPredictors = func() ([]Predictor, error) {
		a, _ := degreeParity(3)()
		return []Predictor{a, PredictorFunc(func(*tensor.CSR, *tensor.CSR) ([]int32, error) { return nil, boom })}, nil
	}
	_, err = VotesMany(context.Background(), s, 3, o)
	var pe *PredictorError
	if !errors.As(err, &pe) || pe.Predictor != 1 || !errors.Is(err, boom) {
		t.Errorf("a failing second predictor: %v, want a PredictorError naming predictor 1", err)
	}
}

// TestVotesResumeFromCheckpoints: votes resumed from checkpoints (each
// predictor from another one, one from scratch) equal the votes of one
// uninterrupted run, at any number of workers; checkpoints hold exactly
// Done votes per node.
func TestVotesResumeFromCheckpoints(t *testing.T) {
	adj := undirected(t, 40, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {10, 11}, {11, 30}, {30, 39}})
	s, err := NewSampler(adj, nil, SampleParams{PPlusAdj: 0.02, PMinusAdj: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	three := func() ([]Predictor, error) {
		a, _ := degreeParity(3)()
		b, _ := degreeParity(4)()
		c, _ := degreeParity(5)()
		return []Predictor{a, b, c}, nil
	}
	o := VoteOptions{Samples: 100, Seed: 9, Stream: StreamVotes, Workers: 2, NewPredictors: three}
	want, err := VotesMany(context.Background(), s, 5, o)
	if err != nil {
		t.Fatal(err)
	}
	var saved [][]*Partial
	o.CheckpointEvery = 15
	o.Checkpoint = func(parts []*Partial) error {
		for _, p := range parts {
			if err := p.Validate(40, 5, 100); err != nil {
				t.Errorf("checkpoint: %v", err)
			}
		}
		saved = append(saved, parts)
		return nil
	}
	got, err := VotesMany(context.Background(), s, 5, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(saved) != 6 || saved[0][0].Done != 15 || saved[5][2].Done != 90 {
		t.Fatalf("%d checkpoints, want 6 at 15, 30, …, 90", len(saved))
	}
	for m := range want {
		if !slices.Equal(want[m].Data, got[m].Data) {
			t.Errorf("predictor %d: votes with checkpoints differ", m)
		}
	}
	for _, workers := range []int{1, 3} {
		o.Workers, o.Checkpoint = workers, nil
		o.Resume = []*Partial{saved[1][0], saved[4][1], nil}
		got, err := VotesMany(context.Background(), s, 5, o)
		if err != nil {
			t.Fatal(err)
		}
		for m := range want {
			if !slices.Equal(want[m].Data, got[m].Data) {
				t.Errorf("workers %d: predictor %d: resumed votes differ", workers, m)
			}
		}
		o.Resume = []*Partial{{Done: 100, Counts: want[0]}, {Done: 100, Counts: want[1]}, {Done: 100, Counts: want[2]}}
		if got, err = VotesMany(context.Background(), s, 5, o); err != nil || !slices.Equal(got[2].Data, want[2].Data) {
			t.Errorf("workers %d: resumed after the last sample: %v", workers, err)
		}
	}
	path := filepath.Join(t.TempDir(), "partial.npz")
	if err := saved[2][1].Save(path); err != nil {
		t.Fatal(err)
	}
	if back, err := LoadPartial(path); err != nil || back.Done != 45 || !slices.Equal(back.Counts.Data, saved[2][1].Counts.Data) {
		t.Errorf("partial votes round trip: %v", err)
	}
	bad := &Partial{Done: 30, Counts: saved[0][0].Counts} // 15 votes per node
	o.Resume = []*Partial{bad, nil, nil}
	if _, err := VotesMany(context.Background(), s, 5, o); err == nil || !strings.Contains(err.Error(), "has 15 votes, want 30") {
		t.Errorf("an inconsistent checkpoint: %v", err)
	}
	o.Resume = []*Partial{nil, nil}
	if _, err := VotesMany(context.Background(), s, 5, o); err == nil {
		t.Error("two checkpoints for three predictors: no error")
	}
}

// slowPredictor delays each classification, so that time-based
// checkpoints cut stretches of samples anywhere.
type slowPredictor struct {
	p     Predictor
	delay time.Duration
}

func (s slowPredictor) Predict(adj *tensor.CSR, feats *tensor.CSR) ([]int32, error) {
	time.Sleep(s.delay)
	return s.p.Predict(adj, feats)
}

// TestVotesCheckpointAfterTime: with CheckpointAfter, a checkpoint comes
// after that much time even when CheckpointEvery samples are not done yet
// (so a stop loses at most about that much sampling), every checkpoint is
// consistent, and the votes are those of an uninterrupted run at 1 and 3
// workers.
func TestVotesCheckpointAfterTime(t *testing.T) {
	adj := undirected(t, 40, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {10, 11}, {11, 30}, {30, 39}})
	s, err := NewSampler(adj, nil, SampleParams{PPlusAdj: 0.02, PMinusAdj: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	slow := func() (Predictor, error) {
		p, err := degreeParity(3)()
		return slowPredictor{p, 2 * time.Millisecond}, err
	}
	o := VoteOptions{Samples: 120, Seed: 9, Stream: StreamVotes, Workers: 2, NewPredictor: slow}
	want, err := Votes(context.Background(), s, 5, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 3} {
		var saved []*Partial
		var at []time.Time
		o.Workers, o.CheckpointEvery, o.CheckpointAfter = workers, 1000, 20*time.Millisecond
		o.Checkpoint = func(parts []*Partial) error {
			if err := parts[0].Validate(40, 5, 120); err != nil {
				t.Errorf("checkpoint: %v", err)
			}
			saved, at = append(saved, parts[0]), append(at, time.Now())
			return nil
		}
		start := time.Now()
		got, err := Votes(context.Background(), s, 5, o)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(want.Data, got.Data) {
			t.Errorf("workers %d: votes with time-based checkpoints differ", workers)
		}
		if len(saved) < 3 {
			t.Fatalf("workers %d: %d checkpoints in %v, want one about every 20 ms", workers, len(saved), time.Since(start))
		}
		for i := 1; i < len(saved); i++ {
			if saved[i].Done <= saved[i-1].Done {
				t.Errorf("workers %d: checkpoint %d at %d samples after %d", workers, i, saved[i].Done, saved[i-1].Done)
			}
		}
		if gap := at[0].Sub(start); gap > 500*time.Millisecond {
			t.Errorf("workers %d: first checkpoint after %v", workers, gap)
		}
	}
}
