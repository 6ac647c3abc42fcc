package task

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/rgnn/rgnn/aggregate"
	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

// Models returns the model registry with every model; the robust ones get
// their aggregations from package aggregate. It is the one place where the
// two are wired together.
func Models() *model.Registry { return model.Default(aggregation) }

func aggregation(name string, o model.Options) (autograd.Aggregator, error) {
	return aggregate.ForModel(name, o.K, o.Temperature, o.Normalization)
}

// Loader loads datasets, each (name, binarisation) once per Loader, and
// hands out problems that share the loaded graph. It is safe for
// concurrent use.
type Loader struct {
	// Dir is the dataset directory; "" looks in $RGNN_DATA_DIR, else the
	// user cache dir.
	Dir string
	// Progress receives download progress (nil: none).
	Progress io.Writer
	// Report receives one line per dataset loaded whose standardisation
	// changed the file's graph (data.Graph.Changes; nil: none).
	Report io.Writer

	mu     sync.Mutex
	graphs map[string]*loaded
}

type loaded struct {
	once sync.Once
	g    *data.Graph
	x    *autograd.Sparse
	err  error
}

// Problem returns the dataset d with the split of splitSeed.
func (l *Loader) Problem(ctx context.Context, d Data, splitSeed int) (*data.Problem, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if err := validSeed("split_seed", splitSeed); err != nil {
		return nil, err
	}
	e, err := l.graph(ctx, d)
	if err != nil {
		return nil, err
	}
	tr, va, te, err := data.SplitFor(e.g, uint32(splitSeed))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.g.Name, err)
	}
	g := e.g
	return &data.Problem{Name: g.Name, Adj: g.Adj, Features: g.Features, X: e.x, Labels: g.Labels,
		NumClasses: g.NumClasses, Train: tr, Val: va, Test: te, SplitSeed: splitSeed, Source: g}, nil
}

func (l *Loader) graph(ctx context.Context, d Data) (*loaded, error) {
	name := d.Dataset
	if !data.IsPath(name) {
		if _, err := data.Lookup(name); err != nil {
			return nil, bad("dataset", name, "unknown dataset (known: %s; or the path of a dataset .npz)",
				strings.Join(data.Names(), ", "))
		}
	}
	key := fmt.Sprintf("%s|%v", name, d.BinaryAttr)
	l.mu.Lock()
	if l.graphs == nil {
		l.graphs = map[string]*loaded{}
	}
	e, ok := l.graphs[key]
	if !ok {
		e = &loaded{}
		l.graphs[key] = e
	}
	l.mu.Unlock()
	e.once.Do(func() {
		e.g, e.err = data.LoadDataset(ctx, name, data.Options{Dir: l.Dir, BinaryAttr: d.BinaryAttr,
			Fetch: data.FetchOptions{Progress: l.Progress}})
		if e.err == nil {
			e.x = autograd.NewSparse(e.g.Features)
			if l.Report != nil && e.g.Changes.Any() {
				fmt.Fprintf(l.Report, "%s: standardised: %s\n", e.g.Name, e.g.Changes)
			}
		}
	})
	return e, e.err
}

// Graph is the graph a task runs on: the clean one, or a perturbed
// adjacency read from a file (with the feature flips it holds applied).
type Graph struct {
	Problem      *data.Problem
	Path         string // "" for the clean graph
	FeatureFlips int    // feature flips applied from the file
}

// Label names the graph in text output.
func (g Graph) Label() string {
	switch {
	case g.Path == "":
		return "clean graph"
	case g.FeatureFlips > 0:
		return fmt.Sprintf("%s, %d feature flips", g.Path, g.FeatureFlips)
	}
	return g.Path
}

// OnGraph returns p on the perturbed graph in path ("": p itself). When the
// file also holds feature flips (feature_flips, k×2: node, feature; saved by
// targeted attacks that flip features) they are validated and applied;
// flips toggle binary features, so p's features must be binary.
func OnGraph(p *data.Problem, path string) (Graph, error) {
	if path == "" {
		return Graph{Problem: p}, nil
	}
	adj, err := data.LoadPerturbedGraph(path, p.Adj)
	if err != nil {
		return Graph{}, err
	}
	q := p.WithAdj(adj)
	ff, err := data.LoadFeatureFlips(path, p.Features.Rows, p.Features.Cols)
	if err != nil {
		return Graph{}, err
	}
	if len(ff) == 0 {
		return Graph{Problem: q, Path: path}, nil
	}
	if !binary(p.Features) {
		return Graph{}, bad("graph", path, "holds %d feature flips, which toggle binary features, but the %s features "+
			"are not binary: set binary_attr (--binary-attr)", len(ff), p.Name)
	}
	flips := make([]attack.FeatureFlip, len(ff))
	for i, f := range ff {
		flips[i] = attack.FeatureFlip(f)
	}
	x, err := attack.ApplyFeatureFlips(p.Features, flips)
	if err != nil {
		return Graph{}, fmt.Errorf("%s: %w", path, err)
	}
	return Graph{Problem: q.WithFeatures(x), Path: path, FeatureFlips: len(ff)}, nil
}

// binary reports whether every stored feature is 1.
func binary(x *tensor.CSR) bool {
	for _, v := range x.Values {
		if v != 1 {
			return false
		}
	}
	return true
}

// Problem is the one problem type of every pipeline (data.Problem).
type Problem = data.Problem
