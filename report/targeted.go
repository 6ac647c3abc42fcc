package report

import (
	"fmt"
	"sort"
	"strings"
)

// paperNettack lists the targeted settings whose runs answer the paper's
// Nettack table (Table 4), preferred first, each for one dataset or ("")
// any. The paper names neither budget nor targets; the shipped files'
// settings come first: the budget round(ε·degree) that fits the dataset's
// GCN row alone (ε = 1 on Citeseer in nettack_citeseer.yaml, 0.65 on Cora
// ML in nettack.yaml and, failing the former, anywhere), at the 40 targets
// the GCN chooses, so that every model faces the same edges, as the
// paper's appendix says (docs/reproduce.md, "Nettack"). The last, the
// Nettack paper's degree + 2 at each model's own targets, is what the kept
// cora_ml runs were computed with before; a dataset without runs of the
// others is compared through it.
var paperNettack = []nettackSetting{
	{dataset: "citeseer", budget: "round(1·degree)", from: "gcn", gap: "The paper names neither Nettack's budget nor its targets; this " +
		"budget fits its citeseer GCN row alone (Cora ML's fits 0.65·degree) and then puts 15 of the 16 citeseer numbers within: " +
		"all but RGCN's margin (docs/reproduce.md, \"Nettack\")."},
	{budget: "round(0.65·degree)", from: "gcn", gap: "The paper names neither Nettack's budget nor its targets; this " +
		"setting fits its cora_ml GCN row alone and, with the reference's pretrained models as with rgnn's, puts 14 of the 16 cora_ml " +
		"numbers within: all but RGCN's, which stays outside (not explained; docs/reproduce.md, \"Nettack\")."},
	{budget: "degree+2", from: "", gap: "Cells without ✓ are outside the paper's error: this is the Nettack paper's " +
		"budget degree + 2 at each model's own targets, stronger than the paper's attack for every model by " +
		"0.3–0.9 in margin while the ranking is the paper's. The shipped nettack.yaml now runs round(0.65·degree) at " +
		"the GCN's targets, which fits the paper's table (docs/reproduce.md, \"Nettack\")."},
}

// nettackSetting is a targeted setting: the dataset it is for ("" any),
// the budget as tables label it and the model that chose the targets (""
// for each model's own), with what the comparison says of its cells.
type nettackSetting struct{ dataset, budget, from, gap string }

// budgetLabel is the budget of a targeted run as tables label it.
func budgetLabel(r row) string {
	if r.Budget == "epsilon" {
		return fmt.Sprintf("round(%g·degree)", r.Epsilon)
	}
	return r.Budget
}

// paperNettackOf returns the setting whose Nettack runs on dataset answer
// the paper's table: the first of paperNettack with any such run.
func paperNettackOf(rs []row, dataset string) (nettackSetting, bool) {
	for _, s := range paperNettack {
		if s.dataset != "" && s.dataset != dataset {
			continue
		}
		for _, r := range ofKind(rs, "targeted") {
			if r.Dataset == dataset && r.Attack == "nettack" && budgetLabel(r) == s.budget && r.TargetsFrom == s.from {
				return s, true
			}
		}
	}
	return nettackSetting{}, false
}

// targetedTables renders the Nettack table (the paper's Table 4) per
// dataset and targeted attack from results of kind "targeted": each
// model's mean margin and failure rate at its targets, mean ± standard
// error over seeds, next to the paper's numbers and the difference.
// Runs whose targets another model chose, or with another budget rule, get
// their own table.
func targetedTables(rs []row) []Table {
	type group struct{ dataset, attack, budget, from string }
	by := map[group][]row{}
	for _, r := range ofKind(rs, "targeted") {
		g := group{r.Dataset, r.Attack, budgetLabel(r), r.TargetsFrom}
		by[g] = append(by[g], r)
	}
	var gs []group
	for g := range by {
		gs = append(gs, g)
	}
	sort.Slice(gs, func(i, j int) bool { return fmt.Sprint(gs[i]) < fmt.Sprint(gs[j]) })
	var out []Table
	for _, g := range gs {
		as := by[g]
		// The paper's numbers go beside the runs of its setting only.
		ps, ok := paperNettackOf(rs, g.dataset)
		paper := ok && g.attack == "nettack" && g.budget == ps.budget && g.from == ps.from
		who := "each model's own 40 targets"
		if g.from != "" {
			who = "the 40 targets chosen by " + modelName(g.from)
		}
		t := Table{ID: "targeted-" + slugify(g.dataset+"-"+g.attack+"-"+g.budget+"-"+g.from),
			Title: fmt.Sprintf("%s: %s", attackName(g.attack), g.dataset),
			Caption: fmt.Sprintf("Targeted evasion attack at %s, budget %s per target: mean probability margin "+
				"P(y) − max_{c≠y} P(c) after the attack and failure rate (fraction of targets still correct; higher is "+
				"better); %s.", who, g.budget, overSeeds(as)),
			Header: []string{"model", "margin", "fail. r."}}
		if g.from != "" || g.budget != "degree+2" {
			t.Title += " (" + strings.TrimPrefix(strings.TrimSpace(g.budget+" "+g.from), " ") + ")"
		}
		if paper {
			t.Title += " (paper Table 4)"
			t.Header = []string{"model", "margin", "paper", "Δ", "fail. r.", "paper", "Δ"}
			t.Caption += " Δ is ours − paper, ✓ when within the comparison rule's tolerance 3·√(se_paper² + se_ours²). " + ps.gap
		}
		models := map[modelKey]bool{}
		for _, r := range as {
			models[r.Model] = true
		}
		for _, mk := range sortedKeys(models) {
			var margin, fail []float64
			for _, r := range as {
				if r.Model == mk {
					margin = append(margin, num(r.Metrics, "mean_margin"))
					fail = append(fail, num(r.Metrics, "failure_rate"))
				}
			}
			row := []string{mk.Label(), fmtMeanSE(margin, 2)}
			if paper {
				row = append(row, paperCells(g.dataset, mk, "mean_margin", margin, 2)...)
			}
			row = append(row, fmtMeanSE(fail, 2))
			if paper {
				row = append(row, paperCells(g.dataset, mk, "failure_rate", fail, 2)...)
			}
			t.Rows = append(t.Rows, row)
		}
		out = append(out, t)
	}
	return out
}
