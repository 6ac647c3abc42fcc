package task_test

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/task"
)

// toyDataset writes a small dataset in the cora_ml layout: 240 nodes in 3
// classes (a stochastic block model), bag-of-words features planted per
// class. Real datasets are named instead (Data{Dataset: "cora_ml"}) and
// downloaded when missing.
func toyDataset(dir string) string {
	const n, classes, perClass, feats = 240, 3, 80, 60
	rng := rand.New(rand.NewPCG(7, 7))
	label := func(i int) int { return i / perClass }
	var rows, cols []int64
	for i := range n {
		for j := i + 1; j < n; j++ {
			p := 0.005
			if label(i) == label(j) {
				p = 0.06
			}
			if rng.Float64() < p {
				rows, cols = append(rows, int64(i)), append(cols, int64(j))
			}
		}
	}
	csr := func(prefix string, r, c int, entries func(i int) []int64) []npz.Entry {
		ptr := []int64{0}
		var ind []int64
		for i := range r {
			ind = append(ind, entries(i)...)
			ptr = append(ptr, int64(len(ind)))
		}
		vals := make([]float32, len(ind))
		for k := range vals {
			vals[k] = 1
		}
		return []npz.Entry{npz.F32(prefix+"_data", []int{len(ind)}, vals), npz.I64(prefix+"_indices", []int{len(ind)}, ind),
			npz.I64(prefix+"_indptr", []int{len(ptr)}, ptr), npz.I64(prefix+"_shape", []int{2}, []int64{int64(r), int64(c)})}
	}
	adj := csr("adj", n, n, func(i int) []int64 {
		var out []int64
		for k := range rows {
			if rows[k] == int64(i) {
				out = append(out, cols[k])
			}
		}
		return out
	})
	attr := csr("attr", n, feats, func(i int) []int64 {
		seen := map[int64]bool{}
		var out []int64
		for len(out) < 6 {
			f := int64(label(i)*20 + rng.IntN(20)) // a word of the node's class
			if len(out) >= 4 {
				f = int64(rng.IntN(feats)) // and noise
			}
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
		for a := 1; a < len(out); a++ { // ascending columns
			for b := a; b > 0 && out[b] < out[b-1]; b-- {
				out[b], out[b-1] = out[b-1], out[b]
			}
		}
		return out
	})
	labels := make([]int64, n)
	for i := range labels {
		labels[i] = int64(label(i))
	}
	path := filepath.Join(dir, "toy.npz")
	entries := append(append(adj, attr...), npz.I64("labels", []int{n}, labels))
	if err := npz.WriteFile(path, entries...); err != nil {
		log.Fatal(err)
	}
	return path
}

// Load a dataset with the split of a seed: 20 training and 20 validation
// nodes per class, the rest test nodes.
func ExampleLoader_Problem() {
	dir, _ := os.MkdirTemp("", "rgnn-example")
	defer os.RemoveAll(dir)
	var l task.Loader // zero value: datasets in $RGNN_DATA_DIR, else the user cache dir
	p, err := l.Problem(context.Background(), task.Data{Dataset: toyDataset(dir)}, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d nodes, %d features, %d classes\n", p.NumNodes(), p.Features.Cols, p.NumClasses)
	fmt.Printf("split: %d train, %d validation, %d test\n", len(p.Train), len(p.Val), len(p.Test))
	// The largest connected component is kept: one of the 240 nodes is
	// isolated.
	//
	// Output:
	// 239 nodes, 60 features, 3 classes
	// split: 60 train, 60 validation, 119 test
}

// Train a Soft Medoid GDC (the paper's robust model) with the reference
// protocol and report its test accuracy.
func ExampleTrain_Run() {
	dir, _ := os.MkdirTemp("", "rgnn-example")
	defer os.RemoveAll(dir)
	spec := task.Train{}.Defaults()
	spec.Dataset = toyDataset(dir)
	spec.Model.Model, spec.Temperature, spec.K = "sm_gdc", 0.5, 16
	spec.MaxEpochs = 200
	p, err := new(task.Loader).Problem(context.Background(), spec.Data, spec.Seed)
	if err != nil {
		log.Fatal(err)
	}
	res, err := spec.Run(context.Background(), p, task.Hooks{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: test accuracy above 0.8: %v\n", res.Trained.Name(), res.TestAccuracy > 0.8)
	// Output:
	// sm_gdc_T0.5: test accuracy above 0.8: true
}

// Evaluate a trained model under a saved attack: a global DICE attack
// (model-free) perturbs 20% of the edges, its graph is saved in the
// reference attack format, and the model is evaluated on it.
func ExampleEval_Run() {
	dir, _ := os.MkdirTemp("", "rgnn-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	tr := task.Train{}.Defaults()
	tr.Dataset = toyDataset(dir)
	tr.MaxEpochs = 200
	p, err := new(task.Loader).Problem(ctx, tr.Data, tr.Seed)
	if err != nil {
		log.Fatal(err)
	}
	trained, err := tr.Run(ctx, p, task.Hooks{})
	if err != nil {
		log.Fatal(err)
	}
	atk := task.Perturb{}.Defaults()
	atk.Data, atk.Attack, atk.Epsilons = tr.Data, "dice", []float64{0.2}
	perturbed, err := atk.Run(ctx, p, task.Hooks{})
	if err != nil {
		log.Fatal(err)
	}
	graph := filepath.Join(dir, "dice.npz")
	if err := data.SavePerturbedAdj(graph, perturbed.Budgets[0].Adj); err != nil {
		log.Fatal(err)
	}
	ev := task.Eval{Train: tr, GraphFile: task.GraphFile{Graph: graph}}
	res, err := ev.Run(ctx, p, trained.Trained)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d edge flips; accuracy drops: %v\n", perturbed.Budgets[0].NumFlips, res.TestAccuracy < trained.TestAccuracy)
	// Output:
	// 125 edge flips; accuracy drops: true
}

// Certify a trained GCN with randomized smoothing: for each test node, the
// largest number of edge deletions under which its smoothed prediction
// provably stays correct.
func ExampleCertify_Run() {
	dir, _ := os.MkdirTemp("", "rgnn-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	spec := task.Certify{}.Defaults()
	spec.Dataset = toyDataset(dir)
	spec.MaxEpochs = 200
	spec.PDel, spec.Samples, spec.PreSamples = 0.4, 500, 50
	p, err := new(task.Loader).Problem(ctx, spec.Data, spec.Seed)
	if err != nil {
		log.Fatal(err)
	}
	trained, err := spec.Train.Run(ctx, p, task.Hooks{})
	if err != nil {
		log.Fatal(err)
	}
	cert, err := spec.Run(ctx, p, trained.Trained, 0, task.Hooks{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d test nodes; some certified against a deletion: %v\n", cert.NTest, cert.AvgRadiusDel > 0)
	// Output:
	// 119 test nodes; some certified against a deletion: true
}
