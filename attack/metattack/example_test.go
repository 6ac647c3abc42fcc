package metattack_test

import (
	"context"
	"fmt"

	"github.com/rgnn/rgnn/attack/metattack"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/tensor"
)

// Example poisons a 12-node ring with chords: a few flips by Meta-Self with
// a short inner training (the defaults are 100 steps).
func Example() {
	n := 12
	var es []tensor.Entry
	add := func(a, b int) {
		es = append(es, tensor.Entry{Row: int32(a), Col: int32(b), Val: 1}, tensor.Entry{Row: int32(b), Col: int32(a), Val: 1})
	}
	for i := range n {
		add(i, (i+1)%n)
	}
	add(0, 6)
	add(3, 9)
	adj, _ := tensor.FromCOO(n, n, es)
	var xs []tensor.Entry
	labels := make([]int32, n)
	for i := range n {
		labels[i] = int32(i * 2 / n) // two classes: nodes 0–5 and 6–11
		xs = append(xs, tensor.Entry{Row: int32(i), Col: labels[i], Val: 1}, tensor.Entry{Row: int32(i), Col: 2 + int32(i%3), Val: 0.5})
	}
	x, _ := tensor.FromCOO(n, 5, xs)
	p := &data.Problem{Adj: adj, Features: x, Labels: labels, NumClasses: 2,
		Train: []int{0, 1, 6, 7}, Test: []int{2, 3, 4, 5, 8, 9, 10, 11}}
	// the true labels as self-training labels; the loss on the test nodes
	res, err := metattack.Attack(context.Background(), p, 3,
		metattack.Options{TrainIters: 20, LLCutoff: -1, SelfLabels: labels}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d flips; perturbed graph has %d stored entries (clean: %d)\n",
		len(res.Flips), res.Perturbed.Nnz(), adj.Nnz())
	// Output: 3 flips; perturbed graph has 34 stored entries (clean: 28)
}
