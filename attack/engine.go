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

// LocalEngine is an Engine that also evaluates the attacked model at one
// target u whose own pairs (u, v) alone change, at a cost that follows the
// changed pairs rather than the graph (engine.PPRGo: u's PPR row updated
// locally, never a whole perturbed adjacency). Local PR-BCD prefers it
// when its engine has it.
type LocalEngine interface {
	Engine
	// EvaluateLocal runs the model at u on the clean graph whose pairs
	// (u, v[c]) have weight w[c] (every other pair as it is): the loss at
	// u with true class label, the accuracy (0 or 1) and u's logits (valid
	// until the next call). With grad (len(v)) it writes ∂loss/∂w[c] into
	// grad[c]. The v must be distinct, other than u, the w in [0, 1].
	EvaluateLocal(u int, label int32, v []int32, w []float32, loss Loss, grad []float32) (LocalEval, error)
}

// LocalEval is what EvaluateLocal returns.
type LocalEval struct {
	Eval
	Logits []float32
}
