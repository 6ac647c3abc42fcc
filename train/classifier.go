package train

import (
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

// Classifier classifies many graphs on the same nodes with one model, as
// randomized smoothing does (every sample perturbs the edges, rarely the
// features): for models with a graph-independent feature stage
// (model.FeatureStaged) that stage is computed once for the features given
// to NewClassifier, and the buffers of the forward pass are reused from
// call to call. Its predictions equal Classify's bit for bit. The model's
// weights must not change while the Classifier is in use; a Classifier is
// not safe for concurrent use (give every goroutine its own, with its own
// model).
type Classifier struct {
	m      model.Model
	feats  *tensor.CSR
	x      *autograd.Sparse
	staged model.FeatureStaged
	h      *tensor.Dense // the feature stage on feats (staged models)
	tape   *autograd.Tape
	pred   []int32
}

// NewClassifier returns a Classifier of m for graphs with the features feats
// (x is feats as a sparse operand; nil builds it).
func NewClassifier(m model.Model, feats *tensor.CSR, x *autograd.Sparse) *Classifier {
	if x == nil {
		x = autograd.NewSparse(feats)
	}
	c := &Classifier{m: m, feats: feats, x: x, tape: autograd.NoGrad()}
	if s, ok := m.(model.FeatureStaged); ok {
		c.staged, c.h = s, s.FeatureStage(x)
	}
	return c
}

// Classify preprocesses adj with the model's own preprocessing and returns
// every node's argmax class, like the function Classify. Features other
// than the Classifier's (perturbed attributes) run the whole forward pass.
// The returned slice is reused by the next call.
func (c *Classifier) Classify(adj, feats *tensor.CSR) ([]int32, error) {
	if o, ok := c.m.(model.Outside); ok {
		logits, err := o.Logits(adj, feats)
		if err != nil {
			return nil, err
		}
		c.pred = argmaxRows(c.pred, logits)
		return c.pred, nil
	}
	g, err := c.m.Preprocess(adj, feats)
	if err != nil {
		return nil, err
	}
	c.tape.Reset()
	var logits *tensor.Dense
	switch {
	case feats == c.feats && c.staged != nil:
		logits = c.staged.ForwardStaged(c.tape, g, c.h).Value
	case feats == c.feats:
		logits = c.m.Forward(c.tape, g, c.x, model.Mode{}).Value
	default:
		logits = c.m.Forward(c.tape, g, autograd.NewSparse(feats), model.Mode{}).Value
	}
	c.pred = argmaxRows(c.pred, logits)
	return c.pred, nil
}

// argmaxRows writes every row's argmax into dst (resized) and returns it.
func argmaxRows(dst []int32, logits *tensor.Dense) []int32 {
	if cap(dst) < logits.Rows {
		dst = make([]int32, logits.Rows)
	}
	dst = dst[:logits.Rows]
	for i := range dst {
		dst[i] = int32(logits.ArgmaxRow(i))
	}
	return dst
}
