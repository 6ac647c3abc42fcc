package data

import (
	"fmt"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/tensor"
)

// Problem is a node-classification problem: a graph, its features and
// labels, and a split into training, validation and test nodes. It is the
// one input type of training, evaluation, attacks and certificates.
//
// A Problem is read-only once built; the With* methods return modified
// copies (a perturbed graph, flipped features) that share the rest.
type Problem struct {
	Name       string
	Adj        *tensor.CSR // n×n, symmetric, unweighted, no self loops
	Features   *tensor.CSR // n×d
	X          *autograd.Sparse
	Labels     []int32
	NumClasses int
	Train, Val []int
	// Test holds the evaluation nodes (and the targets of attacks).
	Test []int
	// SplitSeed is the seed the split was drawn with.
	SplitSeed int
	// Source is the loaded dataset (nil for a problem built by hand).
	Source *Graph
}

// NewProblem returns g with the split of splitSeed (SplitFor: the
// dataset's fixed split, else 20 training and 20 validation nodes per class
// drawn like the reference with numpy's legacy RandomState, the rest test
// nodes).
func NewProblem(g *Graph, splitSeed int) (*Problem, error) {
	if g == nil || g.Adj == nil || g.Features == nil {
		return nil, fmt.Errorf("data: problem without a graph")
	}
	if splitSeed < 0 || int64(splitSeed) > 1<<32-1 {
		return nil, fmt.Errorf("%s: split seed %d outside [0, 2³²)", g.Name, splitSeed)
	}
	tr, va, te, err := SplitFor(g, uint32(splitSeed))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", g.Name, err)
	}
	return &Problem{Name: g.Name, Adj: g.Adj, Features: g.Features, X: autograd.NewSparse(g.Features),
		Labels: g.Labels, NumClasses: g.NumClasses, Train: tr, Val: va, Test: te, SplitSeed: splitSeed, Source: g}, nil
}

// Validate checks the shapes and fills X when it is nil.
func (p *Problem) Validate() error {
	switch {
	case p == nil || p.Adj == nil || p.Features == nil:
		return fmt.Errorf("problem without adjacency or features")
	case p.Adj.Rows != p.Adj.Cols:
		return fmt.Errorf("%s: adjacency is %d×%d, want square", p.Name, p.Adj.Rows, p.Adj.Cols)
	case p.Features.Rows != p.Adj.Rows || len(p.Labels) != p.Adj.Rows:
		return fmt.Errorf("%s: %d nodes but %d feature rows and %d labels", p.Name, p.Adj.Rows, p.Features.Rows, len(p.Labels))
	case len(p.Test) == 0:
		return fmt.Errorf("%s: no test nodes", p.Name)
	}
	if p.X == nil {
		p.X = autograd.NewSparse(p.Features)
	}
	return nil
}

// NumNodes returns n.
func (p *Problem) NumNodes() int { return p.Adj.Rows }

// WithAdj returns a copy of p on another adjacency (a perturbed graph).
func (p *Problem) WithAdj(adj *tensor.CSR) *Problem {
	q := *p
	q.Adj = adj
	return &q
}

// WithFeatures returns a copy of p with other features (e.g. after feature
// flips).
func (p *Problem) WithFeatures(x *tensor.CSR) *Problem {
	q := *p
	q.Features, q.X = x, autograd.NewSparse(x)
	return &q
}
