package aggregate

import (
	"encoding/json"
	"math"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/tensor"
)

func dense(rows [][]float64) *tensor.Dense {
	d := tensor.NewDense(len(rows), len(rows[0]))
	for i, r := range rows {
		for j, v := range r {
			d.Set(i, j, float32(v))
		}
	}
	return d
}

func run(t *testing.T, agg Aggregator, a *tensor.CSR, x *tensor.Dense) *tensor.Dense {
	t.Helper()
	out := tensor.NewDense(a.Rows, x.Cols)
	agg.Forward(a, x, out)
	return out
}

// TestNumericAnchors reproduces every aggregation value of
// numeric_anchors.json to 1e-5 relative.
func TestNumericAnchors(t *testing.T) {
	raw, err := os.ReadFile(fixture.Reference(t, "numeric_anchors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var anchors map[string]json.RawMessage
	if err := json.Unmarshal(raw, &anchors); err != nil {
		t.Fatal(err)
	}
	var A [][]float64
	json.Unmarshal(anchors["A"], &A)
	xs := map[string]*tensor.Dense{}
	for _, name := range []string{"X_big", "X_small"} {
		var x [][]float64
		json.Unmarshal(anchors[name], &x)
		xs[name] = dense(x)
	}
	a := tensor.DenseToCSR(dense(A))
	re := regexp.MustCompile(`^(\w+)\[(X_\w+)(?:,k=(\d+))?(?:,T=([\d.e+-]+))?\]$`)
	checked := 0
	for key, val := range anchors {
		m := re.FindStringSubmatch(key)
		if m == nil {
			continue
		}
		var want [][]float64
		if err := json.Unmarshal(val, &want); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		o := Options{}
		if m[3] != "" {
			o.K, _ = strconv.Atoi(m[3])
		}
		if m[4] != "" {
			o.Temperature, _ = strconv.ParseFloat(m[4], 64)
		}
		name := map[string]string{"soft_k_medoid": "soft_k_medoid", "medoid_k": "k_medoid", "dimmedian": "dimmedian",
			"soft_median": "soft_median", "weighted_sum_AX": "sum"}[m[1]]
		if name == "" {
			t.Errorf("%s: unknown aggregation", key)
			continue
		}
		agg, err := New(name, o)
		if err != nil {
			t.Fatal(err)
		}
		got := run(t, agg, a, xs[m[2]])
		for i, row := range want {
			for j, w := range row {
				g := float64(got.At(i, j))
				if math.Abs(g-w) > 1e-5*math.Max(1, math.Abs(w)) {
					t.Errorf("%s: out[%d][%d] = %.9g, want %.9g", key, i, j, g, w)
				}
			}
		}
		checked++
	}
	if checked < 40 {
		t.Errorf("only %d anchors checked", checked)
	}
	t.Logf("%d anchors reproduced", checked)
}
