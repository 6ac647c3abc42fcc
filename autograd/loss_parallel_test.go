package autograd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

// TestCrossEntropyParallelSameBits checks that the cross-entropy over many
// rows (split over goroutines) gives the bits of the sequential loop, value
// and gradient.
func TestCrossEntropyParallelSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	const n, c = 3 * parallelLossRows, 40
	logits := tensor.NewDense(n, c)
	for i := range logits.Data {
		logits.Data[i] = float32(rng.NormFloat64() * 3)
	}
	labels := make([]int32, n)
	for i := range labels {
		labels[i] = int32(rng.IntN(c))
	}
	idx := rng.Perm(n)[:2*parallelLossRows+17]

	var want float64
	for _, i := range idx {
		row := logits.Row(i)
		m := row[0]
		for _, v := range row[1:] {
			m = max(m, v)
		}
		var s float64
		for _, v := range row {
			s += expNormal(float64(v - m))
		}
		want += float64(m) + math.Log(s) - float64(row[labels[i]])
	}
	want /= float64(len(idx))
	if got := CrossEntropyValue(logits, idx, labels); math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("CrossEntropyValue %v, sequential %v", got, want)
	}

	tp := NewTape()
	lv := tp.Leaf(logits)
	tp.Backward(tp.CrossEntropy(lv, idx, labels))
	wantGrad := tensor.NewDense(n, c)
	p := make([]float32, c)
	scale := 1 / float64(len(idx))
	for _, i := range idx {
		softmaxInto(p, logits.Row(i))
		for j := range c {
			d := float64(p[j])
			if j == int(labels[i]) {
				d--
			}
			wantGrad.Data[i*c+j] += float32(d * scale)
		}
	}
	for i, v := range lv.Grad().Data {
		if math.Float32bits(v) != math.Float32bits(wantGrad.Data[i]) {
			t.Fatalf("gradient [%d] %v, sequential %v", i, v, wantGrad.Data[i])
		}
	}
}
