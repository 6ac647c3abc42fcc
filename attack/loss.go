package attack

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/rgnn/rgnn/tensor"
)

// Loss is an attack objective on the logits (or log-probabilities) of the
// target nodes idx with true labels; the attacker MAXIMISES it. It returns
// the loss and writes ∂loss/∂logits into grad (same shape as logits; rows
// outside idx are zeroed). The names and definitions follow the reference
// (rgnn_at_scale base_attack.calculate_loss); margins are invariant to a
// log-softmax, so logits and log-probabilities give the same margin losses.
type Loss func(logits *tensor.Dense, idx []int, labels []int32, grad *tensor.Dense) float64

var losses = map[string]Loss{
	"ce":          ceLoss,
	"mce":         mceLoss,
	"margin":      marginLoss,
	"tanh_margin": tanhMarginLoss,
	"cw":          cwLoss,
}

// LossNames lists the losses.
func LossNames() []string {
	out := make([]string, 0, len(losses))
	for n := range losses {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// LossByName returns a loss: ce, mce, margin, tanh_margin or cw.
func LossByName(name string) (Loss, error) {
	l, ok := losses[strings.ToLower(name)]
	if !ok {
		return nil, fmt.Errorf("unknown loss %q (known: %s)", name, strings.Join(LossNames(), ", "))
	}
	return l, nil
}

// softmaxRow writes the softmax of x into p (float64) and returns log Σ exp.
func softmaxRow(p []float64, x []float32) float64 {
	mx := math.Inf(-1)
	for _, v := range x {
		mx = math.Max(mx, float64(v))
	}
	s := 0.0
	for j, v := range x {
		p[j] = math.Exp(float64(v) - mx)
		s += p[j]
	}
	for j := range p {
		p[j] /= s
	}
	return mx + math.Log(s)
}

// ceOn is the mean cross entropy over the nodes of idx with keep(i) true.
func ceOn(logits *tensor.Dense, idx []int, labels []int32, grad *tensor.Dense, keep func(i int) bool) float64 {
	grad.Zero()
	c := logits.Cols
	p := make([]float64, c)
	var sel []int
	for _, i := range idx {
		if keep == nil || keep(i) {
			sel = append(sel, i)
		}
	}
	if len(sel) == 0 {
		return 0
	}
	inv := 1 / float64(len(sel))
	loss := 0.0
	for _, i := range sel {
		row := logits.Row(i)
		lse := softmaxRow(p, row)
		y := int(labels[i])
		loss += lse - float64(row[y])
		g := grad.Row(i)
		for j := range g {
			d := p[j]
			if j == y {
				d--
			}
			g[j] = float32(d * inv)
		}
	}
	return loss * inv
}

func ceLoss(logits *tensor.Dense, idx []int, labels []int32, grad *tensor.Dense) float64 {
	return ceOn(logits, idx, labels, grad, nil)
}

// mceLoss is the cross entropy on the targets that are still classified
// correctly ('MCE').
func mceLoss(logits *tensor.Dense, idx []int, labels []int32, grad *tensor.Dense) float64 {
	return ceOn(logits, idx, labels, grad, func(i int) bool { return logits.ArgmaxRow(i) == int(labels[i]) })
}

// margin returns z_y − max_{c≠y} z_c and the best other class.
func margin(row []float32, y int) (float64, int) {
	best := -1
	for j, v := range row {
		if j != y && (best < 0 || v > row[best]) {
			best = j
		}
	}
	return float64(row[y]) - float64(row[best]), best
}

// marginGeneric computes mean f(margin) and its gradient.
func marginGeneric(logits *tensor.Dense, idx []int, labels []int32, grad *tensor.Dense, f func(m float64) (v, d float64)) float64 {
	grad.Zero()
	if len(idx) == 0 {
		return 0
	}
	inv := 1 / float64(len(idx))
	loss := 0.0
	for _, i := range idx {
		y := int(labels[i])
		m, b := margin(logits.Row(i), y)
		v, d := f(m)
		loss += v
		g := grad.Row(i)
		g[y] += float32(d * inv)
		g[b] -= float32(d * inv)
	}
	return loss * inv
}

// marginLoss is −mean(margin) ('Margin').
func marginLoss(logits *tensor.Dense, idx []int, labels []int32, grad *tensor.Dense) float64 {
	return marginGeneric(logits, idx, labels, grad, func(m float64) (float64, float64) { return -m, -1 })
}

// tanhMarginLoss is mean tanh(−margin) ('tanhMargin', PR-BCD's default).
func tanhMarginLoss(logits *tensor.Dense, idx []int, labels []int32, grad *tensor.Dense) float64 {
	return marginGeneric(logits, idx, labels, grad, func(m float64) (float64, float64) {
		t := math.Tanh(-m)
		return t, -(1 - t*t)
	})
}

// cwLoss is −mean(max(margin, 0)) (Carlini–Wagner, 'CW'): only targets that
// are still correct push.
func cwLoss(logits *tensor.Dense, idx []int, labels []int32, grad *tensor.Dense) float64 {
	return marginGeneric(logits, idx, labels, grad, func(m float64) (float64, float64) {
		if m > 0 {
			return -m, -1
		}
		return 0, 0
	})
}
