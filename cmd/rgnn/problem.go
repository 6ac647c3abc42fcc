package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/aggregate"
	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/tensor"
)

// problem is a loaded dataset with its split.
type problem struct {
	Graph            *data.Graph
	X                *autograd.Sparse
	Train, Val, Test []int
	SplitSeed        int
}

// dp is the problem as the library's problem type.
func (p *problem) dp() *data.Problem {
	g := p.Graph
	return &data.Problem{Name: g.Name, Adj: g.Adj, Features: g.Features, X: p.X, Labels: g.Labels,
		NumClasses: g.NumClasses, Train: p.Train, Val: p.Val, Test: p.Test, SplitSeed: p.SplitSeed, Source: g}
}

func addProblemFlags(c *cobra.Command) {
	c.Flags().String("dataset", "cora_ml", "dataset: "+strings.Join(data.Names(), ", "))
	c.Flags().Int("split-seed", -1, "seed of the 20/20-per-class split (default: --seed, else 0)")
	c.Flags().Bool("binary-attr", false, "binarise the features (every nonzero becomes 1)")
}

func addModelFlags(c *cobra.Command) {
	c.Flags().String("model", "gcn", "model: "+strings.Join(modelRegistry().Names(), ", "))
	c.Flags().Float64("temperature", 1.0, "Soft Medoid / Soft Median temperature T")
	c.Flags().Int("k", 64, "top-k neighbours of the robust aggregations and of GDC")
	c.Flags().Int("hidden", 64, "hidden units")
	c.Flags().String("normalization", "", `Soft Medoid normalisation: "" (Eq. 6-7) or "alt" (the appendix's SM†)`)
	c.Flags().Float64("ppr-eps", 0, "GDC: 0 = exact PPR, > 0 = push approximation with this error")
}

// modelRegistry returns the registry with every model, robust ones wired
// to package aggregate.
func modelRegistry() *model.Registry {
	return model.Default(aggregateFactory)
}

// aggregateFactory adapts package aggregate to the model registry.
func aggregateFactory(name string, o model.Options) (autograd.Aggregator, error) {
	return aggregate.ForModel(name, o.K, o.Temperature, o.Normalization)
}

// loadProblem loads --dataset and its split (--split-seed, default seed).
func loadProblem(c *cobra.Command, seed int) (*problem, error) {
	name, _ := c.Flags().GetString("dataset")
	bin, _ := c.Flags().GetBool("binary-attr")
	splitSeed, _ := c.Flags().GetInt("split-seed")
	if splitSeed < 0 {
		splitSeed = seed
	}
	if _, err := data.Lookup(name); err != nil {
		return nil, usageError{err}
	}
	g, err := data.Load(context.Background(), name, data.Options{Dir: dataDir(c), BinaryAttr: bin,
		Fetch: data.FetchOptions{Progress: progressWriter()}})
	if err != nil {
		return nil, err
	}
	tr, va, te, err := data.Split(g.Labels, g.NumClasses, 20, uint32(splitSeed))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &problem{Graph: g, X: autograd.NewSparse(g.Features), Train: tr, Val: va, Test: te, SplitSeed: splitSeed}, nil
}

// newModel builds --model for the problem.
func newModel(c *cobra.Command, p *problem, seed uint64) (model.Model, error) {
	name, _ := c.Flags().GetString("model")
	o := model.Options{Seed: seed}
	o.Temperature, _ = c.Flags().GetFloat64("temperature")
	o.K, _ = c.Flags().GetInt("k")
	o.Hidden, _ = c.Flags().GetInt("hidden")
	o.Normalization, _ = c.Flags().GetString("normalization")
	o.PPREps, _ = c.Flags().GetFloat64("ppr-eps")
	// Zero option values mean "reference default" in the library; on the
	// command line an explicit zero is a mistake.
	if !(o.Temperature > 0) || o.K < 1 || o.Hidden < 1 || o.PPREps < 0 {
		return nil, usagef("--temperature must be > 0, --k and --hidden ≥ 1, --ppr-eps ≥ 0 (got %v, %d, %d, %v)",
			o.Temperature, o.K, o.Hidden, o.PPREps)
	}
	reg := modelRegistry()
	if _, ok := reg.Lookup(name); !ok {
		return nil, usagef("unknown model %q (known: %s)", name, strings.Join(reg.Names(), ", "))
	}
	m, err := reg.New(name, p.Graph.Features.Cols, p.Graph.NumClasses, o)
	if err != nil {
		return nil, usageError{err}
	}
	return m, nil
}

func loadWeights(m model.Model, path string) error { return model.LoadWeights(m, path) }
func saveWeights(m model.Model, path string) error { return model.SaveWeights(m, path) }

func loadPerturbed(path string, n int) (*tensor.CSR, error) { return data.LoadPerturbedAdj(path, n) }

// graphChoice is the graph a command runs on (graphFlag).
type graphChoice struct {
	Adj          *tensor.CSR
	Path         string // --graph; "" for the clean graph
	FeatureFlips int    // feature flips applied from the file
}

// graphFlag returns the graph to use: the perturbed graph named by the
// command's --graph flag, or p's clean graph when it is empty. When the
// file also holds feature flips (feature_flips, k×2: node, feature; saved
// by 'rgnn attack --perturb features|both'), they are validated and
// applied: p's features (Graph.Features and X) are replaced by the flipped
// ones. Flips toggle binary features, so p's features must be binary
// (--binary-attr).
func graphFlag(c *cobra.Command, p *problem) (graphChoice, error) {
	path, _ := c.Flags().GetString("graph")
	if path == "" {
		return graphChoice{Adj: p.Graph.Adj}, nil
	}
	adj, err := loadPerturbed(path, p.Graph.Adj.Rows)
	if err != nil {
		return graphChoice{}, err
	}
	ff, err := loadFeatureFlips(path, p.Graph.Features.Rows, p.Graph.Features.Cols)
	if err != nil {
		return graphChoice{}, err
	}
	if len(ff) == 0 {
		return graphChoice{Adj: adj, Path: path}, nil
	}
	if !binaryFeatures(p.Graph.Features) {
		return graphChoice{}, usagef("--graph %s holds %d feature flips, which toggle binary features, but the %s "+
			"features are not binary: give --binary-attr", path, len(ff), p.Graph.Name)
	}
	x, err := attack.ApplyFeatureFlips(p.Graph.Features, ff)
	if err != nil {
		return graphChoice{}, fmt.Errorf("%s: %w", path, err)
	}
	g := *p.Graph
	g.Features = x
	p.Graph, p.X = &g, autograd.NewSparse(x)
	return graphChoice{Adj: adj, Path: path, FeatureFlips: len(ff)}, nil
}

// graphLabel names a --graph in text output: its path, and the feature flips
// applied from it.
func graphLabel(gc graphChoice) string {
	if gc.FeatureFlips > 0 {
		return fmt.Sprintf("%s, %d feature flips", gc.Path, gc.FeatureFlips)
	}
	return gc.Path
}

// loadFeatureFlips reads the feature_flips array (k×2 int64: node, feature)
// of a perturbed-graph file for an n×d feature matrix, nil when the file
// has none. The flips are checked: in range, none repeated.
func loadFeatureFlips(path string, n, d int) ([]attack.FeatureFlip, error) {
	a, err := npz.Open(path)
	if err != nil {
		return nil, err
	}
	if !a.Has("feature_flips") {
		return nil, nil
	}
	v, shape, err := a.Int64("feature_flips")
	if err != nil {
		return nil, err
	}
	if len(shape) != 2 || shape[1] != 2 {
		return nil, fmt.Errorf("%s: feature_flips has shape %v, want [k, 2] (node, feature)", path, shape)
	}
	ff := make([]attack.FeatureFlip, shape[0])
	for i := range ff {
		u, f := v[2*i], v[2*i+1]
		if u < 0 || u >= int64(n) || f < 0 || f >= int64(d) {
			return nil, fmt.Errorf("%s: feature flip %d (%d, %d) outside the %d×%d features", path, i, u, f, n, d)
		}
		ff[i] = attack.FeatureFlip{Node: int32(u), Feature: int32(f)}
	}
	if err := attack.CheckFeatureFlips(ff, n, d, -1); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ff, nil
}

// binaryFeatures reports whether every stored feature is 1.
func binaryFeatures(x *tensor.CSR) bool {
	for _, v := range x.Values {
		if v != 1 {
			return false
		}
	}
	return true
}
