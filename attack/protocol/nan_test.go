package protocol

import (
	"math"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/attack/internal/attacktest"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/linalg"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

// svdGraphOf is svd_gcn with its preprocessing replaced by a fixed
// low-rank graph l (or, with l nil, by a CSR graph with a NaN weight).
type svdGraphOf struct {
	model.Model
	l *linalg.LowRank
}

func (m svdGraphOf) Preprocess(adj, x *tensor.CSR) (*model.Graph, error) {
	if m.l == nil {
		g, err := m.Model.Preprocess(adj, x)
		if err != nil {
			return nil, err
		}
		c := g.SVD.Op
		c.Diag[0] = math.NaN() // a NaN no reference arithmetic makes
		return g, nil
	}
	s, err := graph.NewSVDNorm(m.l)
	if err != nil {
		return nil, err
	}
	return &model.Graph{SVD: s}, nil
}

// TestEvaluateReferenceNaN: svd_gcn on a graph whose truncated SVD has a
// negative row sum of L + I has NaN logits, as the reference has; Evaluate
// gives the reference's accuracy (every node class 0) and says why, while
// any other NaN logit stays an error.
func TestEvaluateReferenceNaN(t *testing.T) {
	p := attacktest.SmallProblem(t, 80, 5) // rank 50 needs n > 50
	base := attacktest.MustModel(t, "svd_gcn", p)
	n := p.Adj.Rows
	// L = −3·v vᵀ with v = 1/√n: every row of L + I sums to 1 − 3 < 0.
	vec := make([]float64, n)
	for i := range vec {
		vec[i] = 1 / math.Sqrt(float64(n))
	}
	m := svdGraphOf{Model: base, l: &linalg.LowRank{N: n, Rank: 1, Values: []float64{-3}, Vectors: vec}}
	ev, err := Evaluate(m, p, p.Adj)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ev.NaN, "negative row sum") {
		t.Errorf("Evaluation.NaN = %q, want the negative row sum named", ev.NaN)
	}
	class0 := 0
	for _, i := range p.Test {
		if p.Labels[i] == 0 {
			class0++
		}
	}
	if want := float64(class0) / float64(len(p.Test)); ev.Accuracy != want {
		t.Errorf("accuracy %v, want the share of class 0 among the test nodes %v", ev.Accuracy, want)
	}
	// Margins have no reference value on such a graph: an error saying why.
	if _, err := victimMargins(m, p, p.Adj); err == nil || !strings.Contains(err.Error(), "negative row sum") {
		t.Errorf("margins on a NaN graph: error %v, want one naming the negative row sum", err)
	}
	// A finite graph: no note.
	if ev, err := Evaluate(base, p, p.Adj); err != nil || ev.NaN != "" {
		t.Errorf("svd_gcn on its own graph: %+v, %v", ev, err)
	}
	// A NaN the graph does not explain: an error naming the logits.
	if _, err := Evaluate(svdGraphOf{Model: base}, p, p.Adj); err == nil || !strings.Contains(err.Error(), "svd_gcn logits") {
		t.Errorf("a stray NaN: error %v, want one naming svd_gcn's logits", err)
	}
}
