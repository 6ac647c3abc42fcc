package certify

import (
	"math"
	"testing"
)

// The anchors of shared/reference/cert_anchors.txt (printed by the
// reference implementation), checked to the digits printed there.

func relClose(got, want, tol float64) bool {
	if math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= tol*math.Max(math.Abs(want), 1e-300) || got == want
}

func TestRegionAnchors(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		ra, rd        int
		pPlus, pMinus float64
		want          [][3]float64
		tol           float64 // relative, from the printed digits
	}{
		{1, 1, 0.001, 0.4, [][3]float64{
			{5.9940000000e-01, 4.0000000000e-04, 1.4985000000e+03},
			{4.0020000000e-01, 4.0020000000e-01, 1.0000000000e+00},
			{4.0000000000e-04, 5.9940000000e-01, 6.6733400067e-04}}, 1e-10},
		{2, 0, 0.001, 0.4, [][3]float64{
			{9.9800100000e-01, 1.6000000000e-01, 6.2375062500e+00},
			{1.9980000000e-03, 4.8000000000e-01, 4.1625000000e-03},
			{1.0000000000e-06, 3.6000000000e-01, 2.7777777778e-06}}, 1e-10},
		{0, 3, 0, 0.4, [][3]float64{
			{0.936, 0, inf},
			{0.064, 1, 0.064},
			{0, 0, 0}}, 1e-14},
		{3, 0, 0.001, 0, [][3]float64{
			{9.99999999e-01, 0, inf},
			{1.00000000e-09, 1.00000000e+00, 1.00000000e-09},
			{0, 0, 0}}, 1e-8},
	}
	for _, tc := range tests {
		r, err := NewRegions(tc.ra, tc.rd, tc.pPlus, tc.pMinus)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Rows) != len(tc.want) {
			t.Fatalf("ra=%d rd=%d: %d rows, want %d", tc.ra, tc.rd, len(r.Rows), len(tc.want))
		}
		for i, w := range tc.want {
			g := r.Rows[i]
			for j, v := range [3]float64{g.PX, g.PXTilde, g.Ratio} {
				if !relClose(v, w[j], tc.tol) {
					t.Errorf("regions(ra=%d, rd=%d, p+=%v, p-=%v) row %d col %d = %.12g, want %.12g",
						tc.ra, tc.rd, tc.pPlus, tc.pMinus, i, j, v, w[j])
				}
			}
		}
	}
}

func TestRhoAnchors(t *testing.T) {
	tests := []struct {
		ra, rd int
		p      float64
		want   float64
	}{
		{1, 1, 0.6, 0.001},
		{2, 3, 0.6, 4.277340006673341e-07},
		{1, 1, 0.8, 0.20100000000000007},
		{2, 3, 0.8, 0.00025525313333333346},
		{1, 1, 0.9, 0.30100000000000005},
		{2, 3, 0.9, 0.0004219198000000001},
		{1, 1, 0.99, 0.391},
		{2, 3, 0.99, 0.1367848792},
	}
	for _, tc := range tests {
		r, err := NewRegions(tc.ra, tc.rd, 0.001, 0.4)
		if err != nil {
			t.Fatal(err)
		}
		tol := 0.0
		if tc.want == 0.1367848792 {
			tol = 1e-9 // printed with 10 digits
		}
		sc, _ := r.rhoScalar(tc.p).Float64()
		for _, got := range []float64{r.Rho(tc.p, false), sc} {
			if !relClose(got, tc.want, tol) {
				t.Errorf("rho(ra=%d, rd=%d, p=%v) = %.17g, want %.17g", tc.ra, tc.rd, tc.p, got, tc.want)
			}
		}
	}
}

func TestMaxRadiusAnchors(t *testing.T) {
	tests := []struct {
		pPlus, pMinus, p float64
		ra, rd           int // 0: not printed by the reference
	}{
		{0.001, 0.4, 0.6, 1, 1}, {0.001, 0.4, 0.8, 1, 1}, {0.001, 0.4, 0.9, 1, 1}, {0.001, 0.4, 0.99, 1, 4},
		{0.001, 0, 0.6, 1, 0}, {0.001, 0, 0.8, 1, 0}, {0.001, 0, 0.9, 1, 0}, {0.001, 0, 0.99, 1, 0},
		{0, 0.4, 0.6, 0, 1}, {0, 0.4, 0.8, 0, 1}, {0, 0.4, 0.9, 0, 1}, {0, 0.4, 0.99, 0, 4},
		{0.01, 0.6, 0.6, 1, 1}, {0.01, 0.6, 0.8, 1, 1}, {0.01, 0.6, 0.9, 1, 3}, {0.01, 0.6, 0.99, 3, 7},
	}
	for _, tc := range tests {
		for _, add := range []bool{true, false} {
			want := tc.rd
			if add {
				want = tc.ra
			}
			if want == 0 {
				continue
			}
			got, err := MaxRadius(tc.pPlus, tc.pMinus, tc.p, add)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("max radius (p+=%v, p-=%v, p=%v, add=%v) = %d, want %d", tc.pPlus, tc.pMinus, tc.p, add, got, want)
			}
		}
	}
}

func TestClopperPearsonAnchors(t *testing.T) {
	// Binary certificate: proportion_confint(alpha=2·0.05)[0].
	for _, tc := range []struct {
		x    int
		want float64
	}{{5000, 0.4917265044}, {9000, 0.8949288834}, {9900, 0.9882027660}, {10000, 0.9997004716}} {
		lo, _, err := ClopperPearson(tc.x, 10000, 2*0.05)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(lo-tc.want) > 5e-11 {
			t.Errorf("p_lower(%d/10000) = %.12f, want %.10f", tc.x, lo, tc.want)
		}
	}
	// Multi-class (Bonferroni, 7 classes): alpha = 2·0.05/7.
	for _, tc := range []struct {
		best, second int
		lo, up       float64
	}{{9000, 900, 0.8924251707, 0.0972409136}, {6000, 3500, 0.5879059999, 0.3617991746}} {
		lo, _, err := ClopperPearson(tc.best, 10000, 2*0.05/7)
		if err != nil {
			t.Fatal(err)
		}
		_, up, err := ClopperPearson(tc.second, 10000, 2*0.05/7)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(lo-tc.lo) > 5e-11 || math.Abs(up-tc.up) > 5e-11 {
			t.Errorf("bounds(%d, %d) = %.12f, %.12f; want %.10f, %.10f", tc.best, tc.second, lo, up, tc.lo, tc.up)
		}
	}
}

// TestToyCertificateAnchor is cert_anchors.txt's binary_certificate example:
// six nodes, pre-votes = votes/100, n = 10,000, α = 0.05, p₊ = 0.001, p₋ = 0.4.
func TestToyCertificateAnchor(t *testing.T) {
	rows := [][]int64{{9990, 5, 5}, {9000, 900, 100}, {7000, 2900, 100}, {5200, 4700, 100}, {100, 9800, 100}, {3400, 3300, 3300}}
	votes, pre := NewCounts(6, 3), NewCounts(6, 3)
	for i, r := range rows {
		for c, x := range r {
			votes.Data[i*3+c] = x
			pre.Data[i*3+c] = x / 100
		}
	}
	c, err := Compute(votes, pre, Params{PPlus: 0.001, PMinus: 0.4, Alpha: 0.05, NumSamples: 10000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if nra, nrd := c.GridShape(); nra != 3 || nrd != 8 {
		t.Fatalf("grid shape (6, %d, %d), want (6, 3, 8)", nra, nrd)
	}
	wantCells := []int{6, 1, 0, 0, 3, 0}
	wantRD := []int{6, 1, 0, 0, 3, 0}
	labels := make([]int32, 6)
	nodes := make([]int, 6)
	for i := range 6 {
		cells := 0
		for ra := range 3 {
			for rd := range 8 {
				if c.Certified(i, ra, rd) {
					cells++
				}
			}
		}
		ra, rd := c.Radius(i)
		if cells != wantCells[i] || ra != 0 || rd != wantRD[i] {
			t.Errorf("node %d: %d certified cells, radii (%d, %d); want %d, (0, %d)", i, cells, ra, rd, wantCells[i], wantRD[i])
		}
		labels[i] = int32(c.Pred[i])
		nodes[i] = i
	}
	m, err := c.Metrics(labels, nodes)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(m.AccumulatedCertifications-1.6666666666666665) > 1e-15 {
		t.Errorf("accumulated certifications %.17g, want 1.6666666666666665", m.AccumulatedCertifications)
	}
}
