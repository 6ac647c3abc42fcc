package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/rgnn/rgnn/experiment/store"
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

// SE is the paper's standard error of the mean (0 when none is printed).
func (c paperCell) SE() float64 {
	if c.Sigmas == 0 {
		return 0
	}
	return c.PM / c.Sigmas
}

// paperValue returns the paper's number for a table's cell.
func paperValue(dataset string, row modelKey, column string) (paperCell, bool) {
	for _, c := range paperNumbers {
		if c.Dataset == dataset && c.Row == row && c.Column == column {
			return c, true
		}
	}
	return paperCell{}, false
}

// compare is ours − paper and whether it lies within three of the paper's
// standard errors (at least half the printed precision, 0.005); ok is false
// without a printed error.
func compare(c paperCell, ours []float64) (d float64, within, ok bool) {
	m := mean(ours)
	d = m - c.Mean
	if c.Sigmas == 0 {
		return d, false, false
	}
	return d, math.Abs(d) <= math.Max(3*c.SE(), 0.005)+1e-12, true
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// paperCells are the two cells shown next to ours: the paper's value and
// the difference ours − paper, marked ✓ when within three of the paper's
// standard errors and ✗ otherwise.
func paperCells(dataset string, row modelKey, column string, ours []float64, dec int) []string {
	c, ok := paperValue(dataset, row, column)
	if !ok {
		return []string{"–", "–"}
	}
	paper := fmtPaper(c, dec)
	if len(ours) == 0 {
		return []string{paper, "–"}
	}
	return []string{paper, fmtDelta(c, ours, dec)}
}

func fmtPaper(c paperCell, dec int) string {
	s := strconv.FormatFloat(c.Mean, 'f', dec, 64)
	if c.Sigmas > 0 {
		s += " ± " + strconv.FormatFloat(c.SE(), 'f', dec, 64)
	}
	return s
}

func fmtDelta(c paperCell, ours []float64, dec int) string {
	d, within, ok := compare(c, ours)
	s := fmt.Sprintf("%+.*f", dec, d)
	switch {
	case !ok:
	case within:
		s += " ✓"
	default:
		s += " ✗"
	}
	return s
}

// ours returns our values (one per seed) for a cell of the paper: the same
// model, dataset and protocol (certificates and accuracies on binary
// attributes as Tables 1 and 6; global attacks on TF-IDF attributes,
// Metattack on binary ones, as Table 5; Nettack at each model's own targets with budget degree + 2).
func ours(rs []store.Result, c paperCell) []float64 {
	bySeed := map[float64]float64{}
	take := func(kind string, match func(store.Result) bool, metric string) {
		for _, r := range ofKind(rs, kind) {
			if str(r.Params, "dataset") == c.Dataset && keyOf(r) == c.Row && match(r) {
				if v := num(r.Metrics, metric); !math.IsNaN(v) {
					bySeed[num(r.Params, "seed")] = v
				}
			}
		}
	}
	binary := func(r store.Result) bool { return r.Params["binary_attr"] == true }
	pair := func(add, del float64) func(store.Result) bool {
		return func(r store.Result) bool { return binary(r) && pairOf(r) == pPair{Add: add, Del: del} }
	}
	switch col := c.Column; {
	case col == "cert_attr_add_del":
		take("certify", func(r store.Result) bool { return binary(r) && pairOf(r) == pPair{Add: 0.001, Del: 0.4, Attr: true} },
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
		take("certify", pair(0.001, 0.4), "smoothed_accuracy")
	case col == "mean_margin" || col == "failure_rate":
		take("targeted", func(r store.Result) bool {
			return str(r.Params, "attack") == "nettack" && str(r.Params, "budget") == "degree+2" &&
				str(r.Params, "targets_from") == ""
		}, col)
	case strings.Contains(col, "@"):
		a, e, _ := strings.Cut(col, "@")
		eps, _ := strconv.ParseFloat(e, 64)
		take("attack", func(r store.Result) bool {
			// Metattack on binary attributes as the published attack
			// (metattack.yaml), the evasion attacks on TF-IDF.
			return binary(r) == (a == "metattack") && str(r.Params, "attack") == a && num(r.Params, "epsilon") == eps
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
// reports for it next to ours (mean over our seeds) and the difference; ✓
// within three of the paper's standard errors, ✗ outside, none where the
// paper prints no error (Table 1's radii). Cells we have no result for
// show "–".
func comparisonTables(rs []store.Result) []Table {
	have := map[string]bool{}
	for _, r := range rs {
		if d := str(r.Params, "dataset"); d != "" {
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
			Caption: "Every number the paper reports for this dataset, ours beside it (mean ± standard error over our seeds) " +
				"and ours − paper: ✓ within three of the paper's standard errors (Table 6 prints three, the others one), " +
				"✗ outside, no mark where the paper prints no error.",
			Header: []string{"table", "model", "measure", "ours", "paper", "Δ"}}
		n, found, within, outside := 0, 0, 0, 0
		for _, c := range paperNumbers {
			if c.Dataset != d {
				continue
			}
			n++
			v := ours(rs, c)
			dec := 2
			if strings.Contains(c.Column, "accuracy") || strings.Contains(c.Column, "@") {
				dec = 3
			}
			row := []string{c.Table, c.Row.Label(), paperColumn(c.Column), fmtMeanSE(v, dec), fmtPaper(c, dec), "–"}
			if len(v) > 0 {
				found++
				row[5] = fmtDelta(c, v, dec)
				if _, w, ok := compare(c, v); ok && w {
					within++
				} else if ok {
					outside++
				}
			}
			t.Rows = append(t.Rows, row)
		}
		if n == 0 {
			continue
		}
		t.Caption += fmt.Sprintf(" %d of the paper's %d numbers have a result here: %d within, %d outside.",
			found, n, within, outside)
		out = append(out, t)
	}
	return out
}
