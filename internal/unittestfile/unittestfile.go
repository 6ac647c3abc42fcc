// Package unittestfile writes small files in the layout of the black-box
// robustness unit test (package data/unittest) for tests: the published
// file cannot be downloaded where the tests run.
package unittestfile

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rgnn/rgnn/data/unittest"
	"github.com/rgnn/rgnn/tensor"
)

// Options shape the file.
type Options struct {
	Nodes    int      // per dataset (default 80)
	Datasets []string // default unittest.PublishedDatasets
	Models   []string // source models (default unittest.PublishedModels)
	Budgets  []string // budget labels (default "5", "20")
	Seed     uint64
}

// New builds a unit test of planted-partition graphs (3 classes whose
// nodes share features and mostly link within the class), five 10/10/80
// splits and, per scenario, source model, split and budget, that many
// random edge flips between classes.
func New(o Options) *unittest.File {
	if o.Nodes == 0 {
		o.Nodes = 80
	}
	if o.Datasets == nil {
		o.Datasets = unittest.PublishedDatasets
	}
	if o.Models == nil {
		o.Models = unittest.PublishedModels
	}
	if o.Budgets == nil {
		o.Budgets = []string{"5", "20"}
	}
	rng := rand.New(rand.NewPCG(o.Seed, 11))
	f := &unittest.File{Path: "synthetic"}
	n := o.Nodes
	for _, ds := range o.Datasets {
		d := &unittest.Dataset{Name: ds, Labels: make([]int32, n), NumClasses: 3, Perturbations: map[string][]unittest.Perturbation{}}
		var es, fs []tensor.Entry
		for i := range n {
			d.Labels[i] = int32(i % 3)
			for k := range 4 {
				fs = append(fs, tensor.Entry{Row: int32(i), Col: int32(3*k + i%3), Val: 1})
			}
			fs = append(fs, tensor.Entry{Row: int32(i), Col: int32(12 + rng.IntN(6)), Val: 1})
		}
		for i := range n {
			for j := i + 1; j < n; j++ {
				p := 0.01
				if i%3 == j%3 {
					p = 0.12
				}
				if rng.Float64() < p || j == i+3 {
					es = append(es, tensor.Entry{Row: int32(i), Col: int32(j), Val: 1}, tensor.Entry{Row: int32(j), Col: int32(i), Val: 1})
				}
			}
		}
		d.Adj, _ = tensor.FromCOO(n, n, es)
		d.Features, _ = tensor.FromCOO(n, 18, fs)
		for range 5 {
			perm := rng.Perm(n)
			k := n / 10
			d.Splits = append(d.Splits, unittest.Split{Train: perm[:k], Val: perm[k : 2*k], Test: perm[2*k:]})
		}
		for _, sc := range []string{"evasion", "poisoning"} {
			for _, m := range o.Models {
				for s := range 5 {
					for _, b := range o.Budgets {
						var k int
						fmt.Sscan(b, &k)
						var flips [][2]int32
						seen := map[[2]int32]bool{}
						for len(flips) < k {
							u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
							if u == v || u%3 == v%3 {
								continue
							}
							e := [2]int32{min(u, v), max(u, v)}
							if !seen[e] {
								seen[e] = true
								flips = append(flips, e)
							}
						}
						d.Perturbations[sc] = append(d.Perturbations[sc], unittest.Perturbation{Source: m, Split: s, Budget: b, Flips: flips})
					}
				}
			}
		}
		f.Datasets = append(f.Datasets, d)
	}
	return f
}

// Write writes New(o) to path.
func Write(tb testing.TB, path string, o Options) {
	tb.Helper()
	if err := New(o).WriteFile(path); err != nil {
		tb.Fatal(err)
	}
}
