package graph_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"testing"

	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/tensor"
)

// csrDigest is the SHA-256 of a CSR's shape, structure and value bits.
func csrDigest(a *tensor.CSR) string {
	h := sha256.New()
	w := func(v any) { binary.Write(h, binary.LittleEndian, v) }
	w(int64(a.Rows))
	w(int64(a.Cols))
	for _, p := range a.Indptr {
		w(int64(p))
	}
	w(a.Indices)
	for _, v := range a.Values {
		w(math.Float32bits(v))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestApproxGDCSampledPinned pins the push diffusion of the graphs
// randomized smoothing samples (cora_ml with 40% of the edges deleted, or
// ~3,950 added) bit for bit, as ApproxGDC and as TopKPPR of a node subset:
// the push and the top-k selection may get faster, never different.
func TestApproxGDCSampledPinned(t *testing.T) {
	want := map[string]string{
		"del/eps=0.0001":      "538d2a0c6502103398094ef027cf2465022449ea570956f6d3aeff924a879238",
		"del/eps=0.0001/topk": "1d72f1c7552e69fbdc357d981ca4393c123f516b5370abc789e867dcdd39d69f",
		"del/eps=0.001":       "a2d8e88fae20e50e3be6fc20d6a917b7833f7376658133f6c826702ffcec2ab7",
		"del/eps=0.001/topk":  "d5e6d3463429e2b7240937b62b115f80f07c3135522d7e73de58e0d3914da702",
		"add/eps=0.0001":      "613eb4709f21f4a148e0ef2a50acb605c25182d22945162f49360e5d20d4a437",
		"add/eps=0.0001/topk": "f1a4b75f4614f00ccfe218cfc950a6d9c7579d8bd1e2ff5885f9d80494ec2629",
		"add/eps=0.001":       "9665161e67b85a5fe2d2774949c0a5bef361ec2373115eee2bcc08b5f9608204",
		"add/eps=0.001/topk":  "a52b291cda05df5cf68b57fa2f373c11f540ddafa3fce7337ce2a9181c6fd2ac",
	}
	for _, st := range []struct {
		name       string
		pAdd, pDel float64
	}{{"del", 0, 0.4}, {"add", 0.001, 0}} {
		a := perturbed(t, st.pAdd, st.pDel)
		for _, eps := range []float64{1e-4, 1e-3} {
			name := fmt.Sprintf("%s/eps=%g", st.name, eps)
			s, err := graph.ApproxGDC(a, 0.15, 64, eps)
			if err != nil {
				t.Fatal(err)
			}
			if got := csrDigest(s); got != want[name] {
				t.Errorf("%s: ApproxGDC digest %s, want %s", name, got, want[name])
			}
			nodes := []int{5, 0, 17, 2000, 1234, 999, 2809}
			s, err = graph.TopKPPR(a, nodes, 0.15, eps, 8, 2)
			if err != nil {
				t.Fatal(err)
			}
			if got := csrDigest(s); got != want[name+"/topk"] {
				t.Errorf("%s: TopKPPR digest %s, want %s", name, got, want[name+"/topk"])
			}
		}
	}
}
