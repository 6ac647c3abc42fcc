package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
)

// Graph is a preprocessed graph a model propagates over: the weighted sparse
// operand S and, optionally, differentiable values (attacks set Vals to get
// gradients with respect to edge weights; nil means S's own values).
type Graph struct {
	S    *autograd.Sparse
	Vals *autograd.Var
	// SVD, when set, is a dense graph kept in low-rank form (svd_gcn's
	// D_r(L + I)D_r): S and Vals are nil and the layers propagate with
	// autograd.SymLowRank on SVD.Op, never forming its n² entries.
	SVD *graph.SVDNorm
	// Extra holds model-specific preprocessed operands (e.g. RGCN's second
	// normalisation); nil for most models.
	Extra any
}

// ReferenceNaN says why a model's logits on g are NaN by the reference's
// own arithmetic, "" when they must be finite: svd_gcn's graph with a
// negative row sum of L + I (graph.SVDNorm.NegativeRows), where the
// reference's logits are NaN too and its argmax predicts class 0 for every
// node. Evaluations accept such logits; any other non-finite logit is an
// error.
func (g *Graph) ReferenceNaN() string {
	if g == nil || g.SVD == nil {
		return ""
	}
	if k := g.SVD.NegativeRows(); k > 0 {
		return fmt.Sprintf("the rank-%d SVD graph has %d node(s) with a negative row sum of L + I (NaN scale, as the reference: every node predicted class 0)", g.SVD.L.Rank, k)
	}
	return ""
}

// CheckLogits is z.CheckFinite for the logits of the model name on g,
// naming the reason when g makes them NaN as the reference's are
// (ReferenceNaN). g may be nil (a model outside rgnn).
func (g *Graph) CheckLogits(name string, z *tensor.Dense) error {
	err := z.CheckFinite(name + " logits")
	if err != nil {
		if why := g.ReferenceNaN(); why != "" {
			return fmt.Errorf("%w: %s", err, why)
		}
	}
	return err
}

// Mode selects training behaviour (dropout on) and seeds its randomness.
type Mode struct {
	Train bool
	Seed  uint64
}

// Model is a node classifier on a graph.
type Model interface {
	// Name is the registry name.
	Name() string
	// Params lists the trainable parameters in a fixed order.
	Params() []*autograd.Param
	// Preprocess turns a raw adjacency (symmetric, unweighted, no self
	// loops) and the node features into the graph the layers use. Deterministic; may be cached by
	// the caller per adjacency.
	Preprocess(adj, x *tensor.CSR) (*Graph, error)
	// Forward returns the n×C logits (or log-probabilities) for all nodes.
	Forward(tp *autograd.Tape, g *Graph, x *autograd.Sparse, mode Mode) *autograd.Var
}

// DefaultHidden is the reference's number of hidden units.
const DefaultHidden = 64

// Options configure a model; zero values mean the reference defaults.
type Options struct {
	Hidden        int     // hidden units (DefaultHidden)
	Dropout       float64 // dropout probability (0.5)
	Temperature   float64 // Soft Medoid temperature (0: the aggregation's default, aggregate.DefaultTemperature)
	K             int     // top-k for robust aggregations and GDC (graph.DefaultK)
	Alpha         float64 // PPR teleport probability (graph.DefaultAlpha)
	Normalization string  // "" or "alt" (SM† variant)
	PPREps        float64 // GDC: 0 = exact PPR, > 0 = push approximation with this error
	Seed          uint64  // initialisation seed
	// Cache, if set, memoises preprocessing (GDC, svd_gcn's SVD) across models and calls
	// with the same graph; perturbed graphs are computed afresh.
	Cache *graph.PrepCache `json:"-"`
}

func (o Options) withDefaults() Options {
	if o.Hidden == 0 {
		o.Hidden = DefaultHidden
	}
	if o.Dropout == 0 {
		o.Dropout = 0.5
	}
	if o.K == 0 {
		o.K = graph.DefaultK
	}
	if o.Alpha == 0 {
		o.Alpha = graph.DefaultAlpha
	}
	return o
}

func (o Options) validate() error {
	switch {
	case o.Hidden < 1:
		return fmt.Errorf("hidden units must be ≥ 1, got %d", o.Hidden)
	case !(o.Dropout >= 0 && o.Dropout < 1):
		return fmt.Errorf("dropout must be in [0, 1), got %v", o.Dropout)
	case o.K < 1:
		return fmt.Errorf("k must be ≥ 1, got %d", o.K)
	case !(o.Alpha > 0 && o.Alpha < 1):
		return fmt.Errorf("alpha must be in (0, 1), got %v", o.Alpha)
	case !(o.PPREps >= 0) || math.IsInf(o.PPREps, 0):
		return fmt.Errorf("ppr eps must be finite and ≥ 0, got %v", o.PPREps)
	case o.Normalization != "" && o.Normalization != "alt":
		return fmt.Errorf("normalization must be empty or \"alt\", got %q", o.Normalization)
	}
	return nil
}

// Constructor builds a model for nFeat input features and nClass classes.
type Constructor func(nFeat, nClass int, o Options) (Model, error)

// Spec describes a registered model: how to build it and the facts about
// it that the rest of rgnn reads instead of testing its name (which options
// it takes, whether attacks can differentiate it, how tables name and order
// it). A new model is one file with its Spec; nothing else changes.
type Spec struct {
	Name        string
	Description string
	New         Constructor
	// Label is the model's name in tables ("Soft Medoid GDC"), Order its
	// row in the paper's tables (ascending).
	Label string
	Order int
	// Uses says which Options the model reads besides Hidden and Seed; the
	// others are ignored for it (and not validated or keyed).
	Uses Uses
	// Differentiable: a direct (adaptive) attack can take gradients through
	// the model's preprocessing and layers with respect to the edges.
	Differentiable bool
	// GDCVariant names the model that is this one on the GDC graph (gcn:
	// gdc, sm_gcn: sm_gdc); empty for models with diffusion of their own or
	// none (they run on GDC's sparsity pattern in the runtime table).
	GDCVariant string
	// Row is the architecture row of the runtime table the model belongs to
	// (gdc: gcn; empty: its own name).
	Row string
	// MiniBatch: the model implements Batched and can train in mini-batches
	// of target nodes (train.Config.BatchSize).
	MiniBatch bool
	// External: the model runs outside rgnn, in a process rgnn talks to
	// (package bridge), and implements Outside. It has no parameters here:
	// rgnn neither trains it (the process may fit itself), nor saves or
	// loads its weights, nor differentiates it (attacks on it transfer from
	// a surrogate). Its New fails: front ends start it (package task).
	External bool
}

// Uses lists the Options a model reads.
type Uses struct {
	Temperature   bool // the Soft Medoid / Soft Median temperature
	K             bool // the top-k of a robust aggregation or of GDC
	Normalization bool // the Soft Medoid's normalisation variant
	Diffusion     bool // GDC preprocessing: Alpha, K and PPREps
	External      bool // the command of an external model (task.Model.ExternalCmd)
}

// Outside is a model whose logits come from outside rgnn's tape (an
// external process, package bridge). Evaluation calls Logits, which can
// fail (the process crashed, timed out or answered nonsense); its Forward
// returns NaN logits after a failure, so a caller that does not know
// Outside fails the finiteness check instead of using them.
type Outside interface {
	Model
	Logits(adj, x *tensor.CSR) (*tensor.Dense, error)
}

// Specs lists every registered model in table order.
func (r *Registry) Specs() []Spec {
	out := make([]Spec, 0, len(r.specs))
	for _, s := range r.specs {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Order != out[j].Order {
			return out[i].Order < out[j].Order
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Registry maps names to model constructors. The zero value is empty;
// Default returns the registry with every built-in model.
type Registry struct{ specs map[string]Spec }

// Register adds a model; it fails on a duplicate name.
func (r *Registry) Register(s Spec) error {
	if r.specs == nil {
		r.specs = map[string]Spec{}
	}
	if _, dup := r.specs[s.Name]; dup {
		return fmt.Errorf("model %q registered twice", s.Name)
	}
	r.specs[s.Name] = s
	return nil
}

// Names lists the registered models in sorted order.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.specs))
	for n := range r.specs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup returns the spec of a model.
func (r *Registry) Lookup(name string) (Spec, bool) {
	s, ok := r.specs[name]
	return s, ok
}

// New builds the named model.
func (r *Registry) New(name string, nFeat, nClass int, o Options) (Model, error) {
	s, ok := r.specs[name]
	if !ok {
		return nil, fmt.Errorf("unknown model %q (known: %v)", name, r.Names())
	}
	if nFeat < 1 || nClass < 2 {
		return nil, fmt.Errorf("model %s: need ≥ 1 feature and ≥ 2 classes, got %d and %d", name, nFeat, nClass)
	}
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("model %s: %w", name, err)
	}
	return s.New(nFeat, nClass, o)
}

// Default returns a registry holding every built-in model; robust models get
// their aggregations from f (nil: they are listed with their facts, but
// building one is an error).
func Default(f AggregatorFactory) *Registry {
	r := &Registry{}
	specs := slices.Concat(builtins(), robustSpecs(f), pprgoSpecs(f), externalSpecs())
	for _, s := range specs {
		if err := r.Register(s); err != nil {
			panic(err) // programmer error: duplicate built-in name
		}
	}
	return r
}

// builtins lists the built-in models; each model file contributes its specs.
func builtins() []Spec {
	return slices.Concat(gcnSpecs(), appnpSpecs(), gatSpecs(), rgcnSpecs())
}

// glorot returns a rows×cols matrix with Glorot-uniform entries,
// U(±√(6 / (rows + cols))).
func glorot(rng *rand.Rand, rows, cols int) *tensor.Dense {
	return uniformInit(rng, rows, cols, math.Sqrt(6/float64(rows+cols)))
}

// uniformInit returns a rows×cols matrix with entries drawn from U(−a, a),
// one rng.Float64 per entry in row-major order.
func uniformInit(rng *rand.Rand, rows, cols int, a float64) *tensor.Dense {
	d := tensor.NewDense(rows, cols)
	for i := range d.Data {
		d.Data[i] = float32((2*rng.Float64() - 1) * a)
	}
	return d
}

// newRNG returns the initialisation RNG for a seed.
func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

// TrainingHints let a model depart from the reference training protocol.
type TrainingHints struct {
	NoWeightDecay bool // train without L2 weight decay
	KeepFinal     bool // keep the final weights instead of the best validation epoch's
}

// Hinted is implemented by models with their own training protocol.
type Hinted interface {
	TrainingHints() TrainingHints
}

// Regularized is implemented by models whose loss has an extra term; it is
// called after Forward on the same tape and added to the training loss.
type Regularized interface {
	Penalty(tp *autograd.Tape) *autograd.Var
}
