package certify

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/npz"
)

// expectedCert is one entry of expected_certification_cora_ml.json.
type expectedCert struct {
	Label        string       `json:"label"`
	Seed         int          `json:"seed"`
	SampleParams SampleParams `json:"sample_params"`
	AccumCerts   float64      `json:"accum_certs"`
	SmoothedAcc  float64      `json:"smoothed_clean_acc"`
	GridShape    []int        `json:"grid_shape"`
	AvgRA        float64      `json:"avg_cert_radius_ra(rd=0)"`
	AvgRD        float64      `json:"avg_cert_radius_rd(ra=0)"`
	File         string       `json:"file"`
}

func loadExpected(t testing.TB) []expectedCert {
	t.Helper()
	b, err := os.ReadFile(fixture.Reference(t, "expected_certification_cora_ml.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp []expectedCert
	if err := json.Unmarshal(b, &exp); err != nil {
		t.Fatal(err)
	}
	return exp
}

// referenceSplits returns labels_lcc and the test indices per split seed.
func referenceSplits(t testing.TB) ([]int32, map[int][]int) {
	t.Helper()
	a, err := npz.Open(fixture.Reference(t, "splits_cora_ml.npz"))
	if err != nil {
		t.Fatal(err)
	}
	lab, _, err := a.Int64("labels_lcc")
	if err != nil {
		t.Fatal(err)
	}
	labels := make([]int32, len(lab))
	for i, v := range lab {
		labels[i] = int32(v)
	}
	tests := map[int][]int{}
	for _, s := range []int{0, 1, 5} {
		idx, _, err := a.Int64(fmt.Sprintf("idx_test_s%d", s))
		if err != nil {
			t.Fatal(err)
		}
		tests[s] = make([]int, len(idx))
		for i, v := range idx {
			tests[s][i] = int(v)
		}
	}
	return labels, tests
}

// TestReferenceVoteFiles recomputes the certificate of every reference vote
// file and compares it with expected_certification_cora_ml.json.
func TestReferenceVoteFiles(t *testing.T) {
	exp := loadExpected(t)
	labels, tests := referenceSplits(t)
	dir := fixture.Reference(t, "smoothing_votes")
	cache := new(RegionCache)
	matched := 0
	worst := 0.0
	for _, e := range exp {
		t.Run(e.File, func(t *testing.T) {
			path := fixture.Reference(t, filepath.Join(filepath.Base(dir), e.File))
			vf, err := LoadVotes(path)
			if err != nil {
				t.Fatal(err)
			}
			if e.SampleParams.PPlusAtt != 0 || e.SampleParams.PMinusAtt != 0 {
				t.Skip("attribute smoothing not covered")
			}
			c, err := Compute(vf.Votes, vf.PreVotes, Params{PPlus: e.SampleParams.PPlusAdj,
				PMinus: e.SampleParams.PMinusAdj, Alpha: 0.05, NumSamples: 10000}, cache)
			if err != nil {
				t.Fatal(err)
			}
			nra, nrd := c.GridShape()
			if got := []int{c.Nodes, nra, nrd}; fmt.Sprint(got) != fmt.Sprint(e.GridShape) {
				t.Errorf("grid shape %v, want %v", got, e.GridShape)
			}
			// Certificates are monotone: robust at (ra, rd) ⇒ robust at the
			// smaller radii (except (0, 0), which is never "certified").
			smallerOK := func(v, ra, rd int) bool { return ra < 0 || rd < 0 || ra+rd == 0 || c.Certified(v, ra, rd) }
			for v := range c.Nodes {
				for ra := range nra {
					for rd := range nrd {
						if c.Certified(v, ra, rd) && !(smallerOK(v, ra-1, rd) && smallerOK(v, ra, rd-1)) {
							t.Fatalf("node %d certified at (%d, %d) but not at a smaller radius", v, ra, rd)
						}
					}
				}
			}
			test, ok := tests[e.Seed]
			if !ok {
				t.Fatalf("no split for seed %d", e.Seed)
			}
			m, err := c.Metrics(labels, test)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []struct {
				name      string
				got, want float64
			}{
				{"accumulated certifications", m.AccumulatedCertifications, e.AccumCerts},
				{"smoothed accuracy", m.SmoothedAccuracy, e.SmoothedAcc},
				{"avg radius add", m.AvgRadiusAdd, e.AvgRA},
				{"avg radius del", m.AvgRadiusDel, e.AvgRD},
			} {
				worst = max(worst, math.Abs(f.got-f.want))
				if math.Abs(f.got-f.want) > 1e-6 {
					t.Errorf("%s = %.12f, want %.12f (diff %.3g)", f.name, f.got, f.want, f.got-f.want)
				}
			}
			if !t.Failed() {
				matched++
			}
		})
	}
	t.Logf("%d of %d reference vote files matched; largest deviation %.3g", matched, len(exp), worst)
}

// TestComputeDeterministic: the certificate does not depend on GOMAXPROCS.
func TestComputeDeterministic(t *testing.T) {
	vf, err := LoadVotes(fixture.Reference(t, "smoothing_votes/cora_ml_SVD_GCN_s0_adddel.npz"))
	if err != nil {
		t.Fatal(err)
	}
	p := Params{PPlus: 0.001, PMinus: 0.4, Alpha: 0.05}
	run := func(procs int) *Certificate {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		c, err := Compute(vf.Votes, vf.PreVotes, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a, b := run(1), run(4)
	if !slices.Equal(a.lower, b.lower) || !slices.Equal(a.upper, b.upper) || !slices.Equal(a.PLower, b.PLower) ||
		!slices.Equal(a.PUpper, b.PUpper) || a.MaxRA != b.MaxRA || a.MaxRD != b.MaxRD {
		t.Error("certificates differ between GOMAXPROCS 1 and 4")
	}
}
