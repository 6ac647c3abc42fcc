package certplot

import (
	"os"
	"testing"

	"github.com/rgnn/rgnn/certify"
)

func TestPlots(t *testing.T) {
	m := certify.Metrics{Ratio: [][]float64{{0.8, 0.6, 0.3, 0}, {0.2, 0.1, 0, 0}, {0, 0, 0, 0}}}
	p, err := RatioOverRadius(m, "test")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths, err := Save(p, dir, "ratio")
	if err != nil {
		t.Fatal(err)
	}
	bins := []certify.DegreeBin{{MinDegree: 1, MaxDegree: 1}, {MinDegree: 2, MaxDegree: 5}}
	bins[0].Nodes, bins[0].AccumulatedCertifications = 10, 0.5
	bins[1].Nodes, bins[1].AccumulatedCertifications = 12, 1.5
	d, err := AccumulatedOverDegree(bins, "test")
	if err != nil {
		t.Fatal(err)
	}
	more, err := Save(d, dir, "degree")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(paths, more...) {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := RatioOverRadius(certify.Metrics{}, ""); err == nil {
		t.Error("empty grid: no error")
	}
	if _, err := AccumulatedOverDegree(nil, ""); err == nil {
		t.Error("no bins: no error")
	}
}
