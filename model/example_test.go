package model_test

import (
	"fmt"
	"log"
	"math"

	"github.com/rgnn/rgnn/aggregate"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

// The registry holds each model's facts, which the rest of rgnn reads
// instead of testing names: its table label, the options it uses, whether a
// direct attack can differentiate it, whether it trains in mini-batches.
// Default(nil) lists the models without being able to build the robust ones.
func ExampleRegistry_Lookup() {
	reg := model.Default(nil)
	for _, name := range []string{"gcn", "sm_gdc", "pprgo"} {
		s, ok := reg.Lookup(name)
		if !ok {
			log.Fatalf("%s is not registered", name)
		}
		fmt.Printf("%-6s %-16q temperature %-5v diffusion %-5v differentiable %-5v mini-batch %v\n", s.Name, s.Label,
			s.Uses.Temperature, s.Uses.Diffusion, s.Differentiable, s.MiniBatch)
	}
	_, ok := reg.Lookup("soft_medoid")
	fmt.Println("soft_medoid registered:", ok)
	// Output:
	// gcn    "Vanilla GCN"    temperature false diffusion false differentiable true  mini-batch false
	// sm_gdc "Soft Medoid GDC" temperature true  diffusion true  differentiable true  mini-batch false
	// pprgo  "PPRGo"          temperature false diffusion false differentiable true  mini-batch true
	// soft_medoid registered: false
}

// Build the paper's Soft Medoid GDC, with the aggregations of package
// aggregate injected, and run an (untrained) inference pass on two
// triangles joined by an edge, with one-hot features: Preprocess diffuses
// the graph (GDC), Forward returns log-probabilities per node.
func ExampleRegistry_New() {
	reg := model.Default(func(name string, o model.Options) (autograd.Aggregator, error) {
		return aggregate.ForModel(name, o.K, o.Temperature, o.Normalization)
	})
	var edges []tensor.Entry
	for _, e := range [][2]int32{{0, 1}, {0, 2}, {1, 2}, {2, 3}, {3, 4}, {3, 5}, {4, 5}} {
		edges = append(edges, tensor.Entry{Row: e[0], Col: e[1], Val: 1}, tensor.Entry{Row: e[1], Col: e[0], Val: 1})
	}
	adj, err := tensor.FromCOO(6, 6, edges)
	if err != nil {
		log.Fatal(err)
	}
	var ones []tensor.Entry
	for i := range int32(6) {
		ones = append(ones, tensor.Entry{Row: i, Col: i, Val: 1})
	}
	feats, err := tensor.FromCOO(6, 6, ones)
	if err != nil {
		log.Fatal(err)
	}
	m, err := reg.New("sm_gdc", feats.Cols, 2, model.Options{Temperature: 0.5, K: 4, Hidden: 8, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	g, err := m.Preprocess(adj, feats)
	if err != nil {
		log.Fatal(err)
	}
	out := m.Forward(autograd.NoGrad(), g, autograd.NewSparse(feats), model.Mode{}).Value
	fmt.Println(m.Name(), "output", out.Shape())
	for i := range out.Rows {
		p0, p1 := math.Exp(float64(out.At(i, 0))), math.Exp(float64(out.At(i, 1)))
		fmt.Printf("node %d: p = (%.3f, %.3f)\n", i, p0, p1)
	}
	// Output:
	// sm_gdc output 6×2
	// node 0: p = (0.426, 0.574)
	// node 1: p = (0.452, 0.548)
	// node 2: p = (0.446, 0.554)
	// node 3: p = (0.442, 0.558)
	// node 4: p = (0.433, 0.567)
	// node 5: p = (0.443, 0.557)
}
