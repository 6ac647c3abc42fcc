package benchmark

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/data/synth"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/internal/cputime"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
	"github.com/rgnn/rgnn/train"
)

// The stages of a scale row, in the order they run for a size.
const (
	StageGenerate = "generate" // synth.Generate into the scale directory (skipped when the file is there)
	StageConvert  = "convert"  // first load of the .npz: parse it and write the binary cache
	StageLoad     = "load"     // load from the binary cache
	StagePPR      = "ppr"      // graph.TopKPPR of every node
	StageGCN      = "gcn"      // GCN training epochs, full batch
	StageSMGDC    = "sm_gdc"   // Soft Median GDC training epochs, full batch (push-PPR GDC)
	StagePPRGo    = "pprgo"    // PPRGo training epochs in mini-batches
	StageSMPPRGo  = "sm_pprgo" // Soft Median PPRGo training epochs in mini-batches
	StagePRBCD    = "prbcd"    // PR-BCD epochs (ε = 0.1, block 1e6) against the GCN of the gcn stage's epochs
	// StagePRBCDSMGDC is adaptive PR-BCD epochs (ε = 0.1, block 1e6)
	// against a Soft Median GDC (push GDC) trained for the stage's epochs,
	// through the push engine (engine.PushPPR).
	StagePRBCDSMGDC = "prbcd_sm_gdc"
	// StageLocalPRBCD is local PR-BCD per target (ε = 0.5, a few test
	// targets) against a PPRGo trained for the stage, through the local
	// engine (engine.PPRGo) on the ppr stage's matrix.
	StageLocalPRBCD = "local_prbcd"
)

// sumsSuffix names the file beside the ppr stage's matrix holding its row
// sums (graph.TopKPPRScaled), which the local_prbcd stage needs.
const sumsSuffix = ".sums"

// ScaleMaxPRBCD is the largest graph the PR-BCD stage runs on: the GCN's
// analytic gradient keeps about 1,300 float32 per node (its activations,
// gradients and packed low-rank factors: 0.9 GB at arXiv's size, 13 GB at
// the Products size, where global attacks are GR-BCD's job).
const ScaleMaxPRBCD = 200_000

// scaleModels is the registry model of each training stage.
var scaleModels = map[string]string{StageGCN: "gcn", StageSMGDC: "softmedian_gdc",
	StagePPRGo: "pprgo", StageSMPPRGo: "softmedian_pprgo"}

// ScaleMaxSMGDC is the largest graph the Soft Median GDC stage runs on: its
// full-batch epoch aggregates 64 neighbours of every node in both layers
// (about 20 CPU seconds at arXiv's size), which the mini-batch PPRGo models
// replace on larger graphs.
const ScaleMaxSMGDC = 200_000

// ScaleSpec is a scale benchmark as a user states it (`rgnn bench --scale`):
// for every size, a graph of the preset's shape scaled to that many nodes
// (the same mean degree) is generated into Dir (kept there, so a rerun
// reuses it) and each stage runs on it.
type ScaleSpec struct {
	// Sizes are the node counts (default 10,000, 100,000, 1,000,000 and
	// ogbn-products' 2,449,029).
	Sizes []int
	// Preset is the synth preset whose shape is scaled (default products:
	// the sizes end at its own size, and every size has its mean degree).
	Preset string
	// Seed seeds the generated graphs, the initialisation and dropout.
	Seed uint64
	// Dir keeps the generated graphs, their caches and top-k PPR matrices
	// (default: rgnn-scale in the user's cache directory).
	Dir string
	// K and Eps are the top-k PPR's k (64) and push error (1e-4); α = 0.15.
	K   int
	Eps float64
	// EngineEps, if > 0, is the push error of the prbcd_sm_gdc stage's
	// attack forward passes (attack.Options.EnginePPREps); 0: Eps, the
	// model's own.
	EngineEps float64
	// Epochs is the number of training epochs of each training stage
	// (default 2); a row reports the seconds per epoch after the first.
	Epochs int
	// BatchSize is the mini-batch of the PPRGo stages (default 512).
	BatchSize int
	// EvalNodes is how many test nodes (a seeded sample) the accuracy after
	// the training epochs is measured on (default 10,000).
	EvalNodes int
	// Stages, if set, runs only these stages (ScaleStages names them), plus
	// those whose files they need and Dir lacks: generate, convert, and ppr
	// for the PPRGo and local_prbcd stages. Empty: every stage.
	Stages []string
}

// ScaleStages lists every stage in the order they run.
var ScaleStages = []string{StageGenerate, StageConvert, StageLoad, StagePPR, StageGCN, StagePRBCD, StageSMGDC,
	StagePRBCDSMGDC, StagePPRGo, StageSMPPRGo, StageLocalPRBCD}

// DefaultScaleSizes are the sizes of ScaleSpec.Defaults.
var DefaultScaleSizes = []int{10_000, 100_000, 1_000_000, 2_449_029}

// Defaults returns the spec with every field at its default.
func (ScaleSpec) Defaults() ScaleSpec {
	dir := filepath.Join(os.TempDir(), "rgnn-scale")
	if c, err := os.UserCacheDir(); err == nil {
		dir = filepath.Join(c, "rgnn", "scale")
	}
	return ScaleSpec{Sizes: DefaultScaleSizes, Preset: "products", Dir: dir, K: 64, Eps: 1e-4,
		Epochs: 2, BatchSize: 512, EvalNodes: 10_000}
}

// ParseSizes parses a comma-separated list of node counts.
func ParseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("sizes %q: %q is not a whole number", s, f)
		}
		out = append(out, n)
	}
	return out, nil
}

// Validate reports impossible values; each error starts with the
// parameter's name.
func (s ScaleSpec) Validate() error {
	p, err := synth.LookupPreset(s.Preset)
	if err != nil {
		return fmt.Errorf("preset: %w", err)
	}
	if len(s.Sizes) == 0 {
		return errors.New("sizes: none given")
	}
	for _, n := range s.Sizes {
		if _, err := p.Scaled(n); err != nil {
			return fmt.Errorf("sizes: %w", err)
		}
	}
	switch {
	case s.Dir == "":
		return errors.New("dir: empty")
	case s.K < 1:
		return fmt.Errorf("k %d: must be ≥ 1", s.K)
	case !(s.Eps > 0):
		return fmt.Errorf("eps %v: must be > 0", s.Eps)
	case !(s.EngineEps >= 0) || math.IsInf(s.EngineEps, 0):
		return fmt.Errorf("engine_eps %v: must be ≥ 0 (0: the model's eps)", s.EngineEps)
	case s.Epochs < 1:
		return fmt.Errorf("epochs %d: must be ≥ 1", s.Epochs)
	case s.BatchSize < 1:
		return fmt.Errorf("batch size %d: must be ≥ 1", s.BatchSize)
	case s.EvalNodes < 1:
		return fmt.Errorf("eval nodes %d: must be ≥ 1", s.EvalNodes)
	}
	for _, st := range s.Stages {
		if !slices.Contains(ScaleStages, st) {
			return fmt.Errorf("stages: unknown stage %q (the stages: %s)", st, strings.Join(ScaleStages, ", "))
		}
	}
	return nil
}

// ScaleJob is one stage at one size: what a child process of
// `rgnn bench --scale` runs (RunScaleJob) and reports as a ScaleRow.
type ScaleJob struct {
	Stage     string  `json:"stage"`
	Nodes     int     `json:"nodes"`
	Preset    string  `json:"preset"`
	Seed      uint64  `json:"seed"`
	File      string  `json:"file"`     // the graph's .npz
	PPRFile   string  `json:"ppr_file"` // the top-k PPR matrix the ppr stage writes and the PPRGo stages read
	K         int     `json:"k"`
	Eps       float64 `json:"eps"`
	EngineEps float64 `json:"engine_eps,omitempty"` // prbcd_sm_gdc: the attack's push error (0: Eps)
	Epochs    int     `json:"epochs"`
	BatchSize int     `json:"batch_size"`
	EvalNodes int     `json:"eval_nodes"`
}

// ScaleRow is the measurement of one stage at one size.
type ScaleRow struct {
	Stage string `json:"stage"`
	Nodes int    `json:"nodes"`
	Edges int64  `json:"edges"` // undirected
	// Seconds and CPUSeconds (user + system, all threads) of the stage's
	// work. Training stages: per epoch, the mean over the epochs after the
	// first when there are several (the first also pays one-off costs:
	// the graph's transpose, the buffers), whose own wall time is
	// FirstEpochSeconds. Loading the graph for a later stage is not
	// counted (it is the load row).
	Seconds           float64 `json:"seconds"`
	CPUSeconds        float64 `json:"cpu_seconds"`
	FirstEpochSeconds float64 `json:"first_epoch_seconds,omitempty"`
	// PeakRSS is the peak resident memory in bytes of the process that ran
	// the stage (getrusage's maxrss): with one child process per stage it
	// includes loading the graph (and for the PPRGo stages the PPR matrix).
	PeakRSS int64 `json:"peak_rss_bytes"`
	// Training stages: the epochs timed, the test accuracy after them on
	// the evaluated sample and the share of that sample's largest class
	// (the accuracy of always guessing it).
	Epochs    int     `json:"epochs,omitempty"`
	Accuracy  float64 `json:"test_accuracy,omitempty"`
	Chance    float64 `json:"chance,omitempty"`
	BatchSize int     `json:"batch_size,omitempty"`
	Note      string  `json:"note,omitempty"`
}

// Paths returns the files of size n in s.Dir: the graph and its top-k PPR
// matrix.
func (s ScaleSpec) Paths(n int) (npzPath, pprPath string) {
	base := filepath.Join(s.Dir, fmt.Sprintf("%s_n%d_s%d", s.Preset, n, s.Seed))
	return base + ".npz", fmt.Sprintf("%s.topk%d_eps%g.ppr", base, s.K, s.Eps)
}

// Jobs returns the stages of size n in order: generate (when the file is
// not in Dir), convert (when its cache is not), load, ppr, then the
// training stages (Soft Median GDC up to ScaleMaxSMGDC nodes) with PR-BCD
// after the GCN and after the Soft Median GDC (up to ScaleMaxPRBCD nodes),
// and local PR-BCD against a
// PPRGo last.
func (s ScaleSpec) Jobs(n int) []ScaleJob {
	file, ppr := s.Paths(n)
	job := func(stage string) ScaleJob {
		return ScaleJob{Stage: stage, Nodes: n, Preset: s.Preset, Seed: s.Seed, File: file, PPRFile: ppr,
			K: s.K, Eps: s.Eps, EngineEps: s.EngineEps, Epochs: s.Epochs, BatchSize: s.BatchSize, EvalNodes: s.EvalNodes}
	}
	var jobs []ScaleJob
	if _, err := os.Stat(file); err != nil {
		jobs = append(jobs, job(StageGenerate))
	}
	if _, err := os.Stat(file + data.CacheSuffix); err != nil {
		jobs = append(jobs, job(StageConvert))
	}
	jobs = append(jobs, job(StageLoad), job(StagePPR), job(StageGCN))
	if n <= ScaleMaxPRBCD {
		jobs = append(jobs, job(StagePRBCD))
	}
	if n <= ScaleMaxSMGDC {
		jobs = append(jobs, job(StageSMGDC))
	}
	if n <= ScaleMaxPRBCD && n <= ScaleMaxSMGDC {
		jobs = append(jobs, job(StagePRBCDSMGDC))
	}
	jobs = append(jobs, job(StagePPRGo), job(StageSMPPRGo), job(StageLocalPRBCD))
	if len(s.Stages) == 0 {
		return jobs
	}
	// Only the stages asked for, and what they need that Dir lacks.
	wanted := func(st string) bool { return slices.Contains(s.Stages, st) }
	needPPR := false
	for _, st := range []string{StagePPRGo, StageSMPPRGo, StageLocalPRBCD} {
		needPPR = needPPR || wanted(st)
	}
	if needPPR {
		_, err1 := os.Stat(ppr)
		_, err2 := os.Stat(ppr + sumsSuffix)
		needPPR = err1 != nil || err2 != nil
	}
	keep := jobs[:0]
	for _, j := range jobs {
		if wanted(j.Stage) || j.Stage == StageGenerate || j.Stage == StageConvert || j.Stage == StagePPR && needPPR {
			keep = append(keep, j)
		}
	}
	return keep
}

// StageRunner runs one job and returns its row (`rgnn bench --scale` runs
// each in a child process, so that each row's peak RSS is its own).
type StageRunner func(ctx context.Context, job ScaleJob) (ScaleRow, error)

// Run runs every stage of every size with run, in order, and returns the
// rows; onRow, if set, sees each row as it is measured. A stage that fails
// stops the run with its error (the rows so far are returned).
func (s ScaleSpec) Run(ctx context.Context, run StageRunner, onRow func(ScaleRow)) ([]ScaleRow, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("benchmark: %w", err)
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("benchmark: %w", err)
	}
	var rows []ScaleRow
	for _, n := range s.Sizes {
		for _, job := range s.Jobs(n) {
			row, err := run(ctx, job)
			if err != nil {
				return rows, fmt.Errorf("scale %s at %d nodes: %w", job.Stage, n, err)
			}
			rows = append(rows, row)
			if onRow != nil {
				onRow(row)
			}
		}
	}
	return rows, nil
}

// ScaleHooks receive the progress of a stage; nil fields are ignored.
type ScaleHooks struct {
	// Progress reports work done out of total in a named step.
	Progress func(step string, done, total int)
}

func (h ScaleHooks) progress(step string, done, total int) {
	if h.Progress != nil {
		h.Progress(step, done, total)
	}
}

// RunScaleJob runs one job in this process and measures it; reg provides
// the models (task.Models()). The row's PeakRSS is this process's.
func RunScaleJob(ctx context.Context, job ScaleJob, reg *model.Registry, h ScaleHooks) (ScaleRow, error) {
	row := ScaleRow{Stage: job.Stage, Nodes: job.Nodes}
	var err error
	switch job.Stage {
	case StageGenerate:
		err = scaleGenerate(ctx, job, &row, h)
	case StageConvert, StageLoad:
		_, err = scaleLoad(job, &row)
	case StagePPR:
		err = scalePPR(job, &row, h)
	case StageGCN, StageSMGDC, StagePPRGo, StageSMPPRGo:
		err = scaleTrain(ctx, job, reg, &row, h)
	case StagePRBCD, StagePRBCDSMGDC:
		err = scalePRBCD(ctx, job, reg, &row, h)
	case StageLocalPRBCD:
		err = scaleLocalPRBCD(ctx, job, reg, &row, h)
	default:
		err = fmt.Errorf("unknown stage %q", job.Stage)
	}
	if err != nil {
		return row, err
	}
	row.PeakRSS = peakRSS()
	return row, nil
}

// timed times f in wall and process CPU time.
func timed(f func() error) (wall, cpu float64, err error) {
	c0, _ := cputime.Process()
	t0 := time.Now()
	err = f()
	c1, _ := cputime.Process()
	return time.Since(t0).Seconds(), (c1 - c0).Seconds(), err
}

func scaleGenerate(ctx context.Context, job ScaleJob, row *ScaleRow, h ScaleHooks) error {
	p, err := synth.LookupPreset(job.Preset)
	if err != nil {
		return err
	}
	if p, err = p.Scaled(job.Nodes); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(job.File), 0o755); err != nil {
		return err
	}
	opts := synth.Options{Progress: func(stage string, done, total int64) {
		h.progress("generate "+stage, int(done), int(total))
	}}
	var st synth.Stats
	row.Seconds, row.CPUSeconds, err = timed(func() error {
		st, err = synth.Generate(ctx, p, job.Seed, job.File, opts)
		return err
	})
	row.Edges = st.Edges
	return err
}

// scaleLoad loads the job's graph (through its binary cache) and fills the
// row; the convert stage removes a cache first, so that it is rebuilt.
func scaleLoad(job ScaleJob, row *ScaleRow) (*data.Graph, error) {
	cache := job.File + data.CacheSuffix
	if job.Stage == StageConvert {
		if err := os.Remove(cache); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	var g *data.Graph
	var err error
	row.Seconds, row.CPUSeconds, err = timed(func() error {
		g, err = data.LoadFileCached(job.File, false)
		return err
	})
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(cache); err != nil {
		row.Note = "no cache (file below 32 MiB)"
	}
	row.Edges = int64(g.NumEdges())
	return g, nil
}

// pprAlpha is the teleport probability of every PPR of the benchmark.
const pprAlpha = 0.15

func scalePPR(job ScaleJob, row *ScaleRow, h ScaleHooks) error {
	g, err := scaleLoad(ScaleJob{Stage: StageLoad, File: job.File}, &ScaleRow{})
	if err != nil {
		return err
	}
	row.Edges = int64(g.NumEdges())
	var pi *tensor.CSR
	var sums []float64
	row.Seconds, row.CPUSeconds, err = timed(func() error {
		pi, sums, err = graph.TopKPPRScaled(g.Adj, nil, pprAlpha, job.Eps, job.K, 0, func(done, total int) {
			h.progress("top-k ppr", done, total)
		})
		return err
	})
	if err != nil {
		return err
	}
	row.Note = fmt.Sprintf("k=%d eps=%g, %d entries", job.K, job.Eps, pi.Nnz())
	if err := writeFloats(job.PPRFile+sumsSuffix, sums); err != nil {
		return err
	}
	return writeCSR(job.PPRFile, pi)
}

func scaleTrain(ctx context.Context, job ScaleJob, reg *model.Registry, row *ScaleRow, h ScaleHooks) error {
	g, err := scaleLoad(ScaleJob{Stage: StageLoad, File: job.File}, &ScaleRow{})
	if err != nil {
		return err
	}
	row.Edges = int64(g.NumEdges())
	p, err := data.NewProblem(g, int(job.Seed%(1<<32)))
	if err != nil {
		return err
	}
	name := scaleModels[job.Stage]
	m, err := reg.New(name, g.Features.Cols, g.NumClasses, model.Options{K: job.K, PPREps: job.Eps, Seed: job.Seed})
	if err != nil {
		return err
	}
	var pg *model.Graph
	batch := 0
	if _, ok := m.(model.Batched); ok {
		batch = job.BatchSize
		pi, err := readCSR(job.PPRFile)
		if err != nil {
			return fmt.Errorf("%w (the ppr stage writes it)", err)
		}
		if pi.Rows != g.NumNodes() {
			return fmt.Errorf("%s: %d rows for %d nodes", job.PPRFile, pi.Rows, g.NumNodes())
		}
		pg = model.PPRGoGraph(pi)
	} else {
		h.progress("preprocess "+name, 0, 1)
		if pg, err = m.Preprocess(g.Adj, g.Features); err != nil {
			return err
		}
		h.progress("preprocess "+name, 1, 1)
	}
	// The time and CPU time at the end of every epoch.
	var walls []time.Time
	var cpus []time.Duration
	cfg := train.Config{Seed: job.Seed, MaxEpochs: job.Epochs, Patience: job.Epochs, BatchSize: batch,
		Progress: func(epoch int, _, _ float64) {
			c, _ := cputime.Process()
			walls, cpus = append(walls, time.Now()), append(cpus, c)
			h.progress("train "+name, epoch+1, job.Epochs)
		}}
	if batch > 0 {
		steps := (len(p.Train) + batch - 1) / batch * job.Epochs
		done := 0
		cfg.BatchProgress = func(int, int) { done++; h.progress("train "+name+" batches", done, steps) }
	}
	c0, _ := cputime.Process()
	t0 := time.Now()
	res, err := train.Fit(ctx, m, pg, p, cfg)
	if err != nil {
		return err
	}
	row.Epochs, row.BatchSize = res.Epochs, batch
	row.FirstEpochSeconds = walls[0].Sub(t0).Seconds()
	if e := len(walls) - 1; e > 0 { // the epochs after the first
		row.Seconds = walls[e].Sub(walls[0]).Seconds() / float64(e)
		row.CPUSeconds = (cpus[e] - cpus[0]).Seconds() / float64(e)
	} else {
		row.Seconds, row.CPUSeconds = row.FirstEpochSeconds, (cpus[0] - c0).Seconds()
	}
	eval := evalSample(p.Test, job.EvalNodes, job.Seed)
	if bm, ok := m.(model.Batched); ok {
		row.Accuracy = train.BatchAccuracy(bm, pg, p, eval, 4096)
	} else {
		row.Accuracy = train.Accuracy(train.Predict(m, pg, p.X), p.Labels, eval)
	}
	row.Chance = largestShare(p.Labels, eval, g.NumClasses)
	return nil
}

// evalSample returns up to n of the nodes, a seeded sample in ascending
// order.
func evalSample(nodes []int, n int, seed uint64) []int {
	if len(nodes) <= n {
		return nodes
	}
	perm := rand.New(rand.NewPCG(seed, 0x6576616c)).Perm(len(nodes))[:n]
	out := make([]int, n)
	for i, j := range perm {
		out[i] = nodes[j]
	}
	return out
}

// largestShare is the share of nodes in their most frequent class.
func largestShare(labels []int32, nodes []int, classes int) float64 {
	counts := make([]int, classes)
	best := 0
	for _, v := range nodes {
		counts[labels[v]]++
		best = max(best, counts[labels[v]])
	}
	return float64(best) / float64(max(len(nodes), 1))
}

// scalePRBCD trains the stage's victim (a GCN, or a Soft Median GDC with
// the job's push GDC) for the job's epochs, then runs as many epochs (at
// least 2) of PR-BCD against it (ε = 0.1, block 1e6, one final sample);
// the row reports the seconds per attack epoch after the first and the
// victim's test accuracy on the perturbed graph.
func scalePRBCD(ctx context.Context, job ScaleJob, reg *model.Registry, row *ScaleRow, h ScaleHooks) error {
	g, err := scaleLoad(ScaleJob{Stage: StageLoad, File: job.File}, &ScaleRow{})
	if err != nil {
		return err
	}
	row.Edges = int64(g.NumEdges())
	p, err := data.NewProblem(g, int(job.Seed%(1<<32)))
	if err != nil {
		return err
	}
	name := "gcn"
	if job.Stage == StagePRBCDSMGDC {
		name = "softmedian_gdc"
	}
	m, err := reg.New(name, g.Features.Cols, g.NumClasses, model.Options{K: job.K, PPREps: job.Eps, Seed: job.Seed})
	if err != nil {
		return err
	}
	pg, err := m.Preprocess(g.Adj, g.Features)
	if err != nil {
		return err
	}
	cfg := train.Config{Seed: job.Seed, MaxEpochs: job.Epochs, Patience: job.Epochs,
		Progress: func(epoch int, _, _ float64) { h.progress("train "+name, epoch+1, job.Epochs) }}
	if _, err := train.Fit(ctx, m, pg, p, cfg); err != nil {
		return err
	}
	epochs := max(job.Epochs, 2)
	spec := PRBCDSpec{Epsilon: 0.1, Epochs: epochs, Samples: 1, Seed: job.Seed,
		Progress: func(done, total int) { h.progress("prbcd", done, total) }}
	if job.Stage == StagePRBCDSMGDC {
		spec.EnginePPREps = job.EngineEps
	}
	res, err := RunPRBCD(ctx, p, m, spec)
	if err != nil {
		return err
	}
	row.Epochs, row.FirstEpochSeconds = epochs, res.FirstEpochSeconds
	row.Seconds, row.CPUSeconds = res.EpochSeconds, res.EpochCPUSeconds
	row.Accuracy, row.Chance = res.Accuracy, largestShare(p.Labels, p.Test, g.NumClasses)
	row.Note = fmt.Sprintf("ε=0.1: %d flips, %s %.3f → %.3f", res.Flips, name, res.CleanAccuracy, res.Accuracy)
	if spec.EnginePPREps > 0 {
		row.Note += fmt.Sprintf(" (the attack's push eps %g)", spec.EnginePPREps)
	}
	return nil
}
