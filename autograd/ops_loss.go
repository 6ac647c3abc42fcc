package autograd

import (
	"fmt"
	"math"

	"github.com/rgnn/rgnn/tensor"
)

// softmaxInto writes softmax(x) into o with a max shift, in float64.
func softmaxInto(o, x []float32) {
	if len(x) == 0 {
		return
	}
	m := x[0]
	for _, v := range x[1:] {
		m = max(m, v)
	}
	var s float64
	for i, v := range x {
		e := expNormal(float64(v - m))
		o[i] = flushF32(e)
		s += e
	}
	for i := range o {
		o[i] = flushF32(float64(o[i]) / s)
	}
}

// expNormal is math.Exp with results below float64's normal range (x <
// −708) flushed to zero. Subnormal arithmetic is one to two orders of
// magnitude slower on common x86 CPUs (microcode assists), and such terms
// never change a softmax denominator, which is ≥ 1.
func expNormal(x float64) float64 {
	if x < -708 {
		return 0
	}
	if x > -0x1p-60 && x < 0x1p-60 {
		return 1 // what math.Exp returns here; its assembly is slow for subnormal x
	}
	return math.Exp(x)
}

// flushF32 converts to float32, flushing values below float32's normal
// range (2⁻¹²⁶ ≈ 1.2e−38) to zero: subnormal float32 weights (softmax of a
// far-off score) would slow every later product that reads them.
func flushF32(x float64) float32 {
	if x < 0x1p-126 && x > -0x1p-126 {
		return 0
	}
	return float32(x)
}

// LogSoftmax returns the row-wise log-softmax.
func (t *Tape) LogSoftmax(x *Var) *Var {
	out := t.newVar(x.Value.Rows, x.Value.Cols)
	c := x.Value.Cols
	tensor.Parallel(x.Value.Rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			logSoftmaxRow(out.Value.Data[i*c:(i+1)*c], x.Value.Data[i*c:(i+1)*c])
		}
	})
	t.record(out, func() {
		g := out.grad
		if g == nil {
			return
		}
		gx := t.gradOf(x)
		tensor.Parallel(x.Value.Rows, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				gi, yi, gxi := g.Row(i), out.Value.Row(i), gx.Row(i)
				var s float64
				for _, v := range gi {
					s += float64(v)
				}
				for j := range gi {
					gxi[j] += gi[j] - flushF32(expNormal(float64(yi[j]))*s)
				}
			}
		})
	}, x)
	return out
}

func logSoftmaxRow(o, x []float32) {
	m := x[0]
	for _, v := range x[1:] {
		m = max(m, v)
	}
	var s float64
	for _, v := range x {
		s += expNormal(float64(v - m))
	}
	lse := float64(m) + math.Log(s)
	for j, v := range x {
		o[j] = float32(float64(v) - lse)
	}
}

// CrossEntropy returns the mean over idx of −log softmax(logits_i)[labels_i]
// as a 1×1 Var (PyTorch F.cross_entropy on logits[idx]). When it records,
// the forward pass keeps each row's exponentials (as float32, as softmax
// rounds them) and their sum for the backward pass, which then needs no
// exponential: the same bits as computing the softmax again.
func (t *Tape) CrossEntropy(logits *Var, idx []int, labels []int32) *Var {
	out := t.newVar(1, 1)
	if !t.grads || !logits.NeedsGrad() {
		out.Value.Data[0] = float32(CrossEntropyValue(logits.Value, idx, labels))
		return out
	}
	checkLabels(logits.Value, idx, labels)
	ex := t.alloc(len(idx), logits.Value.Cols) // exp(v − max) per row, float32 as softmaxInto keeps it
	sums := make([]float64, len(idx))
	loss := crossEntropyTerms(logits.Value, idx, labels, ex, sums)
	out.Value.Data[0] = float32(loss)
	t.record(out, func() {
		if out.grad == nil {
			return
		}
		scale := float64(out.grad.Data[0]) / float64(len(idx))
		gx := t.gradOf(logits)
		bwd := func(lo, hi int) {
			for r := lo; r < hi; r++ {
				i := idx[r]
				er, s := ex.Row(r), sums[r]
				gi := gx.Row(i)
				for j := range gi {
					d := float64(flushF32(float64(er[j]) / s)) // softmaxInto's p_j
					if j == int(labels[i]) {
						d -= 1
					}
					gi[j] += float32(d * scale)
				}
			}
		}
		// Rows are independent: split them over goroutines when there
		// are many and none repeats (a repeated row accumulates twice).
		if len(idx) < parallelLossRows || !distinct(idx, logits.Value.Rows) {
			bwd(0, len(idx))
			return
		}
		tensor.Parallel(len(idx), bwd)
	}, logits)
	return out
}

// checkLabels panics when a label of idx lies outside logits' classes.
func checkLabels(logits *tensor.Dense, idx []int, labels []int32) {
	if len(idx) == 0 {
		panic("autograd.CrossEntropy: empty index set")
	}
	c := logits.Cols
	for _, i := range idx {
		if y := int(labels[i]); y < 0 || y >= c {
			panic(fmt.Sprintf("autograd.CrossEntropy: label %d of node %d outside %d classes", y, i, c))
		}
	}
}

// CrossEntropyValue computes the loss of CrossEntropy without recording.
func CrossEntropyValue(logits *tensor.Dense, idx []int, labels []int32) float64 {
	checkLabels(logits, idx, labels)
	return crossEntropyTerms(logits, idx, labels, nil, nil)
}

// crossEntropyTerms returns the mean over idx of each row's log-sum-exp
// minus its label's logit, the terms summed in row order (in parallel from
// parallelLossRows rows: the same bits). With ex and sums it also keeps row
// r's exponentials exp(v − max) (as float32, as softmaxInto rounds them) in
// ex's row r and their float64 sum in sums[r], for the backward pass.
func crossEntropyTerms(logits *tensor.Dense, idx []int, labels []int32, ex *tensor.Dense, sums []float64) float64 {
	terms := make([]float64, len(idx))
	rows := func(lo, hi int) {
		for r := lo; r < hi; r++ {
			i := idx[r]
			row := logits.Row(i)
			m := row[0]
			for _, v := range row[1:] {
				m = max(m, v)
			}
			var s float64
			for j, v := range row {
				e := expNormal(float64(v - m))
				if ex != nil {
					ex.Data[r*ex.Cols+j] = flushF32(e)
				}
				s += e
			}
			if sums != nil {
				sums[r] = s
			}
			terms[r] = float64(m) + math.Log(s) - float64(row[labels[i]])
		}
	}
	if len(idx) < parallelLossRows {
		rows(0, len(idx))
	} else {
		tensor.Parallel(len(idx), func(lo, hi int) {
			tensor.ClearUpper() // math.Exp is SSE code
			rows(lo, hi)
		})
	}
	var loss float64
	for _, v := range terms {
		loss += v
	}
	return loss / float64(len(idx))
}

// parallelLossRows is the number of rows from which the cross-entropy
// splits its rows over goroutines.
const parallelLossRows = 4096

// distinct reports whether idx (values in [0, n)) has no repeated value.
func distinct(idx []int, n int) bool {
	seen := make([]bool, n)
	for _, i := range idx {
		if seen[i] {
			return false
		}
		seen[i] = true
	}
	return true
}
