package certify

import (
	"bufio"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestClopperPearsonAccuracy compares the Beta quantiles with 50-digit
// values from mpmath (testdata/clopper_pearson_mpmath.py): they must agree
// to a few ulps (gonum's InvRegIncBeta alone is off by up to ~65,000 ulps).
func TestClopperPearsonAccuracy(t *testing.T) {
	f, err := os.Open("testdata/clopper_pearson_mpmath.txt")
	if err != nil {
		t.Skipf("reference values: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	worst, count := 0.0, 0
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 5 {
			continue
		}
		x, _ := strconv.Atoi(fs[1])
		n, _ := strconv.Atoi(fs[2])
		q := 0.05
		if fs[3] == "0.05/7" {
			q = 0.05 / 7
		}
		want, _, err := big.ParseFloat(fs[4], 10, 200, big.ToNearestEven)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := want.Float64()
		var got float64
		if fs[0] == "L" {
			got = cpLower(x, n, q)
		} else {
			got = cpUpper(x, n, q)
		}
		rel := math.Abs(got-w) / w
		worst = max(worst, rel)
		count++
		if rel > 2e-15 {
			t.Errorf("%s bound x=%d n=%d q=%s: %.17g, want %.17g (rel. error %.2g)", fs[0], x, n, fs[3], got, w, rel)
		}
	}
	if count < 50 {
		t.Fatalf("only %d reference values read", count)
	}
	t.Logf("%d quantiles, worst relative error %.2g", count, worst)
}

func TestClopperPearsonEdges(t *testing.T) {
	lo, up, err := ClopperPearson(0, 100, 0.1)
	if err != nil || lo != 0 || !(up > 0 && up < 1) {
		t.Errorf("x=0: %v %v %v", lo, up, err)
	}
	lo, up, err = ClopperPearson(100, 100, 0.1)
	if err != nil || up != 1 || !(lo > 0 && lo < 1) {
		t.Errorf("x=n: %v %v %v", lo, up, err)
	}
	// x = n: lower = (α/2)^(1/n); x = 0: upper = 1 − (α/2)^(1/n).
	if math.Abs(lo-math.Pow(0.05, 0.01)) > 1e-15 {
		t.Errorf("lower(100/100) = %v, want %v", lo, math.Pow(0.05, 0.01))
	}
	for _, bad := range [][3]float64{{-1, 10, 0.1}, {11, 10, 0.1}, {1, 0, 0.1}, {1, 10, 0}, {1, 10, 1}, {1, 10, math.NaN()}} {
		if _, _, err := ClopperPearson(int(bad[0]), int(bad[1]), bad[2]); err == nil {
			t.Errorf("ClopperPearson%v: no error", bad)
		}
	}
}

// rhoBig is compute_rho_for_many evaluated entirely at Precision bits.
func rhoBig(r *Regions, p float64, reverse bool) float64 {
	n := len(r.px)
	order := make([]int, n)
	for i := range order {
		order[i] = i
		if reverse {
			order[i] = n - 1 - i
		}
	}
	cum := []*big.Float{newBig()}
	cumT := []*big.Float{newBig()}
	for _, i := range order {
		cum = append(cum, newBig().Add(cum[len(cum)-1], r.px[i]))
		cumT = append(cumT, newBig().Add(cumT[len(cumT)-1], r.pxt[i]))
	}
	pb := newBig().SetFloat64(p)
	is := 0
	for k := range cum {
		if cum[k].Cmp(pb) >= 0 {
			is = k
			break
		}
	}
	h := max(is-1, 0)
	acc := newBig().Set(cumT[h])
	if d := newBig().Sub(pb, cum[h]); d.Sign() > 0 && h < n {
		d.Mul(d, r.pxt[order[h]])
		d.Quo(d, r.px[order[h]])
		acc.Add(acc, d)
	}
	f, _ := acc.Float64()
	return f
}

// TestRhoExact checks that the double-double evaluation of ρ rounds to the
// same float64 as a full 1000-bit evaluation.
func TestRhoExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	total, offByOne := 0, 0
	cases := []struct {
		ra, rd        int
		pPlus, pMinus float64
	}{
		{1, 1, 0.001, 0.4}, {2, 3, 0.001, 0.4}, {0, 5, 0.001, 0.4}, {3, 0, 0.001, 0.4}, {1, 8, 0.001, 0.4},
		{0, 4, 0, 0.4}, {0, 1, 0, 0.4}, {2, 0, 0.001, 0}, {1, 1, 0.01, 0.6}, {3, 7, 0.01, 0.6},
		{2, 2, 0.7, 0.6}, // p₊+p₋ > 1: rows reversed
	}
	for _, tc := range cases {
		r, err := NewRegions(tc.ra, tc.rd, tc.pPlus, tc.pMinus)
		if err != nil {
			t.Fatal(err)
		}
		ps := []float64{0, 1, 0.5, 1e-250}
		for _, c := range r.fwdPX {
			ps = append(ps, c.hi, math.Nextafter(c.hi, 0), math.Nextafter(c.hi, 2))
		}
		for range 800 {
			ps = append(ps, rng.Float64(), math.Pow(rng.Float64(), 8), 1-math.Pow(rng.Float64(), 8))
		}
		for _, p := range ps {
			if p > 0 && p < 1e-280 || p > 1 {
				continue // subnormals lose bits in double-double; p > 1 is no probability
			}
			for _, rev := range []bool{false, true} {
				got, want := r.Rho(p, rev), rhoBig(r, p, rev)
				total++
				if got == want || math.IsNaN(got) && math.IsNaN(want) {
					continue
				}
				if math.Nextafter(got, want) != want {
					t.Fatalf("regions(%d, %d, %v, %v).Rho(%v, %v) = %.17g, want %.17g", tc.ra, tc.rd, tc.pPlus, tc.pMinus, p, rev, got, want)
				}
				offByOne++
			}
		}
	}
	t.Logf("%d of %d values differ by one ulp (exact ties decided by 1000-bit rounding noise)", offByOne, total)
	if offByOne*1000 > total {
		t.Errorf("too many one-ulp differences: %d of %d", offByOne, total)
	}
}

func TestRegionsSumToOne(t *testing.T) {
	for _, tc := range [][4]float64{{1, 1, 0.001, 0.4}, {10, 20, 0.001, 0.4}, {0, 30, 0, 0.4}, {5, 0, 0.01, 0}, {4, 4, 0.7, 0.6}} {
		r, err := NewRegions(int(tc[0]), int(tc[1]), tc[2], tc[3])
		if err != nil {
			t.Fatal(err)
		}
		n := len(r.Rows)
		if s := r.fwdPX[n].hi; math.Abs(s-1) > 1e-15 {
			t.Errorf("regions%v: clean mass sums to %v", tc, s)
		}
		if s := r.fwdPXT[n].hi; math.Abs(s-1) > 1e-15 {
			t.Errorf("regions%v: perturbed mass sums to %v", tc, s)
		}
		for i := 1; i < n; i++ {
			if r.Rows[i].Ratio > r.Rows[i-1].Ratio {
				t.Errorf("regions%v: ratio not decreasing at row %d", tc, i)
			}
		}
	}
	for _, bad := range [][4]float64{{-1, 0, 0.1, 0.1}, {1, 1, 0, 0}, {1, 1, 1.5, 0}, {1, 1, 0.1, math.NaN()}, {1, 1, 1, 0.2}} {
		if _, err := NewRegions(int(bad[0]), int(bad[1]), bad[2], bad[3]); err == nil {
			t.Errorf("NewRegions%v: no error", bad)
		}
	}
}

func TestTopTwoTies(t *testing.T) {
	tests := []struct {
		row         []int64
		top, ru, am int
	}{
		{[]int64{5, 3, 1}, 0, 1, 0},
		{[]int64{5, 5, 1}, 1, 0, 0},
		{[]int64{1, 5, 5, 5}, 3, 2, 1},
		{[]int64{0, 0, 0}, 2, 1, 0},
		{[]int64{2, 7, 3, 3}, 1, 3, 1},
		{[]int64{9, 1, 1, 1}, 0, 3, 0},
	}
	for _, tc := range tests {
		c := &Counts{Nodes: 1, Classes: len(tc.row), Data: tc.row}
		top, ru := c.TopTwo(0)
		if top != tc.top || ru != tc.ru || c.Argmax(0) != tc.am {
			t.Errorf("%v: top %d, runner-up %d, argmax %d; want %d, %d, %d", tc.row, top, ru, c.Argmax(0), tc.top, tc.ru, tc.am)
		}
	}
}
