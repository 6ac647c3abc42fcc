package certify

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"testing"
)

// TestSamplerPinned pins sampled graphs bit for bit (a random graph of 600
// nodes; deletions, additions, both): the sampler may get faster, but
// sample i of a stream stays the same graph.
func TestSamplerPinned(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var edges [][2]int
	for range 2000 {
		i, j := rng.IntN(600), rng.IntN(600)
		if i != j {
			edges = append(edges, [2]int{i, j})
		}
	}
	adj := undirected(t, 600, edges)
	for _, tc := range []struct {
		name       string
		pAdd, pDel float64
		want       string
	}{
		{"del", 0, 0.4, "382f8be83c71cc2f2dc97fb6d4999c6be022b20db004ec72c5884d73d1080f34"},
		{"add", 0.01, 0, "eafe9e7644ac488b813616667d2b636d17abd14587733f6983ffaa24ef9c2dbb"},
		{"both", 0.005, 0.3, "15018c0d9c6ead157961e3b21d33e1dc7a66c8d7f933fa2cfd07d31a8770bca5"},
	} {
		s, err := NewSampler(adj, nil, SampleParams{PPlusAdj: tc.pAdd, PMinusAdj: tc.pDel})
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		for i := range 6 {
			a, _ := s.SampleAt(3, StreamVotes, i)
			for _, p := range a.Indptr {
				binary.Write(h, binary.LittleEndian, int64(p))
			}
			binary.Write(h, binary.LittleEndian, a.Indices)
			binary.Write(h, binary.LittleEndian, a.Values)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != tc.want {
			t.Errorf("%s: samples digest %s, want %s", tc.name, got, tc.want)
		}
	}
}
