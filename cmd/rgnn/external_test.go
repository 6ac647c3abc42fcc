package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/certify"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/task"
	"github.com/rgnn/rgnn/tensor"
	"github.com/rgnn/rgnn/train"
)

// numpyModel is python/examples/numpy_model.py run with /usr/bin/python3
// (numpy from apt); the test fails under CI=true without it.
func numpyModel(t *testing.T) string {
	t.Helper()
	py := pythonNumpy(t)
	if py == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("/usr/bin/python3 with numpy is needed (apt-get install python3-numpy; .ci/run installs it)")
		}
		t.Skip("no /usr/bin/python3 with numpy")
	}
	script, err := filepath.Abs("../../python/examples/numpy_model.py")
	if err != nil {
		t.Fatal(err)
	}
	return py + " " + script
}

// centroid is the numpy example's model computed in Go: W[f, c] =
// round(100 · mean of feature f over the training nodes of class c), logits
// (A + I)·X·W. On binary features every number is an integer, so the
// predictions equal the process's bit for bit.
type centroid struct {
	w       []float64 // F×C
	classes int
}

func fitCentroid(p *data.Problem) centroid {
	f, c := p.Features.Cols, p.NumClasses
	w := make([]float64, f*c)
	for cl := range c {
		sum := make([]float64, f)
		var n float64
		for _, v := range p.Train {
			if int(p.Labels[v]) != cl {
				continue
			}
			n++
			lo, hi := p.Features.RowRange(v)
			for k := lo; k < hi; k++ {
				sum[p.Features.Indices[k]] += float64(p.Features.Values[k])
			}
		}
		if n == 0 {
			continue
		}
		for j := range f {
			w[j*c+cl] = math.RoundToEven(100 * sum[j] / n)
		}
	}
	return centroid{w: w, classes: c}
}

func (m centroid) logits(adj, x *tensor.CSR) *tensor.Dense {
	n, c := adj.Rows, m.classes
	h := make([]float64, n*c)
	for i := range n {
		lo, hi := x.RowRange(i)
		for k := lo; k < hi; k++ {
			for cl := range c {
				h[i*c+cl] += float64(x.Values[k]) * m.w[int(x.Indices[k])*c+cl]
			}
		}
	}
	out := tensor.NewDense(n, c)
	for i := range n {
		for cl := range c {
			s := h[i*c+cl]
			lo, hi := adj.RowRange(i)
			for _, j := range adj.Indices[lo:hi] {
				s += h[int(j)*c+cl]
			}
			out.Data[i*c+cl] = float32(s)
		}
	}
	return out
}

func (m centroid) Predict(adj, x *tensor.CSR) ([]int32, error) {
	l := m.logits(adj, x)
	y := make([]int32, adj.Rows)
	for i := range y {
		row := l.Data[i*m.classes : (i+1)*m.classes]
		best := 0
		for cl, v := range row {
			if v > row[best] {
				best = cl
			}
		}
		y[i] = int32(best)
	}
	return y, nil
}

// TestExternalCertifySameAsInProcess: `rgnn certify --model external` on
// the numpy example draws the same samples as for a Go model, and its votes
// and certificate equal those of the same model computed in-process with
// the same seeds — for structure and for attribute smoothing.
func TestExternalCertifySameAsInProcess(t *testing.T) {
	cmd := numpyModel(t)
	dataDir := fixture.DataDir(t)
	l := &task.Loader{Dir: dataDir}
	p, err := l.Problem(context.Background(), task.Data{Dataset: "cora_ml", BinaryAttr: true}, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := fitCentroid(p)
	for _, c := range []struct {
		name  string
		flags []string
		probs certify.SampleParams
	}{
		{"edges", []string{"--p-add", "0.001", "--p-del", "0.4"}, certify.SampleParams{PPlusAdj: 0.001, PMinusAdj: 0.4}},
		{"attributes", []string{"--p-add-att", "0.001", "--p-del-att", "0.4"}, certify.SampleParams{PPlusAtt: 0.001, PMinusAtt: 0.4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			votes := filepath.Join(t.TempDir(), "v.npz")
			args := append([]string{"certify", "--data-dir", dataDir, "--dataset", "cora_ml", "--binary-attr", "--model", "external",
				"--external-cmd", cmd, "--samples", "80", "--pre-samples", "20", "--seed", "3", "--split-seed", "0",
				"--external-batch", "7", "--workers", "2", "--save-votes", votes, "--json"}, c.flags...)
			out, err := runRoot(t, args...)
			if err != nil {
				t.Fatal(err, out)
			}
			var got certifyReport
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err, out)
			}
			sampler, err := certify.NewSampler(p.Adj, p.Features, c.probs)
			if err != nil {
				t.Fatal(err)
			}
			want, err := certify.Smooth(context.Background(), sampler, p.NumClasses, certify.SmoothOptions{PreSamples: 20, Samples: 80,
				Seed: 3, NewPredictor: func() (certify.Predictor, error) { return m, nil }})
			if err != nil {
				t.Fatal(err)
			}
			saved, err := certify.LoadVotes(votes)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(saved.Votes.Data, want.Votes.Data) || !slices.Equal(saved.PreVotes.Data, want.PreVotes.Data) {
				t.Fatal("the external model's votes differ from the in-process computation")
			}
			spec := task.Certify{}.Defaults()
			spec.BinaryAttr = true
			spec.PAdd, spec.PDel, spec.PAddAtt, spec.PDelAtt = c.probs.PPlusAdj, c.probs.PMinusAdj, c.probs.PPlusAtt, c.probs.PMinusAtt
			res, err := spec.FromVotes(p, want, "in-process", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.AccumulatedCertifications != res.AccumulatedCertifications || got.SmoothedAccuracy != res.SmoothedAccuracy ||
				!slices.EqualFunc(got.CertificationRatio, res.CertificationRatio, slices.Equal) {
				t.Fatalf("certificate %v / %v, in-process %v / %v", got.AccumulatedCertifications, got.SmoothedAccuracy,
					res.AccumulatedCertifications, res.SmoothedAccuracy)
			}
			if got.SmoothedAccuracy < 0.5 {
				t.Fatalf("smoothed accuracy %v: the model did not fit", got.SmoothedAccuracy)
			}
		})
	}
}

// TestExternalAttackEvalRun: a transfer attack evaluates the external model
// on its perturbed graphs, `rgnn eval --graph` gives the same accuracy, both
// equal the in-process computation, and a grid names the external model.
func TestExternalAttackEvalRun(t *testing.T) {
	cmd := numpyModel(t)
	dataDir := fixture.DataDir(t)
	l := &task.Loader{Dir: dataDir}
	p, err := l.Problem(context.Background(), task.Data{Dataset: "cora_ml", BinaryAttr: true}, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := fitCentroid(p)
	acc := func(adj *tensor.CSR) float64 { return train.Accuracy(m.logits(adj, p.Features), p.Labels, p.Test) }
	outDir := t.TempDir()
	out, err := runRoot(t, "attack", "--data-dir", dataDir, "--binary-attr", "--attack", "dice", "--epsilon", "0.25", "--victim", "gcn,external",
		"--external-cmd", cmd, "--max-epochs", "30", "--seed", "0", "--out", outDir, "--quiet", "--json")
	if err != nil {
		t.Fatal(err, out)
	}
	var rep attackReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err, out)
	}
	ext := rep.Budgets[0].Victims[1]
	pert, err := data.LoadPerturbedGraph(rep.Files[0], p.Adj)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ext.Name, "external(numpy_model.py") || ext.Accuracy != acc(pert) || rep.Clean[1].Accuracy != acc(p.Adj) {
		t.Fatalf("external victim %+v clean %+v; in-process %v, %v", ext, rep.Clean[1], acc(pert), acc(p.Adj))
	}
	out, err = runRoot(t, "eval", "--data-dir", dataDir, "--binary-attr", "--model", "external", "--external-cmd", cmd,
		"--split-seed", "0", "--graph", rep.Files[0], "--json")
	if err != nil {
		t.Fatal(err, out)
	}
	var ev evalReport
	if err := json.Unmarshal([]byte(out), &ev); err != nil {
		t.Fatal(err, out)
	}
	if ev.TestAccuracy != acc(pert) {
		t.Fatalf("eval --graph: %v, want %v", ev.TestAccuracy, acc(pert))
	}
	// Weights, an adaptive attack and a broken command are errors naming it.
	if _, err := runRoot(t, "eval", "--data-dir", dataDir, "--model", "external", "--external-cmd", cmd, "--weights", "w.npz"); err == nil {
		t.Fatal("--weights for an external model accepted")
	}
	if _, err := runRoot(t, "eval", "--data-dir", dataDir, "--model", "external"); err == nil || !strings.Contains(err.Error(), "--external-cmd") {
		t.Fatalf("no command: %v", err)
	}
	_, err = runRoot(t, "eval", "--data-dir", dataDir, "--binary-attr", "--model", "external", "--external-cmd", cmd+" --crash-after 0",
		"--graph", rep.Files[0])
	if err == nil || !strings.Contains(err.Error(), "numpy_model.py --crash-after 0") || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("crashing model: %v", err)
	}
	// A grid: eval of the external model next to a GCN.
	exp := filepath.Join(t.TempDir(), "ext.yaml")
	yaml := "fixed:\n  kind: eval\n  dataset: cora_ml\n  binary_attr: true\n  max_epochs: 20\n  external_cmd: \"" + cmd + "\"\n" +
		"grid:\n  model: {type: choice, options: [gcn, external]}\n"
	if err := os.WriteFile(exp, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "r.db")
	if out, err := runRoot(t, "run", exp, "--store", db, "--data-dir", dataDir, "--status-every", "0"); err != nil {
		t.Fatal(err, out)
	}
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rs, err := st.Query(context.Background(), store.Filter{Kind: "eval"})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rs {
		if r.Params["model"] == "external" {
			found = true
			if r.Metrics["test_accuracy"] != acc(p.Adj) || r.Params["external_cmd"] != cmd {
				t.Fatalf("stored %+v, want accuracy %v", r, acc(p.Adj))
			}
		}
		if r.Params["model"] == "gcn" {
			if _, ok := r.Params["external_cmd"]; ok {
				t.Fatalf("the gcn run's key carries external_cmd: %v", r.Params)
			}
		}
	}
	if !found || len(rs) != 2 {
		t.Fatalf("%d eval results, external found %v", len(rs), found)
	}
}
