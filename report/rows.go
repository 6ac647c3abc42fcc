package report

import (
	"math"

	"github.com/rgnn/rgnn/experiment"
	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/task"
)

// row is one stored result as the tables and figures read it: its
// parameters decoded into its kind's typed spec (experiment.Kind.Decode:
// the spec's names, types and defaults, so a row stored before a parameter
// existed reads as that parameter's default) and reduced to what the
// report groups by. Rows of a kind this build does not know keep their
// metrics and only what their parameters name directly.
type row struct {
	store.Result
	Dataset string
	Seed    float64 // NaN: the kind has none
	Model   modelKey
	Binary  bool
	Pair    pPair   // certify: the smoothing distribution
	Attack  string  // perturb, attack, targeted
	Epsilon float64 // the run's one budget ε (NaN: none or several)
	// Budget and TargetsFrom of a targeted run.
	Budget, TargetsFrom string
}

// decodeRows decodes rs (see row).
func decodeRows(rs []store.Result) []row {
	kinds := experiment.DefaultKinds()
	out := make([]row, len(rs))
	for i, r := range rs {
		out[i] = decodeRow(kinds, r)
	}
	return out
}

func decodeRow(kinds *experiment.Kinds, r store.Result) row {
	w := row{Result: r, Seed: math.NaN(), Epsilon: math.NaN()}
	k, ok := kinds.Lookup(r.Kind)
	if !ok {
		w.Dataset = str(r.Params, "dataset")
		w.Seed = num(r.Params, "seed")
		return w
	}
	spec, err := k.Decode(r.Params)
	if err != nil {
		w.Dataset = str(r.Params, "dataset")
		return w
	}
	var train *task.Train
	var ap *task.AttackParams
	switch s := spec.(type) {
	case *task.Train:
		train = s
	case *task.Eval:
		train = &s.Train
	case *task.Certify:
		train = &s.Train
		w.Pair = pPair{Add: s.PAdd, Del: s.PDel}
		if s.PAddAtt > 0 || s.PDelAtt > 0 {
			w.Pair = pPair{Add: s.PAddAtt, Del: s.PDelAtt, Attr: true}
		}
	case *task.Perturb:
		w.Dataset, w.Binary, w.Seed = s.Dataset, s.BinaryAttr, float64(s.Seed)
		ap = &s.AttackParams
	case *task.Attack:
		train, ap = &s.Train, &s.AttackParams
	case *task.Targeted:
		train, ap = &s.Train, &s.AttackParams
		w.Budget, w.TargetsFrom = s.Budget, s.TargetsFrom
	case *task.Messages:
		train = &s.Train
	case *task.Bias:
		w.Seed = float64(s.Seed)
	}
	if train != nil {
		w.Dataset, w.Binary, w.Seed = train.Dataset, train.BinaryAttr, float64(train.Seed)
		w.Model = modelKeyOf(train.Model)
	}
	if ap != nil {
		w.Attack = ap.Attack
		if len(ap.Epsilons) == 1 {
			w.Epsilon = ap.Epsilons[0]
		}
	}
	return w
}

// modelKeyOf is the table row of a model spec: the model and, where the
// model uses them (task.Applies), its temperature and normalisation.
func modelKeyOf(m task.Model) modelKey {
	k := modelKey{Model: m.Model}
	if task.Applies("temperature", m.Model) {
		k.T = m.Temperature
	}
	if task.Applies("normalization", m.Model) {
		k.Alt = m.Normalization == "alt"
	}
	return k
}

// resultsOf returns the stored results of rows.
func resultsOf(rows []row) []store.Result {
	out := make([]store.Result, len(rows))
	for i, r := range rows {
		out[i] = r.Result
	}
	return out
}
