package report

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/experiment/store"
)

// TestComparisonRule: both sides' standard errors enter the tolerance, so
// a cell can be within only through our own spread; the same mean without
// that spread is outside; a cell without a printed error is held to half
// the paper's last digit at least.
func TestComparisonRule(t *testing.T) {
	c := paperCell{Table: "Table 6", Dataset: "cora_ml", Row: modelKey{Model: "gcn"}, Column: "cert_del",
		Mean: 1.00, PM: 0.03, Sigmas: 3} // se_paper 0.01
	spread := []float64{1.02, 1.08, 1.05} // mean 1.05, se 0.0173
	got := compare(c, spread)
	if !got.Within || got.Tol < 0.0599 || got.Tol > 0.0601 {
		t.Errorf("Δ 0.05 with se_ours 0.017, se_paper 0.01: %+v, want within, tolerance 3·0.02 = 0.06", got)
	}
	if 3*c.SE() >= 0.05 {
		t.Fatal("the test cell must be outside three of the paper's standard errors alone")
	}
	if got := compare(c, []float64{1.05, 1.05, 1.05}); got.Within || got.Tol > 0.0301 {
		t.Errorf("Δ 0.05 without our spread: %+v, want outside at tolerance 0.03", got)
	}
	// A cell without a printed error nor a Table 6 row to take one from.
	noErr := paperCell{Table: "Table 2", Dataset: "nowhere", Row: modelKey{Model: "gcn"}, Column: "radius_del", Mean: 5.37}
	if got := compare(noErr, []float64{5.374}); !got.Within || got.Tol != 0.005 {
		t.Errorf("one seed 0.004 off a number printed with two decimals: %+v, want within at the floor 0.005", got)
	}
	if got := compare(noErr, []float64{5.38}); got.Within {
		t.Errorf("one seed 0.01 off a number printed with two decimals: %+v, want outside", got)
	}
	acc := paperCell{Table: "Table 2", Dataset: "nowhere", Row: modelKey{Model: "gcn"}, Column: "accuracy", Mean: 0.823}
	if got := compare(acc, []float64{0.8236}); got.Within || got.Tol != 0.0005 {
		t.Errorf("accuracies are printed with three decimals: %+v, want the floor 0.0005", got)
	}
	// Table 2 prints no error but reports Table 6's experiments: its
	// accuracy takes Table 6's standard error (GCN: 0.006 / 3), its radius
	// the one propagated from Table 6's Del. certificate and smoothed
	// accuracy (SM GDC T = 0.5: 5.98·√((0.07/3/4.80)² + (0.008/3/0.803)²)).
	t2acc, _ := paperValue("cora_ml", modelKey{Model: "gcn"}, "accuracy")
	if t2acc.Table != "Table 2" || math.Abs(t2acc.spread()-0.002) > 1e-12 {
		t.Errorf("Table 2 GCN accuracy: %+v spread %v, want Table 6's 0.002", t2acc, t2acc.spread())
	}
	r, _ := paperValue("cora_ml", modelKey{Model: "sm_gdc", T: 0.5}, "radius_del")
	want := 5.98 * math.Hypot(0.07/3/4.80, 0.008/3/0.803)
	if math.Abs(r.spread()-want) > 1e-12 {
		t.Errorf("Table 2 SM GDC T=0.5 radius spread %v, want %v", r.spread(), want)
	}
}

// TestSmoothedAccuracyDelOnly: Table 6's smoothed accuracy is compared with
// the Del.-only certificate's (p₊ = 0, p₋ = 0.4), not the Add & del. one.
func TestSmoothedAccuracyDelOnly(t *testing.T) {
	cert := func(pa, pd, smoothed float64, seed int) store.Result {
		return store.Result{Kind: "certify", Params: store.Params{"dataset": "cora_ml", "model": "gcn", "seed": seed,
			"binary_attr": true, "p_add": pa, "p_del": pd}, Metrics: map[string]any{"smoothed_accuracy": smoothed}}
	}
	rs := []store.Result{cert(0.001, 0.4, 0.30, 0), cert(0, 0.4, 0.81, 0), cert(0.001, 0, 0.20, 0),
		cert(0.001, 0.4, 0.31, 1), cert(0, 0.4, 0.82, 1)}
	c, ok := paperValue("cora_ml", modelKey{Model: "gcn"}, "smooth_accuracy")
	if !ok {
		t.Fatal("no smoothed accuracy for GCN on cora_ml in paperNumbers")
	}
	got := ours(decodeRows(rs), c)
	if len(got) != 2 || got[0] != 0.81 || got[1] != 0.82 {
		t.Errorf("smoothed accuracy read %v, want the Del. certificates' [0.81 0.82]", got)
	}
}

// TestPaperNumbering: tables and figures carry the paper's numbers (the
// order of its captions): runtimes Table 1, certificates Tables 2 and 6,
// the bias curves Figure 2, the temperature Figure 3, the certification
// ratio Figures 6 and 8 with the r_a panel; Table 2's own accuracy column
// is transcribed; the comparison keeps to cells with a result and carries
// the summary line in the form scripts read.
func TestPaperNumbering(t *testing.T) {
	for _, c := range paperNumbers {
		if c.Table == "Table 1" {
			t.Fatalf("a cell labelled Table 1 (the runtime table): %+v", c)
		}
	}
	if c, ok := paperValue("cora_ml", modelKey{Model: "gdc"}, "accuracy"); !ok {
		t.Error("no accuracy for GDC")
	} else if n := countCells("cora_ml", modelKey{Model: "gdc"}, "accuracy"); n != 2 {
		t.Errorf("GDC's accuracy: %d cells (%+v), want Table 2's 0.835 and Table 6's 0.825", n, c)
	}
	counts := map[string]int{}
	for _, c := range paperNumbers {
		counts[c.Dataset]++
	}
	if counts["cora_ml"] != 242 || counts["citeseer"] != 206 || counts["pubmed"] != 30 {
		t.Errorf("paper numbers per dataset %v, want cora_ml 242, citeseer 206, pubmed 30", counts)
	}
	// Table 2's accumulated certifications are Table 6's means, transcribed
	// twice: each pair agrees and is judged with Table 6's error.
	pairs := 0
	for _, c := range paperNumbers {
		if c.Table != "Table 2" || !strings.HasPrefix(c.Column, "cert_") {
			continue
		}
		var t6 *paperCell
		for i, o := range paperNumbers {
			if o.Table == "Table 6" && o.Dataset == c.Dataset && o.Row == c.Row && o.Column == c.Column {
				t6 = &paperNumbers[i]
			}
		}
		if t6 == nil || t6.Mean != c.Mean || c.spread() != t6.SE() || t6.SE() == 0 && t6.PM != 0 {
			t.Errorf("Table 2 %s %s %s = %v: Table 6 has %+v", c.Dataset, c.Row.Label(), c.Column, c.Mean, t6)
		}
		pairs++
	}
	if pairs != 3*(13+7) {
		t.Errorf("%d accumulated certifications in Table 2, want 60", pairs)
	}
	if c, _ := paperValue("cora_ml", modelKey{Model: "gcn"}, "cert_add"); c.Table != "Table 6" {
		t.Errorf("the certification view shows %s's accumulated certification, want Table 6's (with its ±)", c.Table)
	}

	r, err := FromResults(syntheticResults(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	md := r.Markdown("figures")
	for _, want := range []string{"Certification: cora_ml (paper Tables 2 and 6)", "Runtime: cora_ml (paper Table 1)",
		"(paper Fig. 2)", "(paper Figs. 6a, 8a)", "(paper Figs. 6b, 8b)", "cert_ratio_cora_ml_pa0.001_pd0.4_ra.png",
		"(paper Fig. 8c)", "(paper Fig. 8d)", "(paper Figs. 5, 9a)"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, bad := range []string{"Fig. 6)", "Table 1 |", "| – | – |"} {
		if strings.Contains(md, bad) {
			t.Errorf("report still has %q", bad)
		}
	}
	summary := regexp.MustCompile(`(?m)^(\d+) of the paper's (\d+) numbers have a result here: (\d+) within, (\d+) outside\.`)
	m := summary.FindStringSubmatch(md)
	if m == nil {
		t.Fatalf("no summary line in the report:\n%s", md)
	}
	if m[2] != "242" {
		t.Errorf("summary %q: want the paper's 242 cora_ml numbers", m[0])
	}
}

func countCells(dataset string, row modelKey, column string) int {
	n := 0
	for _, c := range paperNumbers {
		if c.Dataset == dataset && c.Row == row && c.Column == column {
			n++
		}
	}
	return n
}

// TestNettackSetting: the paper's Nettack cells are compared with the runs
// of the shipped setting (round(0.65·degree) at the GCN's targets) where a
// dataset has them, else with the earlier degree + 2 at each model's own
// targets; runs of any other setting are never compared.
func TestNettackSetting(t *testing.T) {
	run := func(dataset, budget string, eps float64, from string, margin float64, seed int) store.Result {
		p := store.Params{"dataset": dataset, "model": "gcn", "seed": seed, "binary_attr": true,
			"attack": "nettack", "budget": budget, "targets_from": from}
		if budget == "epsilon" {
			p["epsilon"] = []any{eps}
		}
		return store.Result{Kind: "targeted", Params: p, Metrics: map[string]any{"mean_margin": margin, "failure_rate": 0.2}}
	}
	rs := decodeRows([]store.Result{
		run("cora_ml", "degree+2", 0, "", -0.99, 0), run("cora_ml", "epsilon", 0.65, "gcn", -0.50, 0),
		run("cora_ml", "epsilon", 0.5, "gcn", -0.30, 0), run("citeseer", "degree+2", 0, "", -0.90, 0),
		run("citeseer", "degree+4", 0, "", -0.95, 1),
	})
	for _, tc := range []struct {
		dataset string
		want    []float64
	}{{"cora_ml", []float64{-0.50}}, {"citeseer", []float64{-0.90}}} {
		c, ok := paperValue(tc.dataset, modelKey{Model: "gcn"}, "mean_margin")
		if !ok {
			t.Fatalf("no Nettack margin for GCN on %s in paperNumbers", tc.dataset)
		}
		if got := ours(rs, c); len(got) != 1 || got[0] != tc.want[0] {
			t.Errorf("%s: Nettack margin read %v, want %v", tc.dataset, got, tc.want)
		}
	}
	var titles []string
	for _, tb := range targetedTables(rs) {
		titles = append(titles, tb.Title)
	}
	want := "Nettack: cora_ml (round(0.65·degree) gcn) (paper Table 4)"
	if !strings.Contains(strings.Join(titles, "\n"), want) || strings.Count(strings.Join(titles, "\n"), "paper Table 4") != 2 {
		t.Errorf("targeted tables %q: want %q and one paper table per dataset", titles, want)
	}
}
