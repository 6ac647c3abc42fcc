package task

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rgnn/rgnn/aggregate"
	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/bridge"
	"github.com/rgnn/rgnn/certify"
	"github.com/rgnn/rgnn/model"
)

// Data selects a dataset.
type Data struct {
	// Dataset is a registered name (data.Names) or the path of a dataset
	// .npz in the cora_ml layout. Zero: cora_ml.
	Dataset string `param:"dataset" help:"dataset: a name ({datasets}) or the path of a dataset .npz"`
	// BinaryAttr binarises the features (every nonzero becomes 1).
	BinaryAttr bool `param:"binary_attr" help:"binarise the features (every nonzero becomes 1)"`
}

// Model selects a model and its hyperparameters. Parameters the model does
// not use (model.Spec.Uses) are ignored for it: neither validated nor part
// of its identity.
type Model struct {
	// Model is a registry name (model.Registry). Zero: gcn.
	Model string `param:"model" help:"model: {models}"`
	// Temperature of the Soft Medoid / Soft Median (default 1).
	Temperature float64 `param:"temperature" uses:"Temperature" help:"Soft Medoid / Soft Median temperature T (models that take one)"`
	// K is the top-k of the robust aggregations and of GDC (default 64).
	K int `param:"k" uses:"K" key:"keep" help:"top-k neighbours of the robust aggregations and of GDC (above the number of nodes it selects whole rows, and is clamped to it)"`
	// Hidden units (default 64).
	Hidden int `param:"hidden" help:"hidden units"`
	// Normalization "" (the paper's Eq. 6-7) or "alt" (the appendix's SM†).
	Normalization string `param:"normalization" uses:"Normalization" help:"Soft Medoid normalisation: \"\" (Eq. 6-7) or \"alt\" (the appendix's SM†)"`
	// PPREps selects GDC's PPR: 0 exact, > 0 the push approximation with
	// this error.
	PPREps float64 `param:"ppr_eps" uses:"Diffusion" key:"keep" help:"GDC: 0 = exact PPR, > 0 = push approximation with this error"`
	// ExternalCmd is the command of the external model (package bridge):
	// the process rgnn runs and talks to. Part of the model's identity.
	ExternalCmd string `param:"external_cmd" uses:"External" key:"omitdefault" help:"--model external: the command that runs your model, split like a shell (e.g. \"python3 my_model.py --checkpoint m.pt\"; protocol: docs/BRIDGE.md)"`
	// ExternalTimeout bounds the external model's start-up and each of its
	// requests, in seconds (0: bridge.DefaultTimeout).
	ExternalTimeout float64 `param:"external_timeout" uses:"External" cli:"only" help:"--model external: seconds to wait for the model's start-up and for each reply (0: 600)"`
}

// Fit is the training protocol (the reference's: Adam, early stopping on
// the validation loss, best weights restored).
type Fit struct {
	MaxEpochs int `param:"max_epochs" help:"maximum training epochs"`
	Patience  int `param:"patience" help:"early-stopping patience in epochs"`
	// LR is Adam's learning rate.
	LR float64 `param:"lr" help:"Adam learning rate"`
	// WeightDecay is the L2 weight decay on all parameters (0: none).
	WeightDecay float64 `param:"weight_decay" help:"L2 weight decay on all parameters (0: none)"`
	// BatchSize > 0 trains models that support it (model.Spec.MiniBatch:
	// the PPRGo models) in mini-batches of that many training nodes; 0
	// chooses: mini-batches of AutoBatchSize on graphs of more than
	// AutoBatchNodes nodes, else full batch. A flag only, so that the keys
	// of stored runs stay: experiment runs use the automatic choice, which
	// depends only on the model and the dataset.
	BatchSize int `param:"batch_size" cli:"only" help:"PPRGo models: train in mini-batches of this many training nodes (0: full batch up to 100,000 nodes, batches of 512 above)"`
}

// AutoBatchNodes is the graph size above which models that support it
// train in mini-batches when Fit.BatchSize is 0.
const AutoBatchNodes = 100_000

// AutoBatchSize is the mini-batch size chosen when Fit.BatchSize is 0 on a
// graph of more than AutoBatchNodes nodes (PPRGo's).
const AutoBatchSize = 512

// EffectiveBatchSize is the mini-batch size model m trains with on a graph
// of n nodes: Fit.BatchSize when given, else the automatic choice; 0 is
// full batch (always for models without mini-batch training).
func (t Train) EffectiveBatchSize(n int) int {
	s, _ := Models().Lookup(t.Model.Model)
	switch {
	case !s.MiniBatch:
		return 0
	case t.BatchSize > 0:
		return t.BatchSize
	case n > AutoBatchNodes:
		return AutoBatchSize
	}
	return 0
}

// Train trains a model.
type Train struct {
	Data
	Model
	// Seed seeds the initialisation, dropout and (unless SplitSeed is set)
	// the split.
	Seed int `param:"seed" help:"seed of the initialisation, dropout and (by default) the split"`
	// SplitSeed seeds the 20/20-per-class split; nil: Seed.
	SplitSeed *int `param:"split_seed" cli:"only" help:"seed of the 20/20-per-class split (default: --seed)"`
	Fit
}

// GraphFile selects the graph a task runs on.
type GraphFile struct {
	// Graph is a perturbed adjacency file (the reference attack format,
	// optionally with feature flips); "" is the clean graph.
	Graph string `param:"graph" help:"perturbed graph (.npz: edge_index, edge_weight, shape as the reference writes it, or the compact form for large graphs, added and removed edges; its feature_flips, if any, are applied to the features, which needs --binary-attr); empty: the clean graph"`
}

// Eval evaluates trained weights on the clean or a perturbed graph.
type Eval struct {
	Train
	GraphFile
	// Weights are the weights to evaluate (ours or the reference layout);
	// "" trains the model of Train first.
	Weights string `param:"weights" cli:"only" help:"weights file (.npz, ours or the reference layout); empty: train the model first"`
}

// Certify computes randomized-smoothing certificates of a trained model
// for edge additions (PAdd) and deletions (PDel), or — like the
// reference, one or the other — for binary attributes set (PAddAtt) and
// cleared (PDelAtt).
type Certify struct {
	Train
	EdgeNoise
	// PAddAtt and PDelAtt smooth the binary attributes instead of the
	// structure (the paper's Table 6 column "attributes": 0.001 and 0.4,
	// the probabilities of the edges).
	PAddAtt float64 `param:"p_add_att" key:"omitdefault" help:"attribute smoothing: p₊, probability of setting a 0 attribute to 1 (binary attributes; instead of p_add/p_del)"`
	PDelAtt float64 `param:"p_del_att" key:"omitdefault" help:"attribute smoothing: p₋, probability of clearing a 1 attribute"`
	// Samples and PreSamples are n₁ (votes) and n₀ (pre-votes: the top
	// classes).
	Samples    int `param:"samples" help:"n₁, samples for the votes"`
	PreSamples int `param:"pre_samples" help:"n₀, samples for the pre-votes (top and runner-up class)"`
	// Alpha is the significance level of the certificate.
	Alpha float64 `param:"alpha" help:"significance level of the certificate"`
	// SamplePPREps is the push-PPR error of GDC models on the sampled
	// graphs (every sample needs a fresh diffusion).
	SamplePPREps float64 `param:"sample_ppr_eps" help:"GDC models: push-PPR error on the sampled graphs (with attribute smoothing the graph is not sampled: the model's own PPR)"`
	DegreeBins   int     `param:"degree_bins" help:"number of equal-frequency degree bins"`
	// ExternalBatch is the number of sampled graphs sent to an external
	// model per request (0: DefaultExternalBatch); the votes do not depend
	// on it.
	ExternalBatch int `param:"external_batch" cli:"only" help:"--model external: sampled graphs per request to the model (0: 32; the votes do not depend on it)"`
}

// DefaultExternalBatch is the number of sampled graphs per request to an
// external model when Certify.ExternalBatch is 0.
const DefaultExternalBatch = 32

// EdgeNoise are the flip probabilities of structure smoothing: a sampled
// graph adds each absent edge with probability PAdd and deletes each edge
// with probability PDel.
type EdgeNoise struct {
	PAdd float64 `param:"p_add" help:"p₊, probability of adding an absent edge"`
	PDel float64 `param:"p_del" help:"p₋, probability of deleting an edge"`
}

// Perturb is a global structure attack on the clean graph, independent of
// any victim: model-free, or transferred from a surrogate GCN trained with
// AttackSeed.
type Perturb struct {
	Data
	Seed int `param:"seed" help:"seed of the split, the initialisation and dropout"`
	AttackParams
}

// AttackParams are the parameters of a global attack.
type AttackParams struct {
	// Attack is a registry name (attack.Registry). Zero: prbcd.
	Attack string `param:"attack" help:"attack: {attacks}; targeted: {targeted}"`
	// Epsilons are the budgets as fractions of the undirected edges
	// (budget round(ε·m)); targeted attacks: of each target's degree.
	Epsilons []float64 `param:"epsilon" help:"budgets as fractions of the undirected edges, comma-separated (targeted attacks: of the target's degree)"`
	// AttackSeed seeds the attack's randomness and its surrogate.
	AttackSeed int `param:"attack_seed" flag:"-" help:"seed of the attack's randomness (and of its surrogate)"`
	// Loss is the attack loss; "" the attack's default.
	Loss string `param:"loss" help:"attack loss: ce, mce, margin, tanh_margin, cw (default: the attack's: fgsm/pgd ce, prbcd tanh_margin, grbcd mce, local_prbcd margin)"`
	// Epochs of PGD, PR-BCD, GR-BCD, local PR-BCD and Metattack's inner
	// training; 0: the attack's default.
	Epochs int `param:"attack_epochs" flag:"epochs" help:"attack epochs (0: the attack's default: pgd 200, prbcd/grbcd 500, local_prbcd 500 + 100 fine-tuning; metattack: inner training steps, 100)"`
	// BlockSize of PR-BCD/GR-BCD (0: 1e6) and local PR-BCD (0: 10,000).
	BlockSize int `param:"block_size" help:"PR-BCD/GR-BCD block size (0: 1e6); local_prbcd: block of candidate pairs (u, v) per target (0: 10,000)"`
}

// Attack attacks victims: a global attack (evasion or poisoning) for each
// budget, or a targeted one for each target and budget.
type Attack struct {
	Train
	AttackParams
	// Adaptive attacks the (first) victim itself instead of a surrogate.
	Adaptive bool `param:"adaptive" help:"gradient attacks: attack the first victim itself instead of the surrogate (local_prbcd: every victim, direct)"`
	// Refine is PR-BCD's rounds of greedy swaps in the final block.
	Refine int `param:"refine" cli:"only" help:"PR-BCD: rounds of greedy swaps within the final block after sampling, each kept only if the attacked model's accuracy does not rise (0: none, as the reference); needs a gcn as the attacked model, or an --adaptive GDC model"`
	// Variant of Metattack: self (Meta-Self) or approx (MetaApprox).
	Variant string `param:"variant" cli:"only" help:"metattack variant: self (Meta-Self) or approx (MetaApprox)"`
	// DegreeTest of Nettack and Metattack: paper, repo or off.
	DegreeTest string `param:"degree_test" cli:"only" help:"nettack/metattack degree-distribution likelihood-ratio test: paper (eq. 7 of Zügner et al.), repo (the sign of the published code) or off"`
	// Targets of a targeted attack: "auto" (Nettack's 40) or a file.
	Targets string `param:"targets" cli:"only" help:"targeted attacks: \"auto\" (10 most, 10 least confident and 20 random correctly classified test nodes of the first victim) or a FILE of node ids (whitespace/comma separated, # comments; or a JSON list)"`
	// Budget of a targeted attack: "degree+K", or "epsilon" for
	// round(ε·degree) with Epsilons.
	Budget string `param:"budget" cli:"only" help:"targeted attacks: per-target budget \"degree+K\", or \"epsilon\" for round(ε·degree) (giving --epsilon selects it)"`
	// Surrogate is the transfer surrogate's model (only gcn).
	Surrogate string `param:"surrogate" cli:"only" help:"transfer surrogate model (only gcn)"`
	// LRFactor of local PR-BCD (0: the reference's).
	LRFactor float64 `param:"lr_factor" cli:"only" help:"local_prbcd learning-rate factor (0: the reference's 0.05 for GCN)"`
	// Perturb is what Nettack may flip: structure, features or both.
	Perturb string `param:"perturb" cli:"only" help:"nettack: what each greedy step may flip: structure (edges at the target), features (the target's binary features; needs --binary-attr) or both (the better of the two per step, as the original Nettack)"`
	// Influencers > 0 makes Nettack an influencer (indirect) attack.
	Influencers int `param:"influencers" cli:"only" help:"nettack: 0 attacks the target's own edges (direct, the default); K > 0 the influencer attack of the Nettack paper, whose flips touch only K of the target's neighbours (not the target)"`
	// EnginePPREps is the push error of an adaptive attack's forward
	// passes through a push-PPR victim (0: the victim's own).
	EnginePPREps float64 `param:"engine_ppr_eps" cli:"only" help:"--adaptive attacks on a model with push PPR (a GDC model with --ppr-eps > 0, PPRGo): the push error of the attack's forward passes (0: the model's own; at arXiv size 2e-4 against the model's 1e-4 halves a PR-BCD epoch at the same strength); the attacked graph is evaluated with the model's own"`
}

// Defaults returns the spec with every parameter at its default.
func (Train) Defaults() Train {
	return Train{Data: Data{Dataset: "cora_ml"}, Model: Model{Model: "gcn", Temperature: aggregate.DefaultTemperature, K: aggregate.DefaultK, Hidden: model.DefaultHidden},
		Fit: Fit{MaxEpochs: 3000, Patience: 300, LR: 0.01, WeightDecay: 1e-3}}
}

// Defaults returns the spec with every parameter at its default.
func (Eval) Defaults() Eval { return Eval{Train: Train{}.Defaults()} }

// Defaults returns the spec with every parameter at its default.
func (Certify) Defaults() Certify {
	return Certify{Train: Train{}.Defaults(), Samples: certify.DefaultSamples, PreSamples: certify.DefaultPreSamples, Alpha: 0.05,
		SamplePPREps: 1e-4, DegreeBins: 5}
}

// Defaults returns the spec with every parameter at its default.
func (AttackParams) Defaults() AttackParams {
	return AttackParams{Attack: "prbcd", Epsilons: []float64{0.1}}
}

// Defaults returns the spec with every parameter at its default.
func (Perturb) Defaults() Perturb {
	return Perturb{Data: Data{Dataset: "cora_ml"}, AttackParams: AttackParams{}.Defaults()}
}

// Defaults returns the spec with every parameter at its default.
func (Attack) Defaults() Attack {
	return Attack{Train: Train{}.Defaults(), AttackParams: AttackParams{}.Defaults(), Variant: "self",
		DegreeTest: "paper", Perturb: "structure", Budget: "degree+2", Surrogate: "gcn"}
}

// Validate checks the dataset choice.
func (d Data) Validate() error {
	if strings.TrimSpace(d.Dataset) == "" {
		return bad("dataset", d.Dataset, "empty")
	}
	return nil
}

// Validate checks the parameters the model uses (Applies).
func (m Model) Validate() error {
	if _, ok := Models().Lookup(m.Model); !ok {
		return bad("model", m.Model, "unknown model (known: %s)", strings.Join(Models().Names(), ", "))
	}
	if m.Hidden < 1 {
		return bad("hidden", m.Hidden, "must be ≥ 1")
	}
	uses := func(param string) bool { return Applies(param, m.Model) }
	if uses("temperature") && (!(m.Temperature > 0) || math.IsInf(m.Temperature, 0)) {
		return bad("temperature", m.Temperature, "must be a positive finite number")
	}
	if uses("k") && m.K < 1 {
		return bad("k", m.K, "must be ≥ 1")
	}
	if uses("normalization") && m.Normalization != "" && m.Normalization != "alt" {
		return bad("normalization", m.Normalization, `must be "" or "alt"`)
	}
	if uses("ppr_eps") && (!(m.PPREps >= 0) || math.IsInf(m.PPREps, 0)) {
		return bad("ppr_eps", m.PPREps, "must be a finite number ≥ 0")
	}
	if uses("external_cmd") {
		if strings.TrimSpace(m.ExternalCmd) == "" {
			return bad("external_cmd", m.ExternalCmd, "model %s needs the command that runs it", m.Model)
		}
		if _, err := bridge.Split(m.ExternalCmd); err != nil {
			return bad("external_cmd", m.ExternalCmd, "%v", err)
		}
	}
	if uses("external_timeout") && (!(m.ExternalTimeout >= 0) || math.IsInf(m.ExternalTimeout, 0)) {
		return bad("external_timeout", m.ExternalTimeout, "must be a finite number of seconds ≥ 0")
	}
	return nil
}

// CheckGiven refuses a model parameter that a front end's user gave
// explicitly (given(param)) when it applies to none of the models
// (Applies) — a temperature for gcn would otherwise be ignored without a
// word. Values left at their default, and parameters of experiment files
// (where a grid's temperature applies to the models that take one), are
// not checked: a run's key keeps such parameters at their default.
func (m Model) CheckGiven(models []string, given func(param string) bool) error {
	for _, f := range Fields(&m) {
		if f.Uses == "" || !given(f.Param) {
			continue
		}
		used := false
		for _, name := range models {
			used = used || Applies(f.Param, name)
		}
		if !used {
			return bad(f.Param, f.Value(), "%s takes no %s, so it would be ignored (models that take one: %s)",
				strings.Join(models, ", "), usesNoun[f.Uses], modelsTaking(f.Param))
		}
	}
	return nil
}

// Validate checks the training protocol.
func (f Fit) Validate() error {
	switch {
	case f.MaxEpochs < 1:
		return bad("max_epochs", f.MaxEpochs, "must be ≥ 1")
	case f.Patience < 1:
		return bad("patience", f.Patience, "must be ≥ 1")
	case !(f.LR > 0) || math.IsInf(f.LR, 0):
		return bad("lr", f.LR, "must be a positive finite number")
	case !(f.WeightDecay >= 0) || math.IsInf(f.WeightDecay, 0):
		return bad("weight_decay", f.WeightDecay, "must be a finite number ≥ 0")
	case f.BatchSize < 0:
		return bad("batch_size", f.BatchSize, "must be ≥ 0")
	}
	return nil
}

func validSeed(name string, s int) error {
	if s < 0 || int64(s) > math.MaxUint32 {
		return bad(name, s, "must be in [0, 2³²)")
	}
	return nil
}

// Validate checks every parameter.
func (t Train) Validate() error {
	if err := t.Data.Validate(); err != nil {
		return err
	}
	if err := t.Model.Validate(); err != nil {
		return err
	}
	if err := validSeed("seed", t.Seed); err != nil {
		return err
	}
	if t.SplitSeed != nil {
		if err := validSeed("split_seed", *t.SplitSeed); err != nil {
			return err
		}
	}
	if s, _ := Models().Lookup(t.Model.Model); t.BatchSize > 0 && !s.MiniBatch {
		return bad("batch_size", t.BatchSize, "model %s trains full batch only (mini-batches: %s)", t.Model.Model, strings.Join(miniBatchModels(), ", "))
	}
	return t.Fit.Validate()
}

// miniBatchModels lists the models that train in mini-batches.
func miniBatchModels() []string {
	var out []string
	for _, s := range Models().Specs() {
		if s.MiniBatch {
			out = append(out, s.Name)
		}
	}
	return out
}

// Validate checks every parameter.
func (e Eval) Validate() error { return e.Train.Validate() }

// Validate checks every parameter.
func (c Certify) Validate() error {
	if err := c.Train.Validate(); err != nil {
		return err
	}
	if err := c.validCertificate(); err != nil {
		return err
	}
	switch {
	case c.Samples < 1 || c.Samples > MaxSamples:
		return bad("samples", c.Samples, "must be in [1, %d]", MaxSamples)
	case c.PreSamples < 1 || c.PreSamples > MaxSamples:
		return bad("pre_samples", c.PreSamples, "must be in [1, %d]", MaxSamples)
	case !(c.SamplePPREps >= 0) || math.IsInf(c.SamplePPREps, 0):
		return bad("sample_ppr_eps", c.SamplePPREps, "must be a finite number ≥ 0")
	case c.ExternalBatch < 0:
		return bad("external_batch", c.ExternalBatch, "must be ≥ 0")
	}
	return nil
}

// MaxSamples bounds the smoothing samples (n₁ and n₀) of a certificate:
// a billion is weeks of sampling for the smallest dataset, and the vote
// checkpoints count samples in 31 bits.
const MaxSamples = 1_000_000_000

// validCertificate checks what a certificate is computed from (Validate
// and FromVotes): the flip probabilities (validNoise), the significance
// level and the degree bins.
func (c Certify) validCertificate() error {
	if err := c.validNoise(); err != nil {
		return err
	}
	if !(c.Alpha > 0 && c.Alpha < 0.5) {
		return bad("alpha", c.Alpha, "must lie in (0, 0.5)")
	}
	if c.DegreeBins < 1 {
		return bad("degree_bins", c.DegreeBins, "must be ≥ 1")
	}
	return nil
}

// validNoise checks the flip probabilities: each a probability, either the
// structure's or the attributes' (the reference certifies one at a time),
// and the attributes' only on binary attributes.
func (c Certify) validNoise() error {
	if c.PAddAtt == 0 && c.PDelAtt == 0 {
		return validProbs(c.PAdd, c.PDel)
	}
	if !(c.PAddAtt >= 0 && c.PAddAtt < 1) {
		return bad("p_add_att", c.PAddAtt, "must be a probability in [0, 1)")
	}
	if !(c.PDelAtt >= 0 && c.PDelAtt < 1) {
		return bad("p_del_att", c.PDelAtt, "must be a probability in [0, 1)")
	}
	if c.PAdd != 0 || c.PDel != 0 {
		return bad("p_add_att", c.PAddAtt, "smooth either the structure (p_add, p_del) or the attributes (p_add_att, "+
			"p_del_att), not both (the certificate is for one of them)")
	}
	if !c.BinaryAttr {
		return bad("p_add_att", c.PAddAtt, "attribute smoothing flips binary attributes: binarise them (binary_attr, --binary-attr)")
	}
	return nil
}

// Attributes reports whether s smooths the attributes (not the structure).
func (c Certify) Attributes() bool { return c.PAddAtt != 0 || c.PDelAtt != 0 }

// noise returns the flip probabilities of what s smooths.
func (c Certify) noise() (plus, minus float64) {
	if c.Attributes() {
		return c.PAddAtt, c.PDelAtt
	}
	return c.PAdd, c.PDel
}

func validProbs(pAdd, pDel float64) error {
	if !(pAdd >= 0 && pAdd < 1) {
		return bad("p_add", pAdd, "must be a probability in [0, 1)")
	}
	if !(pDel >= 0 && pDel < 1) {
		return bad("p_del", pDel, "must be a probability in [0, 1)")
	}
	if pAdd == 0 && pDel == 0 {
		return bad("p_del", pDel, "p_add and p_del are both 0: nothing is randomised")
	}
	return nil
}

// Validate checks the attack parameters against the attack's spec.
func (a AttackParams) Validate() error {
	spec, ok := attack.Default().Lookup(a.Attack)
	if !ok {
		return bad("attack", a.Attack, "unknown attack (known: %s)", strings.Join(attack.Default().Names(), ", "))
	}
	if len(a.Epsilons) == 0 {
		return bad("epsilon", a.Epsilons, "no budget given")
	}
	for i, e := range a.Epsilons {
		if spec.Targeted {
			if !(e > 0 && e <= 100) {
				return bad("epsilon", e, "a targeted attack's budget round(ε·degree) needs ε in (0, 100]")
			}
			continue
		}
		if !(e >= 0 && e <= 1) {
			return bad("epsilon", e, "must be a fraction of the edges in [0, 1]")
		}
		if spec.Incremental && i > 0 && e < a.Epsilons[i-1] {
			return bad("epsilon", a.Epsilons, "%s is incremental (a larger ε continues from a smaller one's flips): give increasing values", a.Attack)
		}
	}
	if err := validSeed("attack_seed", a.AttackSeed); err != nil {
		return err
	}
	if a.Loss != "" {
		if _, err := attack.LossByName(a.Loss); err != nil {
			return bad("loss", a.Loss, "unknown loss (known: %s)", strings.Join(attack.LossNames(), ", "))
		}
	}
	if a.Epochs < 0 {
		return bad("attack_epochs", a.Epochs, "must be ≥ 0")
	}
	if a.BlockSize < 0 {
		return bad("block_size", a.BlockSize, "must be ≥ 0")
	}
	return nil
}

// OneBudget refuses more than one ε: a stored run (an experiment's perturb
// or attack run) has one budget, and a list of them is a grid of runs.
func (a AttackParams) OneBudget() error {
	if len(a.Epsilons) != 1 {
		return bad("epsilon", a.Epsilons, "a run has one budget: give a list of ε in a grid block")
	}
	return nil
}

// Validate checks every parameter.
func (p Perturb) Validate() error {
	if err := p.Data.Validate(); err != nil {
		return err
	}
	if err := validSeed("seed", p.Seed); err != nil {
		return err
	}
	return p.AttackParams.Validate()
}

// Validate checks every parameter. Parameters an attack does not take are
// errors when they differ from their default (Applies), so a typo does
// not pass silently.
func (a Attack) Validate() error {
	if err := a.Train.Validate(); err != nil {
		return err
	}
	if err := a.AttackParams.Validate(); err != nil {
		return err
	}
	d := Attack{}.Defaults()
	dv := map[string]string{}
	for _, f := range Fields(&d) {
		dv[f.Param] = f.String()
	}
	for _, f := range Fields(&a) {
		if f.Param != "" && f.String() != dv[f.Param] {
			if err := a.Applies(f.Param); err != nil {
				return err
			}
		}
	}
	if a.Refine < 0 {
		return bad("refine", a.Refine, "must be ≥ 0")
	}
	if a.Variant != "self" && a.Variant != "approx" {
		return bad("variant", a.Variant, "must be self or approx")
	}
	if !slices.Contains(attack.DegreeTests, a.DegreeTest) {
		return bad("degree_test", a.DegreeTest, "must be one of %s", strings.Join(attack.DegreeTests, ", "))
	}
	if !slices.Contains(attack.Perturbs, a.Perturb) {
		return bad("perturb", a.Perturb, "must be one of %s", strings.Join(attack.Perturbs, ", "))
	}
	if !(a.EnginePPREps >= 0) || math.IsInf(a.EnginePPREps, 0) {
		return bad("engine_ppr_eps", a.EnginePPREps, "must be a number ≥ 0 (0: the model's own push error)")
	}
	if a.EnginePPREps > 0 && !a.Adaptive {
		return bad("engine_ppr_eps", a.EnginePPREps, "applies to --adaptive attacks only (a transfer attack differentiates its GCN surrogate)")
	}
	if a.Influencers < 0 {
		return bad("influencers", a.Influencers, "must be ≥ 0 (0: the direct attack)")
	}
	if !(a.LRFactor >= 0) || math.IsInf(a.LRFactor, 0) {
		return bad("lr_factor", a.LRFactor, "must be a finite number ≥ 0")
	}
	if a.Targeted() {
		if a.Targets == "" {
			return bad("targets", a.Targets, "attack %s is targeted: give auto or a file of node ids", a.Attack)
		}
		if a.Budget != "epsilon" {
			if _, err := parseDegreeBudget(a.Budget); err != nil {
				return bad("budget", a.Budget, "%v", err)
			}
		}
	}
	if a.Surrogate != "gcn" {
		return bad("surrogate", a.Surrogate, "the transfer surrogate must be gcn")
	}
	return nil
}

// Applies returns an error naming param when the spec's attack does not
// take it (a front end reports a parameter given explicitly for the wrong
// attack), nil when it does.
func (a Attack) Applies(param string) error {
	spec, ok := attack.Default().Lookup(a.Attack)
	if !ok {
		return nil // reported by Validate
	}
	v := a.valueOf(param)
	only := func(names ...string) error {
		if slices.Contains(names, a.Attack) {
			return nil
		}
		return bad(param, v, "applies to %s only, not %s", strings.Join(names, " and "), a.Attack)
	}
	switch param {
	case "adaptive", "surrogate_weights":
		if param == "surrogate_weights" && a.Adaptive {
			return bad(param, v, "is for transfer attacks; --adaptive attacks the victims themselves")
		}
		if !spec.Gradient {
			return bad(param, v, "applies to the gradient attacks (%s), not %s", attacksWhere(func(s attack.Spec) bool { return s.Gradient }), a.Attack)
		}
	case "loss":
		if spec.DefaultLoss == "" {
			return bad(param, v, "applies to attacks with a loss (%s), not %s", attacksWhere(func(s attack.Spec) bool { return s.DefaultLoss != "" }), a.Attack)
		}
	case "attack_epochs":
		return only("pgd", "prbcd", "grbcd", "local_prbcd", "metattack")
	case "block_size":
		return only("prbcd", "grbcd", "local_prbcd")
	case "refine":
		return only("prbcd")
	case "variant":
		return only("metattack")
	case "degree_test":
		return only("nettack", "metattack")
	case "perturb", "influencers":
		return only("nettack")
	case "lr_factor":
		return only("local_prbcd")
	case "targets", "budget":
		if !spec.Targeted {
			return bad(param, v, "applies to the targeted attacks (%s), not %s", strings.Join(attack.Default().TargetedNames(), ", "), a.Attack)
		}
	}
	return nil
}

func (a Attack) valueOf(param string) any {
	for _, f := range Fields(&a) {
		if f.Param == param {
			return f.Value()
		}
	}
	return nil
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

// parseDegreeBudget parses "degree+K" / "degree" / "deg+K" into K.
func parseDegreeBudget(s string) (int, error) {
	t := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), " ", "")
	for _, p := range []string{"degree", "deg"} {
		if rest, ok := strings.CutPrefix(t, p); ok {
			if rest == "" {
				return 0, nil
			}
			var k int
			if n, err := fmt.Sscanf(rest, "+%d", &k); err == nil && n == 1 && k >= 0 && fmt.Sprintf("+%d", k) == rest {
				return k, nil
			}
		}
	}
	return 0, fmt.Errorf(`want "degree+K" with K ≥ 0 (e.g. degree+2)`)
}

// options are the model.Options of the spec: parameters the model does not
// use (Applies) are left at zero (the library default), so they neither
// fail its validation nor change it.
func (m Model) options(seed int) model.Options {
	o := model.Options{Hidden: m.Hidden, Seed: uint64(seed)}
	uses := func(param string) bool { return Applies(param, m.Model) }
	if uses("temperature") {
		o.Temperature = m.Temperature
	}
	if uses("k") {
		o.K = m.K
	}
	if uses("normalization") {
		o.Normalization = m.Normalization
	}
	if uses("ppr_eps") {
		o.PPREps = m.PPREps
	}
	return o
}

// EffectiveSplitSeed is SplitSeed, else Seed: the seed of the split a
// front end loads the problem with.
func (t Train) EffectiveSplitSeed() int {
	if t.SplitSeed != nil {
		return *t.SplitSeed
	}
	return t.Seed
}
