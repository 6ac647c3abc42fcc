package bridge

import (
	"context"
	"math"
	"sync"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

// Model is a Client as a model.Model (model.Outside): Preprocess keeps the
// graph, Logits (and Forward) have the process predict it. It has no
// parameters.
type Model struct {
	C *Client

	mu  sync.Mutex
	err error // the first failure of Forward
}

var _ model.Outside = (*Model)(nil)

// NewModel adapts c.
func NewModel(c *Client) *Model { return &Model{C: c} }

// Name is the registry name, "external".
func (m *Model) Name() string { return "external" }

// Params is empty: the weights live in the process.
func (m *Model) Params() []*autograd.Param { return nil }

// prepared is the graph a Forward runs on.
type prepared struct{ adj, x *tensor.CSR }

// Preprocess keeps adj and x for Forward (the process does its own
// preprocessing).
func (m *Model) Preprocess(adj, x *tensor.CSR) (*model.Graph, error) {
	return &model.Graph{Extra: prepared{adj, x}}, nil
}

// Forward has the process predict the graph; after a failure (see Err) the
// logits are NaN.
func (m *Model) Forward(tp *autograd.Tape, g *model.Graph, _ *autograd.Sparse, _ model.Mode) *autograd.Var {
	p, _ := g.Extra.(prepared)
	var out *tensor.Dense
	if p.adj != nil {
		var err error
		if out, err = m.Logits(p.adj, p.x); err != nil {
			m.mu.Lock()
			if m.err == nil {
				m.err = err
			}
			m.mu.Unlock()
		}
	}
	if out == nil {
		n := m.C.opts.Nodes
		out = tensor.NewDense(n, m.C.opts.Classes)
		for i := range out.Data {
			out.Data[i] = float32(math.NaN())
		}
	}
	return tp.Const(out)
}

// Err is the first error of Forward (nil if none).
func (m *Model) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// Logits has the process predict every node of the graph adj with features
// x. A model that sends classes gets one-hot logits.
func (m *Model) Logits(adj, x *tensor.CSR) (*tensor.Dense, error) {
	p, err := m.C.Predict(context.Background(), []Graph{{Adj: adj, Features: x}})
	if err != nil {
		return nil, err
	}
	return p[0].dense(m.C.opts.Classes), nil
}

// dense returns the logits, or one-hot rows of the classes.
func (p Prediction) dense(classes int) *tensor.Dense {
	if p.Logits != nil {
		return p.Logits
	}
	d := tensor.NewDense(len(p.Classes), classes)
	for i, c := range p.Classes {
		d.Data[i*classes+int(c)] = 1
	}
	return d
}

// Close ends the process (Client.Close).
func (m *Model) Close() error { return m.C.Close() }
