package report

import (
	"fmt"
	"sort"
	"strings"
)

// nettackGap explains the cells of the Nettack table outside the paper's
// error: what is known about the difference and what was ruled out.
const nettackGap = "Cells without ✓ are outside the paper's error: on cora_ml our Nettack (the direct attack of the " +
	"Nettack paper, budget degree + 2, binary attributes) is stronger than the paper's for every model, by 0.3–0.9 in " +
	"margin, while the ranking of the models is the paper's; so the Soft Medoid GDC gap is one case of a gap common to " +
	"all rows. Ruled out as causes: target selection (each model's own targets vs GCN's), feature flips (structure and " +
	"features give GCN the same margin as structure alone), the temperature and the TF-IDF vs binary attributes. The " +
	"influencer attack (influencers: 5) is weaker than the paper's on GCN (margin +0.30 vs −0.41) and the 2021 " +
	"follow-up's budget round(0.5·degree) comes closest (−0.35); the 2020 code publishes no Nettack, so the paper's " +
	"exact setting is not known (README, \"Nettack differs from the paper's table\")."

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
		g := group{r.Dataset, r.Attack, r.Budget, r.TargetsFrom}
		if g.budget == "epsilon" {
			g.budget = fmt.Sprintf("round(%g·degree)", r.Epsilon)
		}
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
		// The paper's numbers are for Nettack in its setup only.
		paper := g.attack == "nettack" && g.budget == "degree+2" && g.from == ""
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
			t.Caption += " Δ is ours − paper, ✓ when within the comparison rule's tolerance 3·√(se_paper² + se_ours²). " + nettackGap
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
