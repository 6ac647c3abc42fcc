package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/rgnn/rgnn/internal/stats"
)

// paperCell is one number of the paper (Geisler, Zügner and Günnemann,
// NeurIPS 2020) with the table, dataset, row and column it comes from.
type paperCell struct {
	Table   string // "Table 1", "Table 4", …
	Dataset string
	Row     modelKey
	Column  string // cert_add_del, radius_add, dice@0.1, mean_margin, …
	Mean    float64
	// PM is the printed ±, Sigmas how many standard errors of the mean it
	// is (Table 6 prints three; 0: the table prints no error).
	PM     float64
	Sigmas float64
}

// SE is the paper's standard error of the mean as printed (0 when none
// is printed).
func (c paperCell) SE() float64 {
	if c.Sigmas == 0 {
		return 0
	}
	return c.PM / c.Sigmas
}

// spread is the paper's standard error of a cell for the comparison rule:
// the printed one, else, for Table 2 (which prints none but reports the
// experiments of Table 6: its accumulated certifications are Table 6's
// means), the one Table 6 prints for the same model — its accuracy's for
// the accuracy, and for an average radius r = A/s (accumulated
// certifications over smoothed accuracy, both of the same setting) the
// propagated r·√((se_A/A)² + (se_s/s)²) — and 0 where neither exists.
func (c paperCell) spread() float64 {
	if c.Sigmas > 0 || c.Table != "Table 2" {
		return c.SE()
	}
	t6 := func(column string) (paperCell, bool) {
		for _, o := range paperNumbers {
			if o.Table == "Table 6" && o.Dataset == c.Dataset && o.Row == c.Row && o.Column == column {
				return o, true
			}
		}
		return paperCell{}, false
	}
	switch c.Column {
	case "accuracy":
		if o, ok := t6("accuracy"); ok {
			return o.SE()
		}
	case "cert_add_del", "cert_add", "cert_del":
		if o, ok := t6(c.Column); ok {
			return o.SE()
		}
	case "radius_add", "radius_del":
		a, okA := t6(map[string]string{"radius_add": "cert_add", "radius_del": "cert_del"}[c.Column])
		s, okS := t6("smooth_accuracy")
		if okA && okS && a.Mean > 0 && s.Mean > 0 {
			return c.Mean * math.Hypot(a.SE()/a.Mean, s.SE()/s.Mean)
		}
	}
	return 0
}

// paperValue returns the paper's number for a table's cell: the first
// table's that has one, except that an accumulated certification is
// Table 6's (Table 2 prints the same mean without its ±).
func paperValue(dataset string, row modelKey, column string) (paperCell, bool) {
	for _, c := range paperNumbers {
		if c.Table == "Table 2" && strings.HasPrefix(c.Column, "cert_") {
			continue
		}
		if c.Dataset == dataset && c.Row == row && c.Column == column {
			return c, true
		}
	}
	return paperCell{}, false
}

// The comparison rule, stated once: a cell of ours (mean of our seeds, m,
// with standard error se_ours) agrees with the paper's number p (standard
// error se_paper: paperCell.spread) when
//
//	|m − p| ≤ max(3·√(se_paper² + se_ours²), ½·10^−decimals)
//
// where decimals is how many digits the paper prints for the cell: both
// sides' spread enters, and no cell is held to more than the paper's own
// rounding. Every cell with a result is judged by it.
type comparison struct {
	Delta, Tol float64
	Within     bool
}

// compare applies the comparison rule to one of the paper's cells.
func compare(c paperCell, ours []float64) comparison {
	m, se := stats.MeanSE(ours)
	d := m - c.Mean
	tol := math.Max(3*math.Hypot(c.spread(), se), 0.5*math.Pow(10, -float64(c.decimals())))
	return comparison{Delta: d, Tol: tol, Within: math.Abs(d) <= tol+1e-12}
}

// decimals is the number of digits the paper prints for the cell:
// three for accuracies (Tables 2, 5, 6), two for everything else.
func (c paperCell) decimals() int {
	if strings.Contains(c.Column, "accuracy") || strings.Contains(c.Column, "@") {
		return 3
	}
	return 2
}

// paperCells are the two cells shown next to ours: the paper's value and
// the difference ours − paper, marked ✓ when it agrees by the comparison
// rule and ✗ otherwise.
func paperCells(dataset string, row modelKey, column string, ours []float64, dec int) []string {
	c, ok := paperValue(dataset, row, column)
	if !ok {
		return []string{"–", "–"}
	}
	paper := fmtPaper(c, dec)
	if len(ours) == 0 {
		return []string{paper, "–"}
	}
	return []string{paper, fmtDelta(compare(c, ours), dec)}
}

func fmtPaper(c paperCell, dec int) string {
	s := strconv.FormatFloat(c.Mean, 'f', dec, 64)
	if c.Sigmas > 0 {
		s += " ± " + strconv.FormatFloat(c.SE(), 'f', dec, 64)
	}
	return s
}

func fmtDelta(cmp comparison, dec int) string {
	s := fmt.Sprintf("%+.*f", dec, cmp.Delta)
	if cmp.Within {
		return s + " ✓"
	}
	return s + " ✗"
}

// Summary is the comparison's summary line, in the one form scripts read:
// "N of the paper's M numbers have a result here: W within, O outside."
func comparisonSummary(found, total, within, outside int) string {
	return fmt.Sprintf("%d of the paper's %d numbers have a result here: %d within, %d outside.",
		found, total, within, outside)
}

// ours returns our values (one per seed) for a cell of the paper: the same
// model, dataset and protocol (certificates and accuracies on binary
// attributes as Tables 1 and 6; global attacks on TF-IDF attributes,
// Metattack on binary ones, as Table 5; Nettack in the setting paperNettackOf picks).
func ours(rs []row, c paperCell) []float64 {
	bySeed := map[float64]float64{}
	take := func(kind string, match func(row) bool, metric string) {
		for _, r := range ofKind(rs, kind) {
			if r.Dataset == c.Dataset && r.Model == c.Row && match(r) {
				if v := num(r.Metrics, metric); !math.IsNaN(v) {
					bySeed[r.Seed] = v
				}
			}
		}
	}
	binary := func(r row) bool { return r.Binary }
	pair := func(add, del float64) func(row) bool {
		return func(r row) bool { return binary(r) && r.Pair == pPair{Add: add, Del: del} }
	}
	switch col := c.Column; {
	case col == "cert_attr_add_del":
		take("certify", func(r row) bool { return binary(r) && r.Pair == pPair{Add: 0.001, Del: 0.4, Attr: true} },
			"accumulated_certifications")
	case col == "cert_add_del":
		take("certify", pair(0.001, 0.4), "accumulated_certifications")
	case col == "cert_add":
		take("certify", pair(0.001, 0), "accumulated_certifications")
	case col == "cert_del":
		take("certify", pair(0, 0.4), "accumulated_certifications")
	case col == "radius_add":
		take("certify", pair(0.001, 0), "avg_radius_add_correct")
	case col == "radius_del":
		take("certify", pair(0, 0.4), "avg_radius_del_correct")
	case col == "accuracy":
		take("certify", binary, "clean_accuracy")
	case col == "smooth_accuracy":
		// Table 6's smoothed accuracy is the Del. setting's: its numbers
		// are the Del. accumulated certifications over the Del. average
		// radius (SM GDC T = 0.5: 4.80 / 5.98 = 0.803).
		take("certify", pair(0, 0.4), "smoothed_accuracy")
	case col == "mean_margin" || col == "failure_rate":
		if ps, ok := paperNettackOf(rs, c.Dataset); ok {
			take("targeted", func(r row) bool {
				return r.Attack == "nettack" && budgetLabel(r) == ps.budget && r.TargetsFrom == ps.from
			}, col)
		}
	case strings.Contains(col, "@"):
		a, e, _ := strings.Cut(col, "@")
		eps, _ := strconv.ParseFloat(e, 64)
		take("attack", func(r row) bool {
			// Metattack on binary attributes as the published attack
			// (metattack.yaml), the evasion attacks on TF-IDF.
			return binary(r) == (a == "metattack") && r.Attack == a && r.Epsilon == eps
		}, "perturbed_acc")
	}
	return sortedValues(bySeed)
}

var paperColumns = map[string]string{
	"cert_attr_add_del": "A.cert. attributes, add & del.", "cert_add_del": "A.cert. edges, add & del.",
	"cert_add": "A.cert. edges, add", "cert_del": "A.cert. edges, del.", "radius_add": "avg. radius, add",
	"radius_del": "avg. radius, del.", "accuracy": "accuracy (base)", "smooth_accuracy": "accuracy (smoothed)",
	"mean_margin": "Nettack margin", "failure_rate": "Nettack failure rate",
}

func paperColumn(c string) string {
	if n, ok := paperColumns[c]; ok {
		return n
	}
	if a, e, ok := strings.Cut(c, "@"); ok {
		return fmt.Sprintf("%s ε=%s", attackName(a), e)
	}
	return c
}

// comparisonTables list, per dataset with results, every number the paper
// reports for it that has a result here, ours beside it (mean ± standard
// error over our seeds), the paper's (± its standard error), ours − paper,
// the tolerance of the comparison rule (compare) and its verdict. The
// summary line counts every number of the paper, found or not.
func comparisonTables(rs []row) []Table {
	have := map[string]bool{}
	for _, r := range rs {
		if d := r.Dataset; d != "" {
			have[d] = true
		}
	}
	var ds []string
	for d := range have {
		ds = append(ds, d)
	}
	sort.Strings(ds)
	var out []Table
	for _, d := range ds {
		t := Table{ID: "paper-" + slugify(d), Title: "Comparison with the paper: " + d,
			Caption: "Every number the paper reports for this dataset that has a result here: ours (mean ± standard error " +
				"over our seeds), the paper's (± its standard error of the mean; Table 6 prints three of them, " +
				"Tables 4 and 5 one; Table 2 prints none and takes Table 6's for the same model), ours − paper, and the " +
				"tolerance 3·√(se_paper² + se_ours²), at least half the paper's last printed digit: ✓ within it, ✗ outside.",
			Header: []string{"table", "model", "measure", "ours", "paper", "Δ", "tolerance"}}
		n, found, within, outside := 0, 0, 0, 0
		for _, c := range paperNumbers {
			if c.Dataset != d {
				continue
			}
			n++
			v := ours(rs, c)
			if len(v) == 0 {
				continue
			}
			dec := c.decimals()
			cmp := compare(c, v)
			found++
			if cmp.Within {
				within++
			} else {
				outside++
			}
			t.Rows = append(t.Rows, []string{c.Table, c.Row.Label(), paperColumn(c.Column), fmtMeanSE(v, dec),
				fmtPaper(c, dec), fmtDelta(cmp, dec), "± " + strconv.FormatFloat(cmp.Tol, 'f', dec+1, 64)})
		}
		if n == 0 {
			continue
		}
		t.Summary = comparisonSummary(found, n, within, outside)
		if found < n {
			t.Summary += fmt.Sprintf(" The %d without a result are not listed.", n-found)
		}
		out = append(out, t)
	}
	return out
}
