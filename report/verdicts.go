package report

import (
	"fmt"
	"math"
	"sort"

	"github.com/rgnn/rgnn/experiment/store"
)

// Verdict compares Soft Medoid GDC (T = 0.5) with GCN on one measure.
type Verdict struct {
	Measure  string  `json:"measure"`
	SMGDC    float64 `json:"sm_gdc"`
	GCN      float64 `json:"gcn"`
	SMBetter bool    `json:"sm_gdc_better"`
}

// HasKind reports whether a result of kind is among rs.
func HasKind(rs []store.Result, kind string) bool {
	for _, r := range rs {
		if r.Kind == kind {
			return true
		}
	}
	return false
}

// Verdicts compares Soft Medoid GDC (T = 0.5) with GCN on every certificate
// setting (accumulated certifications) and attack (perturbed accuracy),
// means over seeds.
func Verdicts(rs []store.Result) []Verdict {
	type acc struct{ sm, gcn []float64 }
	m := map[string]*acc{}
	for _, r := range decodeRows(rs) {
		isSM := r.Model == modelKey{Model: "sm_gdc", T: 0.5}
		if !isSM && r.Model.Model != "gcn" {
			continue
		}
		var name string
		var v float64
		switch r.Kind {
		case "certify":
			name = fmt.Sprintf("accumulated certifications (p_add=%v, p_del=%v)", r.Pair.Add, r.Pair.Del)
			v, _ = r.Metrics["accumulated_certifications"].(float64)
		case "attack":
			name = fmt.Sprintf("accuracy under %v ε=%v", r.Attack, r.Epsilon)
			v, _ = r.Metrics["perturbed_acc"].(float64)
		default:
			continue
		}
		if m[name] == nil {
			m[name] = &acc{}
		}
		if isSM {
			m[name].sm = append(m[name].sm, v)
		} else {
			m[name].gcn = append(m[name].gcn, v)
		}
	}
	var names []string
	for n, a := range m {
		if len(a.sm) > 0 && len(a.gcn) > 0 {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	mean := func(v []float64) float64 {
		s := 0.0
		for _, x := range v {
			s += x
		}
		return s / float64(len(v))
	}
	var out []Verdict
	for _, n := range names {
		a := m[n]
		sm, g := mean(a.sm), mean(a.gcn)
		out = append(out, Verdict{Measure: n, SMGDC: sm, GCN: g, SMBetter: sm > g && !math.IsNaN(sm)})
	}
	return out
}
