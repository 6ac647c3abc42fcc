package task

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"strings"

	"github.com/rgnn/rgnn/bridge"
	"github.com/rgnn/rgnn/certify"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
	"github.com/rgnn/rgnn/train"
)

// CertifyResult is a certificate over the test nodes.
type CertifyResult struct {
	Dataset       string  `json:"dataset"`
	Votes         string  `json:"votes"`
	SplitSeed     int     `json:"split_seed"`
	PAdd          float64 `json:"p_add"`
	PDel          float64 `json:"p_del"`
	PAddAtt       float64 `json:"p_add_att,omitempty"`
	PDelAtt       float64 `json:"p_del_att,omitempty"`
	Alpha         float64 `json:"alpha"`
	NumSamples    int     `json:"n_samples"`
	NumPreSamples int     `json:"n_samples_pre,omitempty"`
	NTest         int     `json:"n_test"`
	NCorrect      int     `json:"n_correct"`
	// GridShape is [nodes, max_ra+2, max_rd+2] like the reference's grids.
	GridShape                 [3]int  `json:"grid_shape"`
	AccumulatedCertifications float64 `json:"accumulated_certifications"`
	SmoothedAccuracy          float64 `json:"smoothed_accuracy"`
	AvgRadiusAdd              float64 `json:"avg_radius_add"`
	AvgRadiusDel              float64 `json:"avg_radius_del"`
	AvgRadiusAddCorrect       float64 `json:"avg_radius_add_correct"`
	AvgRadiusDelCorrect       float64 `json:"avg_radius_del_correct"`
	// CertificationRatio[ra][rd] = R(ra, rd) over the test nodes.
	CertificationRatio [][]float64 `json:"certification_ratio"`
	DegreeBinning      string      `json:"degree_binning"`
	DegreeBins         []DegreeBin `json:"degree_bins"`

	// VoteFile holds the votes the certificate was computed from; Metrics
	// and Bins the certificate's metrics (for plots).
	VoteFile *certify.VoteFile   `json:"-"`
	Stats    certify.Metrics     `json:"-"`
	Bins     []certify.DegreeBin `json:"-"`
}

// DegreeBin is the certificate over the test nodes of a degree range.
type DegreeBin struct {
	MinDegree                 int     `json:"min_degree"`
	MaxDegree                 int     `json:"max_degree"`
	NTest                     int     `json:"n_test"`
	SmoothedAccuracy          float64 `json:"smoothed_accuracy"`
	AccumulatedCertifications float64 `json:"accumulated_certifications"`
	AvgRadiusAdd              float64 `json:"avg_radius_add"`
	AvgRadiusDel              float64 `json:"avg_radius_del"`
}

// Metrics are the result's values as an experiment stores them.
func (r *CertifyResult) Metrics() map[string]any {
	var bins []map[string]any
	for _, b := range r.DegreeBins {
		bins = append(bins, map[string]any{"min_degree": b.MinDegree, "max_degree": b.MaxDegree, "n": b.NTest,
			"accumulated_certifications": b.AccumulatedCertifications, "smoothed_accuracy": b.SmoothedAccuracy,
			"avg_radius_add": b.AvgRadiusAdd, "avg_radius_del": b.AvgRadiusDel})
	}
	return map[string]any{
		"accumulated_certifications": r.AccumulatedCertifications, "smoothed_accuracy": r.SmoothedAccuracy,
		"avg_radius_add": r.AvgRadiusAdd, "avg_radius_del": r.AvgRadiusDel,
		"avg_radius_add_correct": r.AvgRadiusAddCorrect, "avg_radius_del_correct": r.AvgRadiusDelCorrect,
		"ratio": r.CertificationRatio, "degree_bins": bins, "n_test": r.NTest,
	}
}

// Sample draws the votes of the smoothed classifier of the trained model t
// on p: Samples + PreSamples graphs with edges added (PAdd) and deleted
// (PDel), each classified with its preprocessing recomputed (GDC models
// diffuse with the push PPR at SamplePPREps). workers ≤ 0: GOMAXPROCS; the
// votes do not depend on it.
func (s Certify) Sample(ctx context.Context, p *data.Problem, t *Trained, workers int, h Hooks) (*certify.VoteFile, error) {
	vf, err := SampleGroup(ctx, []Certify{s}, p, []*Trained{t}, workers, h)
	if err != nil {
		return nil, err
	}
	return vf[0], nil
}

// SampleGroup draws the votes of several smoothed classifiers on the same
// sampled graphs: specs[i] certifies trained[i], and the specs agree on
// everything that decides the samples (SameSamples). Each graph is drawn
// once and classified by every model in turn; models whose preprocessing is
// the same (GDC with the same α, k and SamplePPREps) diffuse it once, through
// a per-worker cache. vf[i] is exactly what specs[i].Sample would draw for
// trained[i] alone, in a fraction of the time when the diffusion dominates
// (the GDC models of a certificate grid).
func SampleGroup(ctx context.Context, specs []Certify, p *data.Problem, trained []*Trained, workers int, h Hooks) ([]*certify.VoteFile, error) {
	if len(specs) == 0 || len(specs) != len(trained) {
		return nil, fmt.Errorf("certify: %d specs for %d trained models", len(specs), len(trained))
	}
	for i, s := range specs {
		if err := s.Validate(); err != nil {
			return nil, err
		}
		if err := specs[0].SameSamples(s); err != nil {
			return nil, fmt.Errorf("certify group: run %d: %w", i, err)
		}
	}
	if err := ValidWorkers(workers); err != nil {
		return nil, err
	}
	s := specs[0]
	// Every sampling worker builds its own copy of each model.
	nw := workers
	if nw <= 0 {
		nw = runtime.GOMAXPROCS(0)
	}
	for i, t := range trained {
		if err := t.Spec.checkMemory(p, nw+1, "workers", workers); err != nil {
			return nil, fmt.Errorf("certify run %d: %w", i, err)
		}
	}
	sampler, err := certify.NewSampler(p.Adj, p.Features, certify.SampleParams{PPlusAdj: s.PAdd, PMinusAdj: s.PDel,
		PPlusAtt: s.PAddAtt, PMinusAtt: s.PDelAtt})
	if err != nil {
		return nil, err
	}
	// The models as they run on the samples: every sampled graph needs a
	// fresh diffusion; with attribute noise the graph is the clean one,
	// diffused once per worker with the model's own PPR (exact by default).
	models := make([]Model, len(trained))
	for i, t := range trained {
		models[i] = t.Spec
		if !specs[i].Attributes() {
			models[i].PPREps = specs[i].SamplePPREps
		}
	}
	newPredictors := func() ([]certify.Predictor, error) {
		var cache *graph.PrepCache
		if len(trained) > 1 || s.Attributes() {
			// the preprocessing of the worker's current sample (with
			// attribute noise: of the clean graph, throughout)
			cache = graph.NewPrepCache(prepSlots(models))
		}
		preds := make([]certify.Predictor, len(trained))
		for i, t := range trained {
			if c := externalClient(t.Model); c != nil {
				preds[i] = externalPredictor{ctx, c} // one process, shared by the workers
				continue
			}
			spec := models[i]
			c, err := newModel(spec, p, t.Seed, cache)
			if err != nil {
				return nil, err
			}
			c.copyWeights(t)
			// The weights stay fixed: the feature stage is computed once per
			// worker, only the graph changes from sample to sample.
			preds[i] = certify.PredictorFunc(train.NewClassifier(c.Model, p.Features, p.X).Classify)
		}
		return preds, nil
	}
	batch := 0 // Go models classify one sample at a time
	for _, t := range trained {
		if externalClient(t.Model) != nil {
			batch = cmp.Or(s.ExternalBatch, DefaultExternalBatch)
		}
	}
	return certify.SmoothMany(ctx, sampler, p.NumClasses, certify.SmoothOptions{
		PreSamples: s.PreSamples, Samples: s.Samples, Seed: uint64(s.Seed), Workers: workers,
		NewPredictors: newPredictors, Progress: h.Progress,
		Resume: h.Resume, Checkpoint: h.Checkpoint, CheckpointEvery: h.CheckpointEvery, CheckpointAfter: h.CheckpointAfter,
		Batch: batch})
}

// externalPredictor has an external model classify sampled graphs, a batch
// per request (certify.BatchPredictor).
type externalPredictor struct {
	ctx context.Context
	c   *bridge.Client
}

func (e externalPredictor) Predict(adj, feats *tensor.CSR) ([]int32, error) {
	ys, err := e.PredictBatch([]*tensor.CSR{adj}, []*tensor.CSR{feats})
	if err != nil {
		return nil, err
	}
	return ys[0], nil
}

func (e externalPredictor) PredictBatch(adjs, feats []*tensor.CSR) ([][]int32, error) {
	graphs := make([]bridge.Graph, len(adjs))
	for i := range adjs {
		graphs[i] = bridge.Graph{Adj: adjs[i], Features: feats[i]}
	}
	preds, err := e.c.Predict(e.ctx, graphs)
	if err != nil {
		return nil, err
	}
	out := make([][]int32, len(preds))
	for i, p := range preds {
		out[i] = p.Classes
	}
	return out, nil
}

// ValidWorkers checks a number of sampling workers (parameter workers):
// 0 is GOMAXPROCS, a negative number an error.
func ValidWorkers(n int) error {
	if n < 0 {
		return bad("workers", n, "must be ≥ 0 (0: GOMAXPROCS)")
	}
	return nil
}

// prepSlots is how many results a preprocessing cache needs to hold one
// graph's preprocessing for all of models: a diffusion per distinct GDC
// setting (k, eps; every model is counted, the non-GDC ones spare) and
// svd_gcn's SVD. Fewer slots would evict a result that a later model of the
// same sample needs.
func prepSlots(models []Model) int {
	type gdc struct {
		k   int
		eps float64
	}
	seen := map[gdc]bool{}
	for _, m := range models {
		seen[gdc{m.K, m.PPREps}] = true
	}
	return len(seen) + 1
}

// SameSamples reports (as an error naming the first difference) whether o
// draws other sampled graphs than s: another dataset or attributes, split,
// seed, flip probabilities or number of samples. Two such specs can share
// their samples (SampleGroup) whatever their models.
func (s Certify) SameSamples(o Certify) error {
	type key struct {
		Data                         Data
		Seed, Split                  int
		PAdd, PDel, PAddAtt, PDelAtt float64
		Samples, PreSamples          int
	}
	a := key{s.Data, s.Seed, s.EffectiveSplitSeed(), s.PAdd, s.PDel, s.PAddAtt, s.PDelAtt, s.Samples, s.PreSamples}
	b := key{o.Data, o.Seed, o.EffectiveSplitSeed(), o.PAdd, o.PDel, o.PAddAtt, o.PDelAtt, o.Samples, o.PreSamples}
	if a != b {
		return fmt.Errorf("samples differ: %+v vs %+v", a, b)
	}
	return nil
}

// Run samples the votes of t (Sample) and computes their certificate
// (FromVotes).
func (s Certify) Run(ctx context.Context, p *data.Problem, t *Trained, workers int, h Hooks) (*CertifyResult, error) {
	vf, err := s.Sample(ctx, p, t, workers, h)
	if err != nil {
		return nil, err
	}
	return s.FromVotes(p, vf, "(sampled)", nil)
}

// FromVotes computes the certificate of votes vf (named by source in the
// result) for p's test nodes with s's PAdd, PDel and Alpha, and the
// certificate per degree bin: DegreeBins equal-frequency bins, or the
// given lower bin edges.
func (s Certify) FromVotes(p *data.Problem, vf *certify.VoteFile, source string, edges []int) (*CertifyResult, error) {
	if err := s.validCertificate(); err != nil {
		return nil, err
	}
	if vf.Votes.Nodes != p.NumNodes() || vf.Votes.Classes != p.NumClasses {
		return nil, fmt.Errorf("%s: votes for %d nodes × %d classes, but %s has %d nodes × %d classes",
			source, vf.Votes.Nodes, vf.Votes.Classes, p.Name, p.NumNodes(), p.NumClasses)
	}
	plus, minus := s.noise() // the binary certificate of whichever is smoothed
	cert, err := certify.Compute(vf.Votes, vf.PreVotes, certify.Params{PPlus: plus, PMinus: minus, Alpha: s.Alpha,
		NumSamples: vf.NumSamples}, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	m, err := cert.Metrics(p.Labels, p.Test)
	if err != nil {
		return nil, err
	}
	degrees := make([]int, p.NumNodes())
	for i := range degrees {
		lo, hi := p.Adj.RowRange(i)
		degrees[i] = hi - lo
	}
	binning := "fixed lower edges " + strings.Trim(strings.Join(strings.Fields(fmt.Sprint(edges)), ","), "[]")
	if edges == nil {
		edges = certify.QuantileDegreeEdges(degrees, p.Test, s.DegreeBins)
		binning = fmt.Sprintf("equal frequency, %d bins requested (ties merge bins)", s.DegreeBins)
	}
	bins, err := cert.DegreeTable(p.Labels, p.Test, degrees, edges)
	if err != nil {
		return nil, err
	}
	nra, nrd := cert.GridShape()
	r := &CertifyResult{Dataset: p.Name, Votes: source, SplitSeed: p.SplitSeed, PAdd: s.PAdd, PDel: s.PDel,
		PAddAtt: s.PAddAtt, PDelAtt: s.PDelAtt,
		Alpha: s.Alpha, NumSamples: cert.NumSamples, NumPreSamples: vf.NumPreSamples, NTest: m.Nodes,
		NCorrect: m.Correct, GridShape: [3]int{cert.Nodes, nra, nrd},
		AccumulatedCertifications: m.AccumulatedCertifications, SmoothedAccuracy: m.SmoothedAccuracy,
		AvgRadiusAdd: m.AvgRadiusAdd, AvgRadiusDel: m.AvgRadiusDel, AvgRadiusAddCorrect: m.AvgRadiusAddCorrect,
		AvgRadiusDelCorrect: m.AvgRadiusDelCorrect, CertificationRatio: m.Ratio, DegreeBinning: binning,
		VoteFile: vf, Stats: m, Bins: bins}
	for _, b := range bins {
		r.DegreeBins = append(r.DegreeBins, DegreeBin{MinDegree: b.MinDegree, MaxDegree: b.MaxDegree,
			NTest: b.Nodes, SmoothedAccuracy: b.SmoothedAccuracy, AccumulatedCertifications: b.AccumulatedCertifications,
			AvgRadiusAdd: b.AvgRadiusAdd, AvgRadiusDel: b.AvgRadiusDel})
	}
	return r, nil
}

// ParseDegreeEdges parses ascending non-negative bin edges like
// "1,2,3,5,10" ("": nil, the equal-frequency bins).
func ParseDegreeEdges(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var edges []int
	for _, f := range strings.Split(s, ",") {
		var v int
		if _, err := fmt.Sscan(strings.TrimSpace(f), &v); err != nil || v < 0 {
			return nil, bad("degree_edges", s, "want ascending non-negative integers like 1,2,3,5,10")
		}
		if len(edges) > 0 && v <= edges[len(edges)-1] {
			return nil, bad("degree_edges", s, "edges must ascend")
		}
		edges = append(edges, v)
	}
	return edges, nil
}

// ParamsFromVotes takes the sampling parameters of s from the votes file
// where it records them: the flip probabilities (p_add, p_del, or
// p_add_att, p_del_att), samples, pre_samples and seed. A parameter given
// explicitly (given(param) reports it) must agree with the file: votes
// drawn otherwise than the flags say are refused, naming both. A file
// without flip probabilities (the reference's) needs them given; given
// sample counts are then checked against the votes' totals.
func (s *Certify) ParamsFromVotes(vf *certify.VoteFile, given func(param string) bool) error {
	if err := s.probsFromVotes(vf, given); err != nil {
		return err
	}
	total := func(c *certify.Counts) int64 {
		var t int64
		for _, x := range c.Row(0) {
			t += x
		}
		return t
	}
	for _, c := range []struct {
		param    string
		flag     *int
		recorded int
		counts   *certify.Counts
	}{{"samples", &s.Samples, vf.NumSamples, vf.Votes}, {"pre_samples", &s.PreSamples, vf.NumPreSamples, vf.PreVotes}} {
		switch {
		case c.recorded > 0 && given(c.param) && *c.flag != c.recorded:
			return bad(c.param, *c.flag, "disagrees with the votes file (%d samples)", c.recorded)
		case c.recorded > 0:
			*c.flag = c.recorded
		case given(c.param) && total(c.counts) != int64(*c.flag):
			return bad(c.param, *c.flag, "disagrees with the votes file (node 0's votes sum to %d)", total(c.counts))
		}
	}
	if vf.HasSeed {
		if given("seed") && uint64(s.Seed) != vf.Seed {
			return bad("seed", s.Seed, "disagrees with the votes file (sampled with seed %d)", vf.Seed)
		}
		if vf.Seed <= math.MaxUint32 {
			s.Seed = int(vf.Seed)
		}
	}
	return nil
}

// probsFromVotes is ParamsFromVotes for the flip probabilities.
func (s *Certify) probsFromVotes(vf *certify.VoteFile, given func(param string) bool) error {
	if !vf.HasParams {
		if given("p_add_att") || given("p_del_att") {
			return nil // attribute certificate; validNoise checks the rest
		}
		if !given("p_add") {
			return bad("p_add", nil, "the votes file does not record its flip probabilities: give p_add and p_del (or p_add_att and p_del_att)")
		}
		if !given("p_del") {
			return bad("p_del", nil, "the votes file does not record its flip probabilities: give p_add and p_del (or p_add_att and p_del_att)")
		}
		return nil
	}
	f := vf.Sample
	sampled := fmt.Sprintf("sampled with p₊=%g, p₋=%g, p₊ᵃᵗᵗ=%g, p₋ᵃᵗᵗ=%g", f.PPlusAdj, f.PMinusAdj, f.PPlusAtt, f.PMinusAtt)
	if (f.PPlusAtt != 0 || f.PMinusAtt != 0) && (f.PPlusAdj != 0 || f.PMinusAdj != 0) {
		return fmt.Errorf("the votes were %s; joint structure/attribute certificates are not supported", sampled)
	}
	for _, c := range []struct {
		param string
		flag  *float64
		file  float64
	}{{"p_add", &s.PAdd, f.PPlusAdj}, {"p_del", &s.PDel, f.PMinusAdj}, {"p_add_att", &s.PAddAtt, f.PPlusAtt}, {"p_del_att", &s.PDelAtt, f.PMinusAtt}} {
		if given(c.param) && *c.flag != c.file {
			return bad(c.param, *c.flag, "disagrees with the votes file (%s)", sampled)
		}
		*c.flag = c.file
	}
	return nil
}
