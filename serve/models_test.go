package serve

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/linalg"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/task"
	"github.com/rgnn/rgnn/tensor"
)

// negativeSVD is svd_gcn whose graph is a rank-1 L with every row sum of
// L + I negative: its logits are NaN, as the reference's would be.
type negativeSVD struct{ model.Model }

func (m negativeSVD) Preprocess(adj, _ *tensor.CSR) (*model.Graph, error) {
	n := adj.Rows
	v := make([]float64, n)
	for i := range v {
		v[i] = 1 / math.Sqrt(float64(n))
	}
	s, err := graph.NewSVDNorm(&linalg.LowRank{N: n, Rank: 1, Values: []float64{-3}, Vectors: v})
	if err != nil {
		return nil, err
	}
	return &model.Graph{SVD: s}, nil
}

// TestEngineRefusesNaNLogits: a version whose logits are not finite is not
// turned into a table (JSON carries no NaN; the server keeps the previous
// version), and the error says why when the graph explains it.
func TestEngineRefusesNaNLogits(t *testing.T) {
	p, err := data.LoadFile(filepath.Join(os.Getenv("RGNN_DATA_DIR"), "cora_ml.npz"), false)
	if err != nil {
		t.Skip(err)
	}
	m, err := task.Models().New("svd_gcn", p.Features.Cols, p.NumClasses, model.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	st := &graphState{adj: p.Adj, feats: p.Features}
	if _, err := newEngine(m, 0, nil).init(st); err != nil {
		t.Fatalf("svd_gcn on its own graph: %v", err)
	}
	_, err = newEngine(negativeSVD{m}, 0, nil).init(st)
	if err == nil || !strings.Contains(err.Error(), "negative row sum") {
		t.Fatalf("NaN logits: error %v, want one naming the negative row sum", err)
	}
}

// TestEngineServesEveryModel: every registered model (random weights)
// but the external one gets a logits table from the engine on cora_ml and
// after an edge update,
// without a panic (svd_gcn's low-rank graph has no sparse operand).
func TestEngineServesEveryModel(t *testing.T) {
	if testing.Short() {
		t.Skip("every model on cora_ml")
	}
	p, err := data.LoadFile(filepath.Join(os.Getenv("RGNN_DATA_DIR"), "cora_ml.npz"), false)
	if err != nil {
		t.Skip(err)
	}
	for _, name := range task.Models().Names() {
		t.Run(name, func(t *testing.T) {
			if name == "external" {
				t.Skip("a model in its own process (package bridge)")
			}
			e, _ := testEngine(t, name, p, model.Options{Seed: 1})
			st := &graphState{adj: p.Adj, feats: p.Features}
			tab, err := e.init(st)
			if err != nil {
				t.Fatal(err)
			}
			b := newBuilder(st)
			if err := b.edge(5, 900, !hasEdge(st.adj, 5, 900), "e"); err != nil {
				t.Fatal(err)
			}
			next, lazy, _, err := e.update(tab, b.build(1), b.changed())
			if err != nil {
				t.Fatal(err)
			}
			if next == nil && lazy == nil {
				t.Fatal("no logits after the update")
			}
		})
	}
}
