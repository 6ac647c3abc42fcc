package report

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Table is one Markdown table.
type Table struct {
	ID      string // stable anchor, e.g. "certification-cora_ml"
	Title   string
	Caption string
	// Summary is one line printed on its own under the caption (the
	// comparison's "N of the paper's M numbers …" line).
	Summary string
	Header  []string
	Rows    [][]string
}

// Markdown renders the table with its title and caption.
func (t Table) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", t.Title)
	if t.Caption != "" {
		fmt.Fprintf(&b, "%s\n\n", t.Caption)
	}
	if t.Summary != "" {
		fmt.Fprintf(&b, "%s\n\n", t.Summary)
	}
	b.WriteString("| " + strings.Join(t.Header, " | ") + " |\n|")
	for i := range t.Header {
		if i == 0 {
			b.WriteString("---|")
		} else {
			b.WriteString("---:|")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	return b.String()
}

// byDataset groups results by their dataset parameter, sorted.
func byDataset(rs []row) ([]string, map[string][]row) {
	m := map[string][]row{}
	for _, r := range rs {
		d := r.Dataset
		m[d] = append(m[d], r)
	}
	var ds []string
	for d := range m {
		ds = append(ds, d)
	}
	sort.Strings(ds)
	return ds, m
}

func ofKind(rs []row, kind string) []row {
	var out []row
	for _, r := range rs {
		if r.Kind == kind {
			out = append(out, r)
		}
	}
	return out
}

// overSeeds says what a table's numbers are: a mean ± standard error over
// the seeds of rs, or, with one seed, that seed's values.
func overSeeds(rs []row) string {
	seeds := seedsOf(rs)
	if !strings.Contains(seeds, ",") {
		return "one seed (" + seeds + "), so no standard error"
	}
	return "mean ± standard error over seeds " + seeds
}

func seedsOf(rs []row) string {
	set := map[int]bool{}
	for _, r := range rs {
		if v := r.Seed; !math.IsNaN(v) {
			set[int(v)] = true
		}
	}
	var s []int
	for k := range set {
		s = append(s, k)
	}
	sort.Ints(s)
	return strings.Join(strings.Fields(strings.Trim(fmt.Sprint(s), "[]")), ", ")
}

// certificationTables is the paper's Table 2 per dataset: accumulated
// certifications per smoothing distribution, average certifiable radii over
// the correctly classified nodes (Eq. 9) for additions and deletions, and
// the clean accuracy of the base classifier.
func certificationTables(rs []row) []Table {
	var out []Table
	ds, by := byDataset(ofKind(rs, "certify"))
	for _, d := range ds {
		cs := by[d]
		models := map[modelKey]bool{}
		pairs := map[pPair]bool{}
		for _, r := range cs {
			models[r.Model] = true
			pairs[r.Pair] = true
		}
		var ps []pPair
		for p := range pairs {
			ps = append(ps, p)
		}
		sort.Slice(ps, func(i, j int) bool { return ps[i].less(ps[j]) })
		header := []string{"model"}
		for _, p := range ps {
			header = append(header, "A.cert. "+p.Name())
		}
		for _, p := range ps {
			if p.Add > 0 && p.Del == 0 && !p.Attr {
				header = append(header, "r̄ₐ "+p.Name())
			}
			if p.Del > 0 && p.Add == 0 && !p.Attr {
				header = append(header, "r̄_d "+p.Name())
			}
		}
		header = append(header, "Acc.")
		t := Table{ID: "certification-" + slugify(d), Title: "Certification: " + d + " (paper Tables 2 and 6)", Header: header,
			Caption: fmt.Sprintf("Accumulated certifications (Eq. 8), average certifiable radii over the correctly classified test nodes (Eq. 9) and clean test accuracy of the base classifier; %s.", overSeeds(cs))}
		for _, mk := range sortedKeys(models) {
			row := []string{mk.Label()}
			vals := func(p pPair, metric string) []float64 {
				var v []float64
				for _, r := range cs {
					if r.Model == mk && r.Pair == p {
						v = append(v, num(r.Metrics, metric))
					}
				}
				return v
			}
			for _, p := range ps {
				row = append(row, fmtMeanSE(vals(p, "accumulated_certifications"), 2))
			}
			for _, p := range ps {
				if p.Add > 0 && p.Del == 0 && !p.Attr {
					row = append(row, fmtMeanSE(vals(p, "avg_radius_add_correct"), 2))
				}
				if p.Del > 0 && p.Add == 0 && !p.Attr {
					row = append(row, fmtMeanSE(vals(p, "avg_radius_del_correct"), 2))
				}
			}
			// Clean accuracy: once per seed (the train result behind the certificates).
			acc := map[float64]float64{}
			for _, r := range cs {
				if r.Model == mk {
					acc[r.Seed] = num(r.Metrics, "clean_accuracy")
				}
			}
			row = append(row, fmtMeanSE(sortedValues(acc), 3))
			t.Rows = append(t.Rows, row)
		}
		out = append(out, t)
	}
	return out
}

func sortedValues(m map[float64]float64) []float64 {
	var ks []float64
	for k := range m {
		ks = append(ks, k)
	}
	sort.Float64s(ks)
	v := make([]float64, len(ks))
	for i, k := range ks {
		v[i] = m[k]
	}
	return v
}

// attackTables renders the global-attack table: perturbed test accuracy
// per attack and budget, with the clean accuracy first.
func attackTables(rs []row) []Table {
	sel := ofKind(rs, "attack")
	var out []Table
	ds, by := byDataset(sel)
	for _, d := range ds {
		as := by[d]
		type col struct {
			attack string
			eps    float64
		}
		models := map[modelKey]bool{}
		cols := map[col]bool{}
		for _, r := range as {
			models[r.Model] = true
			cols[col{r.Attack, r.Epsilon}] = true
		}
		var cs []col
		for c := range cols {
			cs = append(cs, c)
		}
		sort.Slice(cs, func(i, j int) bool {
			if cs[i].attack != cs[j].attack {
				return attackRank(cs[i].attack) < attackRank(cs[j].attack)
			}
			return cs[i].eps < cs[j].eps
		})
		header := []string{"model", "clean"}
		for _, c := range cs {
			header = append(header, fmt.Sprintf("%s ε=%g", attackName(c.attack), c.eps))
		}
		t := Table{ID: "global-attacks-" + slugify(d), Title: "Global attacks: " + d,
			Caption: fmt.Sprintf("Test accuracy under evasion attacks with budget ε (fraction of edges); %s.", overSeeds(as))}
		t.Header = header
		nanCells := false
		for _, mk := range sortedKeys(models) {
			row := []string{mk.Label()}
			clean := map[float64]float64{}
			for _, r := range as {
				if r.Model == mk {
					clean[r.Seed] = num(r.Metrics, "clean_acc")
				}
			}
			row = append(row, fmtMeanSE(sortedValues(clean), 3))
			for _, c := range cs {
				var v []float64
				mark := ""
				for _, r := range as {
					if r.Model == mk && r.Attack == c.attack && r.Epsilon == c.eps {
						v = append(v, num(r.Metrics, "perturbed_acc"))
						if _, ok := r.Metrics["perturbed_nan_logits"]; ok {
							mark, nanCells = " ‡", true
						}
					}
				}
				row = append(row, fmtMeanSE(v, 3)+mark)
			}
			t.Rows = append(t.Rows, row)
		}
		if nanCells {
			t.Caption += " ‡: in at least one seed the model's logits on the perturbed graph are NaN, as the reference's are " +
				"(SVD GCN: the rank-50 approximation has a negative row sum of L + I), and every node is predicted class 0."
		}
		out = append(out, t)
	}
	return out
}

var attackOrder = []string{"dice", "fgsm", "pgd", "prbcd", "grbcd", "nettack"}
var attackNames = map[string]string{"dice": "DICE", "fgsm": "FGSM", "pgd": "PGD", "prbcd": "PR-BCD", "grbcd": "GR-BCD", "nettack": "Nettack", "metattack": "Metattack"}

func attackRank(a string) int {
	for i, n := range attackOrder {
		if n == a {
			return i
		}
	}
	return len(attackOrder)
}

func attackName(a string) string {
	if n, ok := attackNames[a]; ok {
		return n
	}
	return a
}

// runtimeTables: training time per epoch and per run, and the time of the
// certify and attack runs, per dataset and model.
func runtimeTables(rs []row) []Table {
	var out []Table
	ds, by := byDataset(rs)
	for _, d := range ds {
		all := by[d]
		models := map[modelKey]bool{}
		for _, r := range all {
			if r.Kind == "train" {
				models[r.Model] = true
			}
		}
		if len(models) == 0 {
			continue
		}
		t := Table{ID: "runtime-" + slugify(d), Title: "Runtime: " + d + " (paper Table 1)",
			Header: []string{"model", "ms / epoch", "epochs", "training (s)", "certify run (s)", "attack run (s)"},
			Caption: "Wall-clock times on this machine (CPU); mean ± standard error over the recorded runs. " +
				"A certify or attack run includes training only when its weights were not yet in the store."}
		for _, mk := range sortedKeys(models) {
			var ms, ep, tr, ce, at []float64
			for _, r := range all {
				if r.Model != mk {
					continue
				}
				switch r.Kind {
				case "train":
					ms = append(ms, num(r.Metrics, "ms_per_epoch"))
					ep = append(ep, num(r.Metrics, "epochs"))
					tr = append(tr, num(r.Metrics, "train_seconds"))
				case "certify":
					ce = append(ce, r.Seconds)
				case "attack":
					at = append(at, r.Seconds)
				}
			}
			t.Rows = append(t.Rows, []string{mk.Label(), fmtMeanSE(ms, 1), fmtMeanSE(ep, 0), fmtMeanSE(tr, 1),
				fmtMeanSE(ce, 1), fmtMeanSE(at, 1)})
		}
		out = append(out, t)
	}
	return out
}
