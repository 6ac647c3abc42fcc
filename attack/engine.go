package attack

import "github.com/rgnn/rgnn/tensor"

// Eval is the attacked model's loss and target accuracy on a graph.
type Eval struct {
	Loss     float64
	Accuracy float64
}

// Engine evaluates the attacked model on a weighted symmetric adjacency and
// differentiates the attack loss with respect to undirected pair weights.
type Engine interface {
	// Evaluate runs the model on w (symmetric, no self loops, weights in
	// [0, 1]); with grad it prepares PairGrad for this graph.
	Evaluate(w *tensor.CSR, loss Loss, targets []int, labels []int32, grad bool) (Eval, error)
	// PairGrad writes out[i] = ∂loss/∂w_{u,v} for pairs[i] = {u, v} (the
	// weight of both directions moves together).
	PairGrad(pairs []Flip, out []float32) error
	// AnyPair reports whether PairGrad works for pairs absent from w's
	// structure; otherwise the candidates must be stored in w.
	AnyPair() bool
}

// DenseEngine can also produce the gradient for all pairs.
type DenseEngine interface {
	Engine
	// ScanPairs calls fn(u, s) for every row u with s[j] = ∂loss/∂w_{u,
	// u+1+j}. Calls run concurrently for different rows; s is reused after
	// fn returns.
	ScanPairs(fn func(u int, s []float32))
}
