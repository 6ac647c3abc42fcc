package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/protocol"
	"github.com/rgnn/rgnn/model"
)

// attackReport is the JSON output of `rgnn attack`.
type attackReport struct {
	*protocol.Result
	Files        []string `json:"files,omitempty"`
	TotalSeconds float64  `json:"total_seconds"`
}

func newAttackCmd() *cobra.Command {
	reg := attack.Default()
	c := &cobra.Command{
		Use:   "attack",
		Short: "Structure attacks (global evasion or poisoning, targeted): perturb the graph, evaluate victims",
		Long: `Compute a global structure attack for each --epsilon (budget round(ε·m) edge flips, m =
undirected edges) and report the victims' clean and perturbed test accuracy, the flips made
(added/removed) and the time taken.

Transfer (default): the perturbation is computed on a GCN surrogate trained on the clean graph with
the same seed (64 hidden, dropout 0.5, lr 1e-2, weight decay 1e-3, patience 100), then applied to
every victim. --adaptive attacks the first victim itself, differentiating through its own
preprocessing and aggregation: models with plain gcn_norm (gcn, sm_gcn, ...) and with exact GDC
(gdc, sm_gdc, ...: dense n×n diffusion per step, up to 20,000 nodes), not SVD/Jaccard;
fgsm and pgd need all-pairs gradients, available for gcn only.

Attacks: ` + strings.Join(reg.Names(), ", ") + `. Losses: ` + strings.Join(attack.LossNames(), ", ") + `.
Victims are given by --victim (comma-separated model names) with --weights (comma-separated, same
order, ours or the reference layout); a victim without weights is trained here first.
Poisoning (metattack): the perturbation is computed by Metattack's own linear surrogates
(--variant self: Meta-Self, exact meta-gradient through 100 SGD steps; approx: MetaApprox) and
every victim is TRAINED FROM SCRATCH on each perturbed graph with the same seed; the clean accuracy
is the victim trained on the clean graph (--weights are not accepted). The budgets are incremental:
a larger ε continues from the smaller one's flips. On cora_ml use --binary-attr: the published
Metattack ran on binary bag-of-words features, and on the row-normalised TF-IDF features the
surrogates' 100 SGD steps (lr 0.1) barely train, which makes the attack far weaker (BENCHMARKS.md).
Each budget's graph is saved (--out) and its accuracies printed as soon as it is done.
With --out the perturbed graphs are written in the reference attack format
(<dataset>_<attack>_s<seed>_eps<ε>.npz), readable by 'rgnn eval --graph'.

Targeted attacks (` + strings.Join(reg.TargetedNames(), ", ") + `) need --targets auto|FILE and attack every target on its
own (evasion) with budget --budget degree+K (default degree+2) or round(ε·degree) for each --epsilon;
they report per target the victims' probability margin P(y) − max P(c) before and after, and per
victim the mean margin ± s.e. and the failure rate (targets still correct). nettack transfers from
its linearised GCN surrogate; local_prbcd transfers from the GCN surrogate, or with --adaptive
attacks each victim itself (direct). --out saves <dataset>_<attack>_s<seed>_node<u>_budget<b>[_<victim>].npz.`,
		Example: `  rgnn attack --dataset cora_ml --attack prbcd --epsilon 0.1,0.25 --seed 0 --out attacks/ --json
  rgnn attack --attack fgsm --epsilon 0.1,0.25 --victim gcn,sm_gdc --temperature 0.5 \
      --weights cora_ml_Vanilla_GCN_s0_bin0.npz,cora_ml_Soft_Medoid_GDC_T_0_5_s0_bin0.npz --seed 0
  rgnn attack --attack nettack --targets auto --budget degree+2 --victim gcn,sm_gdc --temperature 0.2 --seed 0
  rgnn attack --attack local_prbcd --adaptive --targets nodes.txt --epsilon 0.5,1 --victim gcn --seed 0 --json
  rgnn attack --attack metattack --binary-attr --epsilon 0.05,0.1,0.25 --victim gcn,sm_gdc --temperature 0.2 --seed 0`,
		Args: cobra.NoArgs,
		RunE: runAttack,
	}
	addProblemFlags(c)
	f := c.Flags()
	f.String("attack", "prbcd", "attack: "+strings.Join(reg.Names(), ", "))
	f.Float64Slice("epsilon", []float64{0.1, 0.25}, "budgets as fractions of the undirected edges (comma-separated)")
	f.Int("seed", 0, "seed of the attack, the surrogate and (default) the split")
	f.String("loss", "", "attack loss (default: the attack's; fgsm/pgd ce, prbcd tanh_margin, grbcd mce, local_prbcd margin)")
	f.String("surrogate", "gcn", "transfer surrogate model (only gcn)")
	f.String("surrogate-weights", "", "gradient attacks: weights of the GCN surrogate (default: train it on the clean graph)")
	f.Bool("adaptive", false, "gradient attacks: attack the first victim itself instead of the surrogate "+
		"(local_prbcd: every victim, direct)")
	f.String("victim", "gcn", "victim models, comma-separated: "+strings.Join(modelRegistry().Names(), ", "))
	f.String("weights", "", "victim weights, comma-separated in --victim order (missing: train the victim)")
	f.Float64("temperature", 1.0, "Soft Medoid / Soft Median temperature T of the victims")
	f.Int("k", 64, "top-k neighbours of the robust aggregations and of GDC")
	f.Int("hidden", 64, "hidden units of the victims")
	f.String("normalization", "", `Soft Medoid normalisation: "" or "alt"`)
	f.Float64("ppr-eps", 0, "GDC: 0 = exact PPR, > 0 = push approximation")
	f.Int("epochs", 0, "attack epochs (0: the attack's default: pgd 200, prbcd/grbcd 500, local_prbcd 500 + 100 fine-tuning; metattack: inner training steps, 100)")
	f.String("variant", "self", "metattack variant: self (Meta-Self) or approx (MetaApprox)")
	f.String("degree-test", "paper", "nettack/metattack degree-distribution likelihood-ratio test: paper (eq. 7 of Zügner et al.), "+
		"repo (the log-likelihood sign of the published Nettack/Metattack code) or off (no test)")
	f.Int("block-size", 0, "PR-BCD/GR-BCD block size (0: 1e6); local_prbcd: block of candidate pairs (u, v) per target (0: 10,000)")
	f.Int("refine", 0, "PR-BCD: rounds of greedy swaps within the final block after sampling, each kept only if the "+
		"attacked model's accuracy does not rise (0: none, as the reference); needs the GCN or GDC engine: the attacked "+
		"model must be a gcn (the transfer surrogate, or an --adaptive gcn victim) or an --adaptive GDC model (gdc, sm_gdc, ...); "+
		"other adaptive victims use the autograd tape engine, which cannot refine")
	f.String("out", "", "directory for the perturbed graphs")
	f.Bool("quiet", false, "no progress output")
	addTargetedFlags(c)
	addJSONFlag(c)
	return c
}

func runAttack(c *cobra.Command, _ []string) error {
	start := time.Now()
	f := c.Flags()
	name, _ := f.GetString("attack")
	reg := attack.Default()
	spec, ok := reg.Lookup(name)
	if !ok {
		return usagef("unknown attack %q (known: %s)", name, strings.Join(reg.Names(), ", "))
	}
	if spec.Targeted || f.Changed("targets") || f.Changed("budget") || f.Changed("lr-factor") || f.Changed("perturb") {
		return runTargetedAttack(c, spec)
	}
	variant, _ := f.GetString("variant")
	if variant != "self" && variant != "approx" {
		return usagef("--variant must be self or approx, got %q", variant)
	}
	degTest, err := degreeTestFlag(f)
	if err != nil {
		return err
	}
	eps, _ := f.GetFloat64Slice("epsilon")
	for i, e := range eps {
		if !(e >= 0 && e <= 1) {
			return usagef("--epsilon values must be in [0, 1], got %v", e)
		}
		if spec.Incremental && i > 0 && e < eps[i-1] {
			return usagef("%s is incremental (a larger ε continues from a smaller one's flips): give --epsilon in "+
				"increasing order, got %v", name, eps)
		}
	}
	lossName, refine, err := sharedAttackFlags(f, spec)
	if err != nil {
		return err
	}
	seed, _ := f.GetInt("seed")
	if seed < 0 {
		return usagef("--seed must be ≥ 0")
	}
	epochs, _ := f.GetInt("epochs")
	block, _ := f.GetInt("block-size")
	if epochs < 0 || block < 0 {
		return usagef("--epochs and --block-size must be ≥ 0")
	}
	p, err := loadProblem(c, seed)
	if err != nil {
		return err
	}
	prob := p.dp()
	quiet, _ := f.GetBool("quiet")
	progress := newProgress(quiet)

	victimNames := splitList(f, "victim")
	weights := splitList(f, "weights")
	if len(weights) > len(victimNames) {
		return usagef("%d --weights for %d victims", len(weights), len(victimNames))
	}
	if spec.Poisoning && len(weights) > 0 {
		return usagef("%s is a poisoning attack: victims are trained here, on the clean and on every perturbed graph (no --weights)", name)
	}
	victims, err := attackVictims(c, p, victimNames, weights, seed, progress)
	if err != nil {
		return err
	}
	if spec.Poisoning {
		for i, vn := range victimNames {
			victims[i].Train = victimTrainer(c, p, vn, uint64(seed), "retrain", progress)
		}
	}
	cfg := protocol.Config{Attack: name, Epsilons: eps, Seed: uint64(seed), Loss: lossName,
		Options: attack.Options{Epochs: epochs, BlockSize: block, Variant: variant, DegreeTest: degTest, Refine: refine}, Victims: victims, Progress: progress}
	cfg.Adaptive, _ = f.GetBool("adaptive")
	if cfg.Adaptive && len(victims) == 0 {
		return usagef("--adaptive needs a --victim")
	}
	if cfg.Surrogate, err = surrogateFromFlag(c, p, seed); err != nil {
		return err
	}
	// Each budget's graph is saved, and with progress reported, as soon as
	// it is done: a long run (Metattack) keeps what it finished.
	out, err := outDirFlag(f)
	if err != nil {
		return err
	}
	var files []string
	cfg.OnBudget = func(r *protocol.Result, b protocol.BudgetResult) error {
		if out != "" {
			path, err := r.SaveBudget(out, b)
			if err != nil {
				return err
			}
			files = append(files, path)
		}
		if progress != nil {
			var vs []string
			for _, v := range b.Victims {
				vs = append(vs, fmt.Sprintf("%s %.4f", v.Name, v.Accuracy))
			}
			fmt.Fprintf(progressWriter(), "\r\033[Kε=%g done: %d flips in %.1fs; %s\n", b.Epsilon, b.NumFlips, b.Seconds,
				strings.Join(vs, ", "))
		}
		return nil
	}
	res, err := protocol.Run(context.Background(), cfg, prob)
	if progress != nil {
		fmt.Fprint(progressWriter(), "\r\033[K")
	}
	if err != nil {
		return err
	}
	rep := attackReport{Result: res, Files: files}
	rep.TotalSeconds = time.Since(start).Seconds()
	if wantJSON(c) {
		return writeJSON(c.OutOrStdout(), rep)
	}
	w := c.OutOrStdout()
	if res.Mode == "poisoning" {
		fmt.Fprintf(w, "poisoning %s attack on %s (seed %d; victims trained from scratch on each graph)\n",
			res.Attack, res.Dataset, res.Seed)
	} else if res.Mode == "model-free" {
		fmt.Fprintf(w, "model-free %s attack on %s (seed %d)\n", res.Attack, res.Dataset, res.Seed)
	} else {
		fmt.Fprintf(w, "%s %s attack on %s (seed %d, loss %s, attacked model %s: clean accuracy %.4f)\n",
			res.Mode, res.Attack, res.Dataset, res.Seed, res.Loss, res.AttackedModel, res.AttackedClean)
	}
	for _, v := range res.Clean {
		fmt.Fprintf(w, "  clean      %-16s %.4f\n", v.Name, v.Accuracy)
	}
	for i, b := range res.Budgets {
		if res.Mode == "poisoning" || res.Mode == "model-free" {
			fmt.Fprintf(w, "  ε=%-5g %4d flips (+%d −%d) in %.1fs\n", b.Epsilon, b.NumFlips, b.Added, b.Removed, b.Seconds)
		} else {
			fmt.Fprintf(w, "  ε=%-5g %4d flips (+%d −%d) in %.1fs, attacked model %.4f\n", b.Epsilon, b.NumFlips,
				b.Added, b.Removed, b.Seconds, b.AttackedAccuracy)
		}
		for _, v := range b.Victims {
			fmt.Fprintf(w, "             %-16s %.4f\n", v.Name, v.Accuracy)
		}
		if i < len(rep.Files) {
			fmt.Fprintf(w, "             saved %s\n", rep.Files[i])
		}
	}
	return nil
}

// splitList returns the non-empty comma-separated items of a string flag.
func splitList(c interface{ GetString(string) (string, error) }, name string) []string {
	s, _ := c.GetString(name)
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// victimModel builds a named model with the victim option flags.
func victimModel(c *cobra.Command, p *problem, name string, seed uint64) (model.Model, error) {
	f := c.Flags()
	o := model.Options{Seed: seed}
	o.Temperature, _ = f.GetFloat64("temperature")
	o.K, _ = f.GetInt("k")
	o.Hidden, _ = f.GetInt("hidden")
	o.Normalization, _ = f.GetString("normalization")
	o.PPREps, _ = f.GetFloat64("ppr-eps")
	if !(o.Temperature > 0) || o.K < 1 || o.Hidden < 1 || o.PPREps < 0 {
		return nil, usagef("--temperature must be > 0, --k and --hidden ≥ 1, --ppr-eps ≥ 0")
	}
	reg := modelRegistry()
	if _, ok := reg.Lookup(name); !ok {
		return nil, usagef("unknown model %q (known: %s)", name, strings.Join(reg.Names(), ", "))
	}
	m, err := reg.New(name, p.Graph.Features.Cols, p.Graph.NumClasses, o)
	if err != nil {
		return nil, usageError{err}
	}
	return m, nil
}

// newProgress returns a throttled progress printer on stderr (nil: quiet).
func newProgress(quiet bool) func(stage string, done, total int) {
	if quiet {
		return nil
	}
	last := time.Time{}
	return func(stage string, done, total int) {
		if done < total && time.Since(last) < 300*time.Millisecond {
			return
		}
		last = time.Now()
		const width = 30
		k := width * done / max(total, 1)
		fmt.Fprintf(progressWriter(), "\r\033[K%-14s [%s%s] %d/%d", stage, strings.Repeat("=", k),
			strings.Repeat(" ", width-k), done, total)
	}
}

// attackVictims builds the --victim models: with their --weights when given
// (weights[i] for names[i]), otherwise trained here on the clean graph with
// the reference protocol (victimTrainer). Soft Medoid/Median victims are labelled with their
// temperature.
func attackVictims(c *cobra.Command, p *problem, names, weights []string, seed int,
	progress func(string, int, int)) ([]protocol.Victim, error) {
	var out []protocol.Victim
	for i, vn := range names {
		var m model.Model
		var err error
		if i < len(weights) && weights[i] != "" {
			if m, err = victimModel(c, p, vn, uint64(seed)); err == nil {
				err = loadWeights(m, weights[i])
			}
		} else {
			m, err = victimTrainer(c, p, vn, uint64(seed), "train", progress)(context.Background(), p.Graph.Adj)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, protocol.Victim{Name: victimLabel(c, vn), Model: m})
	}
	return out, nil
}

// surrogateFromFlag returns the GCN of --surrogate-weights, or nil when the
// flag is not set (the attack then trains its own surrogate).
func surrogateFromFlag(c *cobra.Command, p *problem, seed int) (model.Model, error) {
	sw, _ := c.Flags().GetString("surrogate-weights")
	if sw == "" {
		return nil, nil
	}
	m, err := victimModel(c, p, "gcn", uint64(seed))
	if err != nil {
		return nil, err
	}
	if err := loadWeights(m, sw); err != nil {
		return nil, err
	}
	return m, nil
}

// victimLabel names a victim in the results: Soft Medoid/Median models carry
// their --temperature.
func victimLabel(c *cobra.Command, vn string) string {
	if t, _ := c.Flags().GetFloat64("temperature"); strings.HasPrefix(vn, "sm_") || strings.HasPrefix(vn, "softmedian") {
		return fmt.Sprintf("%s_T%g", vn, t)
	}
	return vn
}

// outDirFlag creates the --out directory, if one is given, before any work
// starts: a bad path is reported at once, not after a long attack.
func outDirFlag(f *pflag.FlagSet) (string, error) {
	out, _ := f.GetString("out")
	if out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return "", fmt.Errorf("--out %s: %w", out, err)
		}
	}
	return out, nil
}

// degreeTestFlag validates --degree-test.
func degreeTestFlag(f *pflag.FlagSet) (string, error) {
	s, _ := f.GetString("degree-test")
	if !slices.Contains(attack.DegreeTests, s) {
		return "", usagef("--degree-test must be one of %s, got %q", strings.Join(attack.DegreeTests, ", "), s)
	}
	return s, nil
}

// sharedAttackFlags validates the flags global and targeted attacks share
// (--loss, --surrogate, --refine, and that --loss, --adaptive,
// --surrogate-weights, --epochs, --block-size, --lr-factor, --variant and
// --degree-test are given only to attacks that take them) and returns the
// loss name and refine rounds.
func sharedAttackFlags(f *pflag.FlagSet, spec attack.Spec) (string, int, error) {
	lossName, _ := f.GetString("loss")
	if lossName != "" {
		if _, err := attack.LossByName(lossName); err != nil {
			return "", 0, usageError{err}
		}
	}
	if f.Changed("loss") && spec.DefaultLoss == "" {
		return "", 0, usagef("--loss applies to attacks with a loss (%s), not %s",
			attacksWhere(func(s attack.Spec) bool { return s.DefaultLoss != "" }), spec.Name)
	}
	// Only gradient attacks differentiate a model: the GCN surrogate
	// (--surrogate-weights) or, with --adaptive, the victims.
	for _, fl := range []string{"adaptive", "surrogate-weights"} {
		if f.Changed(fl) && !spec.Gradient {
			return "", 0, usagef("--%s applies to the gradient attacks (%s), not %s",
				fl, attacksWhere(func(s attack.Spec) bool { return s.Gradient }), spec.Name)
		}
	}
	if adaptive, _ := f.GetBool("adaptive"); adaptive && f.Changed("surrogate-weights") {
		return "", 0, usagef("--surrogate-weights is for transfer attacks; --adaptive attacks the victims themselves")
	}
	if f.Changed("epochs") && !slices.Contains([]string{"pgd", "prbcd", "grbcd", "local_prbcd", "metattack"}, spec.Name) {
		return "", 0, usagef("--epochs applies to pgd, prbcd, grbcd, local_prbcd and metattack only, not %s", spec.Name)
	}
	if f.Changed("block-size") && !slices.Contains([]string{"prbcd", "grbcd", "local_prbcd"}, spec.Name) {
		return "", 0, usagef("--block-size applies to prbcd, grbcd and local_prbcd only, not %s", spec.Name)
	}
	if f.Changed("lr-factor") && spec.Name != "local_prbcd" {
		return "", 0, usagef("--lr-factor applies to local_prbcd only, not %s", spec.Name)
	}
	if s, _ := f.GetString("surrogate"); s != "gcn" {
		return "", 0, usagef("--surrogate must be gcn, got %q", s)
	}
	refine, _ := f.GetInt("refine")
	if refine < 0 {
		return "", 0, usagef("--refine must be ≥ 0")
	}
	if refine > 0 && spec.Name != "prbcd" {
		return "", 0, usagef("--refine applies to prbcd only, not %s", spec.Name)
	}
	if f.Changed("variant") && spec.Name != "metattack" {
		return "", 0, usagef("--variant applies to metattack only, not %s", spec.Name)
	}
	if f.Changed("degree-test") && spec.Name != "metattack" && spec.Name != "nettack" {
		return "", 0, usagef("--degree-test applies to nettack and metattack only, not %s", spec.Name)
	}
	return lossName, refine, nil
}

// attacksWhere lists the registered attacks whose spec satisfies ok.
func attacksWhere(ok func(attack.Spec) bool) string {
	reg := attack.Default()
	var out []string
	for _, n := range reg.Names() {
		if s, _ := reg.Lookup(n); ok(s) {
			out = append(out, n)
		}
	}
	return strings.Join(out, ", ")
}
