package certify_test

import (
	"context"
	"fmt"
	"log"

	"github.com/rgnn/rgnn/certify"
	"github.com/rgnn/rgnn/tensor"
)

// The certified radii of four nodes from their vote counts: 10,000 samples
// of a smoothed two-class classifier that deleted every edge with p₋ = 0.4
// and added every absent pair with p₊ = 0.001 (the paper's "Add & del."
// setting), plus 100 pre-votes that chose the top class. The more
// lopsided the votes, the more deletions the smoothed prediction is
// certified to withstand; additions, which the smoothing makes rarely, only
// for unanimous votes; a node at 55:45 is not certified at all.
func ExampleCompute() {
	votes, pre := certify.NewCounts(4, 2), certify.NewCounts(4, 2)
	for i, v := range [][2]int64{{10000, 0}, {9990, 10}, {9000, 1000}, {5500, 4500}} {
		copy(votes.Row(i), v[:])
		copy(pre.Row(i), []int64{v[0] / 100, v[1] / 100})
	}
	c, err := certify.Compute(votes, pre, certify.Params{PPlus: 0.001, PMinus: 0.4, Alpha: 0.05}, nil)
	if err != nil {
		log.Fatal(err)
	}
	for i := range c.Nodes {
		ra, rd := c.Radius(i)
		fmt.Printf("node %d: votes %v, p_lower %.3f, certified for %d additions or %d deletions\n",
			i, votes.Row(i), c.PLower[i], ra, rd)
	}
	// Output:
	// node 0: votes [10000 0], p_lower 1.000, certified for 2 additions or 7 deletions
	// node 1: votes [9990 10], p_lower 0.998, certified for 0 additions or 6 deletions
	// node 2: votes [9000 1000], p_lower 0.894, certified for 0 additions or 1 deletions
	// node 3: votes [5500 4500], p_lower 0.540, certified for 0 additions or 0 deletions
}

// Randomized smoothing end to end on a toy problem: a sampler perturbs a
// graph, a base classifier votes on every sample, the votes give a
// certificate, and the certificate's metrics are taken over the labelled
// nodes. The base classifier here predicts class 1 (every node's label)
// for a node with a neighbour and class 0 for an isolated one. On the graph
// — a 4-clique with a path of three nodes hanging off it — random deletions
// isolate a node the less often the more neighbours it has, so the
// certified radius grows with the degree, as it does for real models.
func Example() {
	var es []tensor.Entry
	edge := func(u, v int32) {
		es = append(es, tensor.Entry{Row: u, Col: v, Val: 1}, tensor.Entry{Row: v, Col: u, Val: 1})
	}
	for u := range int32(4) {
		for v := u + 1; v < 4; v++ {
			edge(u, v)
		}
	}
	edge(3, 4)
	edge(4, 5)
	edge(5, 6)
	adj, err := tensor.FromCOO(7, 7, es)
	if err != nil {
		log.Fatal(err)
	}
	labels := []int32{1, 1, 1, 1, 1, 1, 1}
	sampler, err := certify.NewSampler(adj, nil, certify.SampleParams{PMinusAdj: 0.2})
	if err != nil {
		log.Fatal(err)
	}
	byDegree := certify.PredictorFunc(func(a, _ *tensor.CSR) ([]int32, error) {
		pred := make([]int32, a.Rows)
		for i := range pred {
			if a.Indptr[i+1] > a.Indptr[i] {
				pred[i] = 1
			}
		}
		return pred, nil
	})
	votes, err := certify.Smooth(context.Background(), sampler, 2, certify.SmoothOptions{
		PreSamples: 100, Samples: 2000, Seed: 7,
		NewPredictor: func() (certify.Predictor, error) { return byDegree, nil },
	})
	if err != nil {
		log.Fatal(err)
	}
	c, err := certify.Compute(votes.Votes, votes.PreVotes, certify.Params{PMinus: 0.2, Alpha: 0.05}, nil)
	if err != nil {
		log.Fatal(err)
	}
	for i := range c.Nodes {
		_, rd := c.Radius(i)
		fmt.Printf("node %d: votes %v, prediction %d, certified for %d deletions\n", i, votes.Votes.Row(i), c.Pred[i], rd)
	}
	m, err := c.Metrics(labels, []int{0, 1, 2, 3, 4, 5, 6})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("smoothed accuracy %.3f, mean deletion radius %.3f\n", m.SmoothedAccuracy, m.AvgRadiusDel)
	// Output:
	// node 0: votes [14 1986], prediction 1, certified for 2 deletions
	// node 1: votes [20 1980], prediction 1, certified for 2 deletions
	// node 2: votes [12 1988], prediction 1, certified for 2 deletions
	// node 3: votes [4 1996], prediction 1, certified for 2 deletions
	// node 4: votes [104 1896], prediction 1, certified for 1 deletions
	// node 5: votes [64 1936], prediction 1, certified for 1 deletions
	// node 6: votes [383 1617], prediction 1, certified for 0 deletions
	// smoothed accuracy 1.000, mean deletion radius 1.429
}
