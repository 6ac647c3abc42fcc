package report

import (
	"fmt"
	"math"
	"strconv"
)

// paperCell is one number of the paper (Geisler, Zügner and Günnemann,
// NeurIPS 2020) with the table, dataset, row and column it comes from:
// mean ± standard error as printed.
type paperCell struct {
	Table   string // e.g. "Table 4 (Nettack)"
	Dataset string
	Row     modelKey
	Column  string // the metric: mean_margin, failure_rate, …
	Mean    float64
	SE      float64
}

// paperNumbers are the paper's numbers, stored once; tables look theirs up
// with paperValue.
var paperNumbers = func() []paperCell {
	var out []paperCell
	// The appendix's Nettack table: margin and failure rate, each model
	// attacked at its own 40 targets with budget degree + 2.
	nettack := func(d string, rows ...any) {
		for i := 0; i < len(rows); i += 5 {
			k := rows[i].(modelKey)
			out = append(out,
				paperCell{"Table 4 (Nettack)", d, k, "mean_margin", rows[i+1].(float64), rows[i+2].(float64)},
				paperCell{"Table 4 (Nettack)", d, k, "failure_rate", rows[i+3].(float64), rows[i+4].(float64)})
		}
	}
	nettack("cora_ml",
		modelKey{Model: "gcn"}, -0.41, 0.05, 0.18, 0.06,
		modelKey{Model: "gdc"}, -0.48, 0.12, 0.15, 0.10,
		modelKey{Model: "svd_gcn"}, 0.21, 0.06, 0.64, 0.05,
		modelKey{Model: "jaccard_gcn"}, -0.46, 0.13, 0.26, 0.07,
		modelKey{Model: "rgcn"}, 0.00, 0.01, 0.35, 0.01,
		modelKey{Model: "sm_gdc", T: 1}, 0.09, 0.03, 0.54, 0.02,
		modelKey{Model: "sm_gdc", T: 0.5}, 0.11, 0.07, 0.53, 0.08,
		modelKey{Model: "sm_gdc", T: 0.2}, 0.24, 0.06, 0.62, 0.04)
	nettack("citeseer",
		modelKey{Model: "gcn"}, -0.56, 0.04, 0.03, 0.00,
		modelKey{Model: "gdc"}, -0.51, 0.02, 0.05, 0.02,
		modelKey{Model: "svd_gcn"}, -0.00, 0.11, 0.51, 0.09,
		modelKey{Model: "jaccard_gcn"}, -0.43, 0.07, 0.17, 0.07,
		modelKey{Model: "rgcn"}, -0.05, 0.03, 0.41, 0.02,
		modelKey{Model: "sm_gdc", T: 1}, -0.08, 0.04, 0.36, 0.04,
		modelKey{Model: "sm_gdc", T: 0.5}, 0.10, 0.07, 0.51, 0.07,
		modelKey{Model: "sm_gdc", T: 0.2}, 0.31, 0.04, 0.65, 0.05)
	return out
}()

// paperValue returns the paper's number for a table's cell.
func paperValue(dataset string, row modelKey, column string) (paperCell, bool) {
	for _, c := range paperNumbers {
		if c.Dataset == dataset && c.Row == row && c.Column == column {
			return c, true
		}
	}
	return paperCell{}, false
}

// paperCells are the two cells shown next to ours: the paper's value and
// the difference ours − paper, marked ✓ when within three of the paper's
// standard errors (at least 0.01, its printed precision) and ✗ otherwise.
func paperCells(dataset string, row modelKey, column string, ours []float64, dec int) []string {
	c, ok := paperValue(dataset, row, column)
	if !ok {
		return []string{"–", "–"}
	}
	paper := fmtMeanSE([]float64{c.Mean}, dec) + " ± " + strconv.FormatFloat(c.SE, 'f', dec, 64)
	if len(ours) == 0 {
		return []string{paper, "–"}
	}
	var m float64
	for _, v := range ours {
		m += v
	}
	m /= float64(len(ours))
	d := m - c.Mean
	mark := "✓"
	if math.Abs(d) > 3*math.Max(c.SE, 0.01) {
		mark = "✗"
	}
	return []string{paper, fmt.Sprintf("%+.*f %s", dec, d, mark)}
}
