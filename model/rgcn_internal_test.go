package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/tensor"
)

// TestRGCNFollowsReference: RGCN's evaluation forward and KL term against a
// dense float64 transcription of the reference's rgnn/r_gcn.py on a small
// graph: the KL term of the first layer's Gaussians before propagation
// (gc1.miu, gc1.sigma) and the second layer's σ unpropagated (its
// sigma_out is commented out), with the output noise ours draws.
func TestRGCNFollowsReference(t *testing.T) {
	const n, f, h, c = 7, 5, 4, 3
	edges := [][2]int{{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5}, {1, 5}}
	var es []tensor.Entry
	for _, e := range edges {
		es = append(es, tensor.Entry{Row: int32(e[0]), Col: int32(e[1]), Val: 1}, tensor.Entry{Row: int32(e[1]), Col: int32(e[0]), Val: 1})
	}
	adj, err := tensor.FromCOO(n, n, es) // node 6 isolated
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var fs []tensor.Entry
	for i := range n {
		for j := range f {
			if rng.IntN(2) == 0 {
				fs = append(fs, tensor.Entry{Row: int32(i), Col: int32(j), Val: float32(rng.Float64())})
			}
		}
	}
	x, err := tensor.FromCOO(n, f, fs)
	if err != nil {
		t.Fatal(err)
	}
	mm, err := rgcnSpecs()[0].New(f, c, Options{Hidden: h, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	m := mm.(*RGCN)
	g, err := m.Preprocess(adj, x)
	if err != nil {
		t.Fatal(err)
	}
	out := m.Forward(autograd.NewTape(), g, autograd.NewSparse(x), Mode{}).Value

	// The reference, densely in float64.
	dense := func(d *tensor.Dense) [][]float64 {
		a := make([][]float64, d.Rows)
		for i := range a {
			a[i] = make([]float64, d.Cols)
			for j := range a[i] {
				a[i][j] = float64(d.At(i, j))
			}
		}
		return a
	}
	mul := func(a, b [][]float64) [][]float64 {
		o := make([][]float64, len(a))
		for i := range a {
			o[i] = make([]float64, len(b[0]))
			for k := range b {
				for j := range b[0] {
					o[i][j] += a[i][k] * b[k][j]
				}
			}
		}
		return o
	}
	apply := func(a [][]float64, fn func(float64) float64) [][]float64 {
		o := make([][]float64, len(a))
		for i := range a {
			o[i] = make([]float64, len(a[i]))
			for j, v := range a[i] {
				o[i][j] = fn(v)
			}
		}
		return o
	}
	had := func(a, b [][]float64) [][]float64 {
		o := apply(a, func(v float64) float64 { return v })
		for i := range o {
			for j := range o[i] {
				o[i][j] *= b[i][j]
			}
		}
		return o
	}
	elu := func(v float64) float64 {
		if v > 0 {
			return v
		}
		return math.Expm1(v)
	}
	relu := func(v float64) float64 { return math.Max(v, 0) }
	att := func(s [][]float64) [][]float64 { return apply(s, func(v float64) float64 { return math.Exp(-v) }) }
	xd := make([][]float64, n)
	for i := range xd {
		xd[i] = make([]float64, f)
		for k := x.Indptr[i]; k < x.Indptr[i+1]; k++ {
			xd[i][x.Indices[k]] = float64(x.Values[k])
		}
	}
	a := make([][]float64, n) // A + I
	for i := range a {
		a[i] = make([]float64, n)
		a[i][i] = 1
	}
	for _, e := range edges {
		a[e[0]][e[1]], a[e[1]][e[0]] = 1, 1
	}
	deg := make([]float64, n)
	for i := range a {
		for _, v := range a[i] {
			deg[i] += v
		}
	}
	a1, a2 := make([][]float64, n), make([][]float64, n)
	for i := range a {
		a1[i], a2[i] = make([]float64, n), make([]float64, n)
		for j, v := range a[i] {
			a1[i][j] = v / math.Sqrt(deg[i]*deg[j])
			a2[i][j] = v / (deg[i] * deg[j])
		}
	}
	mu1 := apply(mul(xd, dense(m.w1mu.Value)), elu)
	sig1 := apply(mul(xd, dense(m.w1sig.Value)), relu)
	var kl float64
	for i := range mu1 {
		var s float64
		for j := range mu1[i] {
			s += mu1[i][j]*mu1[i][j] + sig1[i][j] - math.Log(1e-8+sig1[i][j])
		}
		kl += 0.5 * s / h
	}
	at1 := att(sig1)
	mu := mul(a1, had(mu1, at1))
	sig := mul(a2, had(had(sig1, at1), at1))
	mu2 := apply(mul(mu, dense(m.w2mu.Value)), elu)
	sig2 := apply(mul(sig, dense(m.w2sig.Value)), relu)
	mu = mul(a1, had(mu2, att(sig2)))
	positive := 0 // the output noise must matter somewhere
	for i := range sig2 {
		for _, v := range sig2[i] {
			if v > 1e-3 {
				positive++
			}
		}
	}
	if positive < n {
		t.Fatalf("only %d positive output variances: the test would not see how σ is wired", positive)
	}
	noise := newRNG(0 ^ 0x9a55)
	for i := range n {
		z := make([]float64, c)
		lse := math.Inf(-1)
		for j := range c {
			eps := float64(float32(noise.NormFloat64()))
			z[j] = mu[i][j] + eps*math.Sqrt(sig2[i][j]+1e-8)
			lse = math.Max(lse, z[j])
		}
		var s float64
		for j := range c {
			s += math.Exp(z[j] - lse)
		}
		for j := range c {
			want := z[j] - lse - math.Log(s)
			if got := float64(out.At(i, j)); math.Abs(got-want) > 1e-4 {
				t.Errorf("log-probability (%d, %d): ours %.6f, the reference's %.6f", i, j, got, want)
			}
		}
	}
	if got := float64(m.kl.Value.Data[0]); math.Abs(got-kl) > 1e-4*math.Abs(kl) {
		t.Errorf("KL term: ours %.6f, the reference's (first layer before propagation) %.6f", got, kl)
	}
}
