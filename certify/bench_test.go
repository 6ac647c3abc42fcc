package certify

import (
	"path/filepath"
	"testing"

	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/tensor"
)

// BenchmarkCompute certifies all 2810 cora_ml nodes of reference vote files,
// regions included (cold: a new RegionCache per iteration) or memoised
// (warm).
func BenchmarkCompute(b *testing.B) {
	for _, tc := range []struct {
		file          string
		pPlus, pMinus float64
	}{
		{"cora_ml_Vanilla_GCN_s0_del.npz", 0, 0.4},
		{"cora_ml_Vanilla_GCN_s0_add.npz", 0.001, 0},
		{"cora_ml_SVD_GCN_s0_adddel.npz", 0.001, 0.4},
	} {
		vf, err := LoadVotes(fixture.Reference(b, filepath.Join("smoothing_votes", tc.file)))
		if err != nil {
			b.Fatal(err)
		}
		p := Params{PPlus: tc.pPlus, PMinus: tc.pMinus, Alpha: 0.05, NumSamples: 10000}
		b.Run(tc.file+"/cold", func(b *testing.B) {
			for b.Loop() {
				if _, err := Compute(vf.Votes, vf.PreVotes, p, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.file+"/warm", func(b *testing.B) {
			cache := new(RegionCache)
			for b.Loop() {
				if _, err := Compute(vf.Votes, vf.PreVotes, p, cache); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSample draws one perturbed cora_ml-sized graph (2810 nodes,
// ~7981 edges, p₊ = 0.001, p₋ = 0.4).
func BenchmarkSample(b *testing.B) {
	const n = 2810
	var es []tensor.Entry
	for i := range n {
		for _, d := range []int{1, 7, 300} {
			j := (i + d) % n
			es = append(es, tensor.Entry{Row: int32(i), Col: int32(j), Val: 1}, tensor.Entry{Row: int32(j), Col: int32(i), Val: 1})
		}
	}
	adj, err := tensor.FromCOO(n, n, es)
	if err != nil {
		b.Fatal(err)
	}
	for i := range adj.Values {
		adj.Values[i] = 1
	}
	s, err := NewSampler(adj, nil, SampleParams{PPlusAdj: 0.001, PMinusAdj: 0.4})
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		s.SampleAt(1, 1, i)
		i++
	}
}

// BenchmarkLoadAndCompute is the whole `rgnn certify` core on one reference
// vote file: read the npz, certify all 2810 nodes (cold region cache) and
// aggregate over the test nodes.
func BenchmarkLoadAndCompute(b *testing.B) {
	path := fixture.Reference(b, "smoothing_votes/cora_ml_Soft_Medoid_GDC_T_1_0_s0_del.npz")
	labels, tests := referenceSplits(b)
	for b.Loop() {
		vf, err := LoadVotes(path)
		if err != nil {
			b.Fatal(err)
		}
		c, err := Compute(vf.Votes, vf.PreVotes, Params{PPlus: 0, PMinus: 0.4, Alpha: 0.05}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Metrics(labels, tests[0]); err != nil {
			b.Fatal(err)
		}
	}
}
