package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/protocol"
)

// targetedReport is the JSON output of `rgnn attack --targets`.
type targetedReport struct {
	*protocol.TargetedResult
	Files        []string `json:"files,omitempty"`
	TotalSeconds float64  `json:"total_seconds"`
}

// addTargetedFlags adds the flags of the targeted attacks (nettack,
// local_prbcd) to `rgnn attack`.
func addTargetedFlags(c *cobra.Command) {
	f := c.Flags()
	f.String("targets", "", `targeted attacks: "auto" (Nettack protocol: 10 most, 10 least confident and 20 random `+
		`correctly classified test nodes of the first victim) or a FILE of node ids (text: whitespace/comma separated, `+
		`# comments; or a JSON list)`)
	f.String("budget", "", `targeted attacks: per-target budget "degree+K" (default degree+2); `+
		`or give --epsilon for round(ε·degree)`)
	f.Float64("lr-factor", 0, "targeted attacks: local_prbcd learning-rate factor (0: the reference's 0.05 for GCN)")
	f.String("perturb", "structure", `nettack only: what each greedy step may flip: "structure" (edges at the target), `+
		`"features" (the target's binary features; needs binary features, e.g. --binary-attr; additions pass Nettack's `+
		`word co-occurrence test) or "both" (per step the better of the best edge and the best feature flip, from the same `+
		`budget, as the original Nettack); --out saves a target's feature flips as feature_flips (k×2: node, feature) in its npz`)
}

// parseDegreeBudget parses "degree+K" / "degree" / "deg+K".
func parseDegreeBudget(s string) (int, error) {
	t := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), " ", "")
	for _, p := range []string{"degree", "deg"} {
		if rest, ok := strings.CutPrefix(t, p); ok {
			if rest == "" {
				return 0, nil
			}
			if k, err := strconv.Atoi(strings.TrimPrefix(rest, "+")); err == nil && strings.HasPrefix(rest, "+") && k >= 0 {
				return k, nil
			}
		}
	}
	return 0, fmt.Errorf(`--budget must be "degree+K" with K ≥ 0 (e.g. degree+2), got %q`, s)
}

// readTargets reads a target list: a JSON list of ints, or text with ids
// separated by whitespace or commas (# starts a comment).
func readTargets(path string, n int) ([]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []int
	if s := strings.TrimSpace(string(b)); strings.HasPrefix(s, "[") {
		if err := json.Unmarshal([]byte(s), &out); err != nil {
			return nil, fmt.Errorf("%s: not a JSON list of node ids: %w", path, err)
		}
	} else {
		for ln, line := range strings.Split(string(b), "\n") {
			if i := strings.IndexByte(line, '#'); i >= 0 {
				line = line[:i]
			}
			for _, tok := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\r' }) {
				v, err := strconv.Atoi(tok)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: %q is not a node id", path, ln+1, tok)
				}
				out = append(out, v)
			}
		}
	}
	if out == nil {
		out = []int{}
	}
	if err := protocol.CheckTargets(out, n); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// runTargetedAttack is `rgnn attack` for a targeted attack.
func runTargetedAttack(c *cobra.Command, spec attack.Spec) error {
	start := time.Now()
	f := c.Flags()
	reg := attack.Default()
	if !spec.Targeted {
		return usagef("--targets, --budget, --lr-factor and --perturb are for the targeted attacks (%s), not %s", strings.Join(reg.TargetedNames(), ", "), spec.Name)
	}
	perturb, _ := f.GetString("perturb")
	if !slices.Contains(attack.Perturbs, perturb) {
		return usagef("--perturb must be one of %s, got %q", strings.Join(attack.Perturbs, ", "), perturb)
	}
	if f.Changed("perturb") {
		a, err := spec.NewTargeted(attack.Options{})
		if _, ok := a.(attack.FeatureTargetedAttack); err != nil || !ok {
			return usagef("--perturb is for attacks that can flip features (nettack), not %s", spec.Name)
		}
	}
	tflag, _ := f.GetString("targets")
	if tflag == "" {
		return usagef("attack %s is targeted: give --targets auto|FILE", spec.Name)
	}
	var budget protocol.TargetedBudget
	bflag, _ := f.GetString("budget")
	switch {
	case bflag != "" && f.Changed("epsilon"):
		return usagef("give either --budget degree+K or --epsilon, not both")
	case f.Changed("epsilon"):
		budget.Epsilons, _ = f.GetFloat64Slice("epsilon")
		for _, e := range budget.Epsilons {
			if !(e > 0 && e <= 100) {
				return usagef("--epsilon values of a targeted attack must be in (0, 100] (budget round(ε·degree)), got %v", e)
			}
		}
		if len(budget.Epsilons) == 0 {
			return usagef("--epsilon is empty")
		}
	default:
		budget.Plus = 2
		if bflag != "" {
			k, err := parseDegreeBudget(bflag)
			if err != nil {
				return usageError{err}
			}
			budget.Plus = k
		}
	}
	lossName, _, err := sharedAttackFlags(f, spec)
	if err != nil {
		return err
	}
	seed, _ := f.GetInt("seed")
	epochs, _ := f.GetInt("epochs")
	block, _ := f.GetInt("block-size")
	lrf, _ := f.GetFloat64("lr-factor")
	if seed < 0 || epochs < 0 || block < 0 || lrf < 0 {
		return usagef("--seed, --epochs, --block-size and --lr-factor must be ≥ 0")
	}
	degTest, err := degreeTestFlag(f)
	if err != nil {
		return err
	}
	p, err := loadProblem(c, seed)
	if err != nil {
		return err
	}
	var targets []int
	if tflag != "auto" {
		if targets, err = readTargets(tflag, p.Graph.Adj.Rows); err != nil {
			return usageError{fmt.Errorf("--targets: %w", err)}
		}
	}
	prob := p.dp()
	quiet, _ := f.GetBool("quiet")
	progress := newProgress(quiet)
	victims, err := targetedVictims(c, p, seed, progress)
	if err != nil {
		return err
	}
	if len(victims) == 0 {
		return usagef("a targeted attack needs at least one --victim")
	}
	cfg := protocol.TargetedConfig{Attack: spec.Name, Targets: targets, Budget: budget, Seed: uint64(seed), Loss: lossName,
		Options: attack.Options{Epochs: epochs, BlockSize: block, LRFactor: lrf, DegreeTest: degTest, Perturb: perturb}, Victims: victims, Progress: progress}
	cfg.Direct, _ = f.GetBool("adaptive")
	if cfg.Surrogate, err = surrogateFromFlag(c, p, seed); err != nil {
		return err
	}
	// A bad --out is found before the attack, not after it.
	out, err := outDirFlag(f)
	if err != nil {
		return err
	}
	res, err := protocol.RunTargeted(context.Background(), cfg, prob)
	if progress != nil {
		fmt.Fprint(progressWriter(), "\r\033[K")
	}
	if err != nil {
		return err
	}
	rep := targetedReport{TargetedResult: res}
	if out != "" {
		if rep.Files, err = res.Save(out, prob); err != nil {
			return err
		}
	}
	rep.TotalSeconds = time.Since(start).Seconds()
	if wantJSON(c) {
		return writeJSON(c.OutOrStdout(), rep)
	}
	w := c.OutOrStdout()
	feats := res.Perturb != "" && res.Perturb != "structure"
	perturbNote := ""
	if res.Perturb != "" {
		perturbNote = ", perturb " + res.Perturb
	}
	fmt.Fprintf(w, "%s %s targeted attack on %s (seed %d, loss %s, attacked model %s, budget %s%s, %d targets %s)\n",
		res.Mode, res.Attack, res.Dataset, res.Seed, lossOrNone(res.Loss), res.AttackedModel, res.Budget, perturbNote, len(res.Targets), res.Selection)
	flipsHead := "flips"
	if feats {
		flipsHead = "flips  feat"
	}
	fmt.Fprintf(w, "  %-7s %-7s %4s %6s %6s  %-16s %6s %8s %8s %s\n", "target", "group", "deg", "eps", "budget", "victim",
		flipsHead, "clean", "margin", "correct")
	for _, r := range res.Rows {
		for i, v := range r.Victims {
			head := fmt.Sprintf("  %-7d %-7s %4d %6s %6d", r.Target, r.Group, r.Degree, epsLabel(r.Epsilon), r.Budget)
			if i > 0 {
				head = fmt.Sprintf("  %-7s %-7s %4s %6s %6s", "", "", "", "", "")
			}
			fl := fmt.Sprintf("%2d+%-2d", v.Added, v.Removed)
			if feats {
				fl += fmt.Sprintf(" %5d", len(v.FeatureFlips))
			}
			fmt.Fprintf(w, "%s  %-16s %s %+8.3f %+8.3f %v\n", head, v.Name, fl, v.CleanMargin, v.Margin, v.Correct)
		}
	}
	fmt.Fprintf(w, "summary (margin = P(y) − max P(c) at the target; failure rate = targets still correct):\n")
	for _, s := range res.Summary {
		fmt.Fprintf(w, "  %-16s eps %-5s %3d targets: clean margin %+.3f (acc %.3f) → margin %+.3f ± %.3f, failure rate %.3f, %.3f s/target\n",
			s.Victim, epsLabel(s.Epsilon), s.Targets, s.CleanMargin, s.CleanAccuracy, s.MeanMargin, s.MarginSE, s.FailureRate, s.SecondsPerTarget)
	}
	if feats {
		for _, s := range res.Summary {
			fmt.Fprintf(w, "  %-16s eps %-5s per target %.2f edge + %.2f feature flips\n", s.Victim, epsLabel(s.Epsilon), s.MeanEdgeFlips, s.MeanFeatureFlips)
		}
	}
	if res.Skipped > 0 {
		fmt.Fprintf(w, "  (%d target/ε pairs with budget round(ε·degree) = 0 skipped)\n", res.Skipped)
	}
	if len(rep.Files) > 0 {
		fmt.Fprintf(w, "saved %d perturbed graphs in %s\n", len(rep.Files), out)
	}
	return nil
}

func epsLabel(e float64) string {
	if e == 0 {
		return "-"
	}
	return strconv.FormatFloat(e, 'g', -1, 64)
}

func lossOrNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// targetedVictims builds the --victim models (attackVictims); a label given
// twice is a usage error, since the per-target rows are keyed by it.
func targetedVictims(c *cobra.Command, p *problem, seed int, progress func(string, int, int)) ([]protocol.Victim, error) {
	f := c.Flags()
	names := splitList(f, "victim")
	weights := splitList(f, "weights")
	if len(weights) > len(names) {
		return nil, usagef("%d --weights for %d victims", len(weights), len(names))
	}
	seen := map[string]bool{}
	for _, vn := range names {
		label := victimLabel(c, vn)
		if seen[label] {
			return nil, usagef("victim %s given twice", label)
		}
		seen[label] = true
	}
	return attackVictims(c, p, names, weights, seed, progress)
}
