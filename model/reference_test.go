package model_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
	"github.com/rgnn/rgnn/train"
)

// refModel maps a reference label to our model name, options and file stem.
type refModel struct {
	label, name, stem string
	opts              model.Options
}

var refModels = []refModel{
	{"Vanilla GCN", "gcn", "Vanilla_GCN", model.Options{}},
	{"Vanilla GDC", "gdc", "Vanilla_GDC", model.Options{}},
	{"SVD GCN", "svd_gcn", "SVD_GCN", model.Options{}},
	{"Jaccard GCN", "jaccard_gcn", "Jaccard_GCN", model.Options{}},
	{"Soft Medoid GDC (T=0.2)", "sm_gdc", "Soft_Medoid_GDC_T_0_2", model.Options{Temperature: 0.2}},
	{"Soft Medoid GDC (T=0.5)", "sm_gdc", "Soft_Medoid_GDC_T_0_5", model.Options{Temperature: 0.5}},
	{"Soft Medoid GDC (T=1.0)", "sm_gdc", "Soft_Medoid_GDC_T_1_0", model.Options{Temperature: 1.0}},
}

type expectation struct {
	Label   string  `json:"label"`
	Seed    int     `json:"seed"`
	Attack  string  `json:"attack"`
	Epsilon float64 `json:"epsilon"`
	TestAcc float64 `json:"test_acc"`
	NTest   int     `json:"n_test"`
}

// TestReferenceAccuracy evaluates every reference pretrained model (bin0)
// on the clean graph and on every reference attacked graph (preprocessing
// recomputed) and requires the reference's test accuracy to within one test
// node.
func TestReferenceAccuracy(t *testing.T) {
	refDir := fixture.ReferenceDir(t)
	dataDir := fixture.DataDir(t)
	raw, err := os.ReadFile(filepath.Join(refDir, "expected_accuracy_cora_ml.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp struct {
		Clean    []expectation `json:"clean"`
		Attacked []expectation `json:"attacked"`
	}
	if err := json.Unmarshal(raw, &exp); err != nil {
		t.Fatal(err)
	}
	g, err := data.Load(context.Background(), "cora_ml", data.Options{Dir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	x := autograd.NewSparse(g.Features)
	reg := model.Default(testAggregators)
	cache := graph.NewPrepCache(64) // GDC of each graph is shared by GDC and the three SM GDC models
	graphs := map[string]*tensor.CSR{"": g.Adj}
	graphOf := func(e expectation) *tensor.CSR {
		key := fmt.Sprintf("cora_ml_%s_s%d_eps%g.npz", e.Attack, e.Seed, e.Epsilon)
		if e.Attack == "" {
			key = ""
		}
		if a, ok := graphs[key]; ok {
			return a
		}
		a, err := data.LoadPerturbedAdj(fixture.Reference(t, filepath.Join("attacks", key)), g.NumNodes())
		if err != nil {
			t.Fatal(err)
		}
		graphs[key] = a
		return a
	}
	all := append(append([]expectation{}, exp.Clean...), exp.Attacked...)
	checked := 0
	for _, rm := range refModels {
		if testing.Short() && rm.name != "gcn" {
			continue
		}
		if _, ok := reg.Lookup(rm.name); !ok {
			t.Errorf("model %s not registered", rm.name)
			continue
		}
		for _, seed := range []int{0, 1, 5} {
			o := rm.opts
			o.Cache = cache
			m, err := reg.New(rm.name, g.Features.Cols, g.NumClasses, o)
			if err != nil {
				t.Fatal(err)
			}
			w := fixture.Reference(t, fmt.Sprintf("pretrained/cora_ml_%s_s%d_bin0.npz", rm.stem, seed))
			if err := model.LoadWeights(m, w); err != nil {
				t.Fatal(err)
			}
			_, _, test, err := data.Split(g.Labels, g.NumClasses, 20, uint32(seed))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range all {
				if e.Label != rm.label || e.Seed != seed {
					continue
				}
				pg, err := m.Preprocess(graphOf(e), g.Features)
				if err != nil {
					t.Fatal(err)
				}
				acc := train.Accuracy(train.Predict(m, pg, x), g.Labels, test)
				diff := math.Abs(acc-e.TestAcc) * float64(len(test))
				where := "clean"
				if e.Attack != "" {
					where = fmt.Sprintf("%s ε=%g", e.Attack, e.Epsilon)
				}
				if diff > 1.01 {
					t.Errorf("%s seed %d %s: accuracy %.4f, reference %.4f (%.0f test nodes apart)",
						rm.label, seed, where, acc, e.TestAcc, diff)
				}
				checked++
			}
		}
	}
	t.Logf("checked %d (model, seed, graph) cells", checked)
	if !testing.Short() && checked != len(all) {
		t.Errorf("checked %d cells, the reference has %d", checked, len(all))
	}
}

// TestSVDGCNLowRankMatchesDense: svd_gcn propagating with the low-rank
// operator gives the logits of the dense path (the n² graph of
// graph.SVDNormAdj with SpMMT) to float32 accuracy, for the reference
// weights on cora_ml, clean and with 40% of the edges deleted (a
// certification sample), with the same predictions.
func TestSVDGCNLowRankMatchesDense(t *testing.T) {
	g, err := data.Load(context.Background(), "cora_ml", data.Options{Dir: fixture.DataDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Default(testAggregators).New("svd_gcn", g.Features.Cols, g.NumClasses, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := model.LoadWeights(m, fixture.Reference(t, "pretrained/cora_ml_SVD_GCN_s0_bin1.npz")); err != nil {
		t.Fatal(err)
	}
	x := autograd.NewSparse(g.Features)
	sampled := g.Adj
	var drop [][2]int
	for i, e := range graph.UpperTriangleEdges(g.Adj) {
		if i%5 < 2 {
			drop = append(drop, e)
		}
	}
	if sampled, err = graph.FlipEdges(g.Adj, drop); err != nil {
		t.Fatal(err)
	}
	for _, adj := range []*tensor.CSR{g.Adj, sampled} {
		pg, err := m.Preprocess(adj, g.Features)
		if err != nil {
			t.Fatal(err)
		}
		if pg.SVD == nil || pg.S != nil {
			t.Fatal("svd_gcn does not propagate in low-rank form")
		}
		dense, err := pg.SVD.Dense()
		if err != nil {
			t.Fatal(err)
		}
		low := m.Forward(autograd.NoGrad(), pg, x, model.Mode{}).Value
		ref := m.Forward(autograd.NoGrad(), &model.Graph{S: autograd.NewSparse(dense)}, x, model.Mode{}).Value
		var maxDiff, maxAbs float64
		for i, v := range low.Data {
			maxDiff = max(maxDiff, math.Abs(float64(v)-float64(ref.Data[i])))
			maxAbs = max(maxAbs, math.Abs(float64(ref.Data[i])))
		}
		changed := 0
		for i := 0; i < low.Rows; i++ {
			if low.ArgmaxRow(i) != ref.ArgmaxRow(i) {
				changed++
			}
		}
		t.Logf("%d edges: max |Δlogit| low-rank vs dense %.3g (max |logit| %.3g), %d predictions differ", adj.Nnz()/2, maxDiff, maxAbs, changed)
		if maxDiff > 1e-4*max(1, maxAbs) {
			t.Errorf("max |Δlogit| %g", maxDiff)
		}
		// Figure 1 lists the dense graph's neighbours.
		a, msgs, err := m.(model.LastLayerer).LastLayer(pg, x)
		if err != nil {
			t.Fatal(err)
		}
		if a.Nnz() != dense.Nnz() || msgs.Rows != g.NumNodes() {
			t.Errorf("LastLayer: %d entries and %s messages", a.Nnz(), msgs.Shape())
		}
	}
}
