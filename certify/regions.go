package certify

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"sync"
)

// Precision is the number of mantissa bits of the region arithmetic (the
// reference uses gmpy2 with 1000 bits: the alternating recursion for the
// region masses cancels catastrophically in float64).
const Precision = 1000

// Region is one region of constant likelihood ratio between the smoothing
// distribution around the clean input x and around a perturbed input x̃
// (ra additions, rd deletions away from x).
type Region struct {
	PX      float64 // probability mass of the region under the clean distribution
	PXTilde float64 // its mass under the perturbed distribution
	Ratio   float64 // PX / PXTilde (+Inf where PXTilde = 0)
}

// Regions are the regions of one radius pair (RA, RD), in decreasing order
// of Ratio, with the cumulative sums the worst-case computation needs.
type Regions struct {
	RA, RD int
	Rows   []Region

	// Exact values (Precision bits), their double-double forms, and the
	// cumulative sums with a leading 0 in the given order (fwd) and in
	// reverse order (rev), as double-doubles.
	px, pxt                      []*big.Float
	ddPX, ddPXT                  []dd
	fwdPX, fwdPXT, revPX, revPXT []dd
}

func newBig() *big.Float { return new(big.Float).SetPrec(Precision) }

func bigFloat(v float64) *big.Float { return newBig().SetFloat64(v) }

// powInt returns x^e at Precision bits (e may be negative).
func powInt(x *big.Float, e int) *big.Float {
	neg := e < 0
	if neg {
		e = -e
	}
	r := bigFloat(1)
	b := newBig().Set(x)
	for e > 0 {
		if e&1 == 1 {
			r.Mul(r, b)
		}
		e >>= 1
		if e > 0 {
			b.Mul(b, b)
		}
	}
	if neg {
		r.Quo(bigFloat(1), r)
	}
	return r
}

// checkProbs validates a pair of flip probabilities: [0, 1), the range of
// the specs (task.Certify), whose check is the user-facing one.
func checkProbs(pPlus, pMinus float64) error {
	if !(pPlus >= 0 && pPlus < 1) || !(pMinus >= 0 && pMinus < 1) {
		return fmt.Errorf("flip probabilities p+=%v, p-=%v must lie in [0, 1)", pPlus, pMinus)
	}
	if pPlus == 0 && pMinus == 0 {
		return fmt.Errorf("flip probabilities p+ = p- = 0: no smoothing, nothing to certify")
	}
	if pPlus == 1 || pMinus == 1 {
		return fmt.Errorf("flip probabilities p+=%v, p-=%v: 1 destroys the input, nothing to certify", pPlus, pMinus)
	}
	return nil
}

// NewRegions computes the regions for ra additions and rd deletions under
// flip probabilities pPlus (0→1) and pMinus (1→0), as sparse_smoothing's
// regions_binary: with Q = ra+rd, T_i = ra·(p₊/(1−p₊))^i + rd·(p₋/(1−p₋))^i,
// P_0 = 1, P_q = (1/q)·Σ_{i=1..q} (−1)^{i+1} T_i P_{q−i},
// px_q = P_q·(1−p₊)^ra·(1−p₋)^rd, ratio_q = (p₊/(1−p₋))^{q−rd}·(p₋/(1−p₊))^{q−ra},
// px̃_q = px_q/ratio_q; rows reversed if p₊+p₋ > 1 (ratio stays decreasing).
// The special cases p₊ = 0 and p₋ = 0 have three rows (see the package doc).
// Arithmetic is at Precision bits; the inputs are taken as exact doubles.
func NewRegions(ra, rd int, pPlus, pMinus float64) (*Regions, error) {
	if ra < 0 || rd < 0 {
		return nil, fmt.Errorf("regions: negative radius (ra=%d, rd=%d)", ra, rd)
	}
	if err := checkProbs(pPlus, pMinus); err != nil {
		return nil, fmt.Errorf("regions: %w", err)
	}
	pp, pm := bigFloat(pPlus), bigFloat(pMinus)
	one := bigFloat(1)
	var px, pxt, ratio []*big.Float
	inf := new(big.Float).SetInf(false)
	special := func(a, b *big.Float) {
		// rows [1−a, 0, ∞], [a, b, a/b], [0, 1−b, 0]
		px = []*big.Float{newBig().Sub(one, a), a, newBig()}
		pxt = []*big.Float{newBig(), b, newBig().Sub(one, b)}
		ratio = []*big.Float{inf, newBig().Quo(a, b), newBig()}
	}
	switch {
	case pPlus == 0:
		special(powInt(pm, rd), powInt(pm, ra))
	case pMinus == 0:
		special(powInt(pp, ra), powInt(pp, rd))
	default:
		q := ra + rd
		a := newBig().Quo(pp, newBig().Sub(one, pp))
		b := newBig().Quo(pm, newBig().Sub(one, pm))
		t := make([]*big.Float, q+1)
		for i := range t {
			x := newBig().Mul(bigFloat(float64(ra)), powInt(a, i))
			t[i] = x.Add(x, newBig().Mul(bigFloat(float64(rd)), powInt(b, i)))
		}
		r1 := newBig().Quo(pp, newBig().Sub(one, pm))
		r2 := newBig().Quo(pm, newBig().Sub(one, pp))
		px = make([]*big.Float, q+1)
		ratio = make([]*big.Float, q+1)
		px[0] = bigFloat(1)
		for k := 0; k <= q; k++ {
			ratio[k] = newBig().Mul(powInt(r1, k-rd), powInt(r2, k-ra))
			if k == 0 {
				continue
			}
			s := newBig()
			for i := 1; i <= k; i++ {
				term := newBig().Mul(t[i], px[k-i])
				if i%2 == 1 {
					s.Add(s, term)
				} else {
					s.Sub(s, term)
				}
			}
			px[k] = s.Quo(s, bigFloat(float64(k)))
		}
		scale := newBig().Mul(powInt(newBig().Sub(one, pp), ra), powInt(newBig().Sub(one, pm), rd))
		pxt = make([]*big.Float, q+1)
		for k := range px {
			px[k].Mul(px[k], scale)
			pxt[k] = newBig().Quo(px[k], ratio[k])
		}
		if newBig().Add(pp, pm).Cmp(one) > 0 {
			for i, j := 0, q; i < j; i, j = i+1, j-1 {
				px[i], px[j] = px[j], px[i]
				pxt[i], pxt[j] = pxt[j], pxt[i]
				ratio[i], ratio[j] = ratio[j], ratio[i]
			}
		}
	}
	return newRegionsFrom(ra, rd, px, pxt, ratio), nil
}

func newRegionsFrom(ra, rd int, px, pxt, ratio []*big.Float) *Regions {
	n := len(px)
	r := &Regions{RA: ra, RD: rd, Rows: make([]Region, n), px: px, pxt: pxt,
		ddPX: make([]dd, n), ddPXT: make([]dd, n)}
	for i := range px {
		r.ddPX[i] = toDD(px[i])
		r.ddPXT[i] = toDD(pxt[i])
		r.Rows[i].PX = r.ddPX[i].hi
		r.Rows[i].PXTilde = r.ddPXT[i].hi
		r.Rows[i].Ratio, _ = ratio[i].Float64()
	}
	r.fwdPX, r.fwdPXT = cumsumDD(px, false), cumsumDD(pxt, false)
	r.revPX, r.revPXT = cumsumDD(px, true), cumsumDD(pxt, true)
	return r
}

// toDD splits x into hi = float64(x) and lo = float64(x − hi).
func toDD(x *big.Float) dd {
	hi, _ := x.Float64()
	if math.IsInf(hi, 0) {
		return dd{hi, 0}
	}
	lo, _ := newBig().Sub(x, new(big.Float).SetFloat64(hi)).Float64()
	return dd{hi, lo}
}

// cumsumDD returns [0, v0, v0+v1, ...] (reversed order if rev), summed at
// Precision bits.
func cumsumDD(v []*big.Float, rev bool) []dd {
	out := make([]dd, len(v)+1)
	acc := newBig()
	for k := range v {
		i := k
		if rev {
			i = len(v) - 1 - k
		}
		acc.Add(acc, v[i])
		out[k+1] = toDD(acc)
	}
	return out
}

// Rho returns the worst-case probability, over all inputs x̃ at radius
// (RA, RD), of the class whose probability at x is p: a lower bound on
// it (reverse = false) or, for the runner-up class, an upper bound
// (reverse = true: regions taken in increasing order of the ratio). It
// follows sparse_smoothing's compute_rho_for_many: with a zero row
// prepended and C, C̃ the cumulative clean and perturbed masses, i* is the
// first index with C[i*] ≥ p (0 if none), h = max(i*−1, 0) and
// ρ = C̃[h] + (p − C[h])·px̃_h/px_h, the last term only if p > C[h] and
// region h exists. The reference evaluates this at 1000 bits and rounds the
// result to float64 (cert_anchors.txt pins that down: at 53 bits several
// anchors differ in the last digits); here the 1000-bit region values enter
// as double-doubles and the result is rounded once at the end.
func (r *Regions) Rho(p float64, reverse bool) float64 {
	cpx, cpxt := r.fwdPX, r.fwdPXT
	if reverse {
		cpx, cpxt = r.revPX, r.revPXT
	}
	n := len(r.Rows)
	i := sort.Search(n+1, func(k int) bool { return cpx[k].geq(p) })
	if i > n {
		i = 0
	}
	h := max(i-1, 0)
	acc := cpxt[h]
	if d := (dd{p, 0}).sub(cpx[h]); d.hi > 0 && h < n {
		row := h
		if reverse {
			row = n - 1 - h
		}
		acc = acc.add(d.mul(r.ddPXT[row]).div(r.ddPX[row]))
	}
	return acc.hi
}

// rhoScalar is sparse_smoothing's compute_rho (used only to size the grid):
// walk the regions in order, stop before the region whose clean mass would
// reach p, skip regions without clean mass, and add the remaining mass at
// that region's ratio. All at Precision bits.
func (r *Regions) rhoScalar(p float64) *big.Float {
	accC, accA, tmp := newBig(), newBig(), newBig()
	pb := newBig().SetFloat64(p)
	i := 0
	for i = range r.px {
		if tmp.Add(accC, r.px[i]).Cmp(pb) >= 0 {
			break
		}
		if r.px[i].Sign() > 0 {
			accC.Add(accC, r.px[i])
			accA.Add(accA, r.pxt[i])
		}
	}
	if d := newBig().Sub(pb, accC); d.Sign() > 0 && i < len(r.px) {
		if r.px[i].Sign() == 0 {
			if r.pxt[i].Sign() == 0 {
				return newBig() // 0/0: treated as no certificate
			}
			return new(big.Float).SetInf(false)
		}
		d.Mul(d, newBig().Quo(r.pxt[i], r.px[i]))
		accA.Add(accA, d)
	}
	return accA
}

// MaxRadius returns the largest radius certifiable for a class with
// probability (lower bound) p along one axis — additions (add = true, rd = 0)
// or deletions (ra = 0) — i.e. the largest r with ρ > 0.5, by the
// reference's bisection (max_radius_for_p_emp): it starts at 1 and so
// returns at least 1, and doubles the initial upper bound 100 when the
// search ends next to it.
func MaxRadius(pPlus, pMinus, p float64, add bool) (int, error) {
	if err := checkProbs(pPlus, pMinus); err != nil {
		return 0, fmt.Errorf("max radius: %w", err)
	}
	return maxRadius(pPlus, pMinus, p, add, 100, nil)
}

func maxRadius(pPlus, pMinus, p float64, add bool, upper int, cache *RegionCache) (int, error) {
	initial := upper
	half := big.NewFloat(0.5)
	lower, r := 1, 1
	for lower < upper {
		r = lower + (upper-lower)/2
		ra, rd := r, 0
		if !add {
			ra, rd = 0, r
		}
		reg, err := cache.get(ra, rd, pPlus, pMinus)
		if err != nil {
			return 0, err
		}
		if reg.rhoScalar(p).Cmp(half) > 0 {
			if lower == r {
				break
			}
			lower = r
		} else {
			upper = r
		}
	}
	if r == initial || r == initial-1 {
		if initial >= 1<<20 {
			return 0, fmt.Errorf("max radius: no bound below %d for p=%v (p+=%v, p-=%v)", initial, p, pPlus, pMinus)
		}
		return maxRadius(pPlus, pMinus, p, add, 2*initial, cache)
	}
	return r, nil
}

// RegionCache memoises regions by (ra, rd, p₊, p₋); they are shared by all
// nodes and all certificates with the same flip probabilities. It is safe
// for concurrent use; the zero value is ready, and a nil cache computes
// without memoising.
type RegionCache struct {
	mu sync.Mutex
	m  map[regionKey]*Regions
}

type regionKey struct {
	ra, rd        int
	pPlus, pMinus float64
}

func (c *RegionCache) get(ra, rd int, pPlus, pMinus float64) (*Regions, error) {
	if c == nil {
		return NewRegions(ra, rd, pPlus, pMinus)
	}
	k := regionKey{ra, rd, pPlus, pMinus}
	c.mu.Lock()
	r, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return r, nil
	}
	r, err := NewRegions(ra, rd, pPlus, pMinus)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[regionKey]*Regions{}
	}
	c.m[k] = r
	c.mu.Unlock()
	return r, nil
}

// Get returns the (memoised) regions for (ra, rd) under (pPlus, pMinus).
func (c *RegionCache) Get(ra, rd int, pPlus, pMinus float64) (*Regions, error) {
	return c.get(ra, rd, pPlus, pMinus)
}
