package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/rgnn/rgnn/internal/stats"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/task"
)

// facts returns the registry's facts about a model (zero for a name the
// registry does not know: such rows sort last under their own name).
func facts(m string) model.Spec {
	s, ok := model.Default(nil).Lookup(m)
	if !ok {
		s.Order = math.MaxInt
	}
	return s
}

// modelName is the model's name in tables.
func modelName(m string) string {
	if l := facts(m).Label; l != "" {
		return l
	}
	return m
}

// isSoft reports whether the model has a temperature (task.Applies).
func isSoft(m string) bool { return task.Applies("temperature", m) }

// modelKey identifies a table row: the model and, for the Soft Medoid
// family, its temperature (and the SM† normalisation).
type modelKey struct {
	Model string
	T     float64
	Alt   bool
}

func (k modelKey) Label() string {
	name := modelName(k.Model)
	if k.Alt {
		name = strings.Replace(name, "Soft Medoid", "Soft Medoid†", 1)
	}
	if isSoft(k.Model) {
		name += fmt.Sprintf(" (T=%s)", strconv.FormatFloat(k.T, 'g', -1, 64))
	}
	return name
}

func (k modelKey) less(o modelKey) bool {
	ia, ib := rank(k.Model), rank(o.Model)
	if ia != ib {
		return ia < ib
	}
	if k.Model != o.Model {
		return k.Model < o.Model
	}
	if k.Alt != o.Alt {
		return !k.Alt
	}
	return k.T < o.T
}

func rank(m string) int { return facts(m).Order }

func sortedKeys(set map[modelKey]bool) []modelKey {
	var ks []modelKey
	for k := range set {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].less(ks[j]) })
	return ks
}

func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }

func num(m map[string]any, k string) float64 {
	switch t := m[k].(type) {
	case float64:
		return t
	case int:
		return float64(t)
	}
	return math.NaN()
}

// fmtMeanSE renders mean ± s.e. with the given decimals; a single value is
// shown without the ± (there is no spread to report), no values as "–".
func fmtMeanSE(v []float64, dec int) string {
	if len(v) == 0 {
		return "–"
	}
	m, se := stats.MeanSE(v)
	if len(v) == 1 {
		return strconv.FormatFloat(m, 'f', dec, 64)
	}
	return strconv.FormatFloat(m, 'f', dec, 64) + " ± " + strconv.FormatFloat(se, 'f', dec, 64)
}

// pPair is the smoothing distribution of a certificate.
// pPair is a smoothing distribution: edge (or, with Attr, attribute)
// addition and deletion probabilities.
type pPair struct {
	Add, Del float64
	Attr     bool
}

func (p pPair) Name() string {
	switch {
	case p.Attr:
		return fmt.Sprintf("Attributes (p₊=%g, p₋=%g)", p.Add, p.Del)
	case p.Add > 0 && p.Del > 0:
		return fmt.Sprintf("Add & del. (p₊=%g, p₋=%g)", p.Add, p.Del)
	case p.Add > 0:
		return fmt.Sprintf("Add (p₊=%g)", p.Add)
	default:
		return fmt.Sprintf("Del. (p₋=%g)", p.Del)
	}
}

// plain is Name without subscript characters (the plot fonts lack them).
func (p pPair) plain() string {
	return strings.NewReplacer("p₊", "p+", "p₋", "p-").Replace(p.Name())
}

func (p pPair) slug() string {
	if p.Attr {
		return fmt.Sprintf("attr_pa%g_pd%g", p.Add, p.Del)
	}
	return fmt.Sprintf("pa%g_pd%g", p.Add, p.Del)
}

// order: Add, Del, Add&del, attributes; then by probabilities.
func (p pPair) less(o pPair) bool {
	c := func(q pPair) int {
		switch {
		case q.Attr:
			return 3
		case q.Add > 0 && q.Del > 0:
			return 2
		case q.Add > 0:
			return 0
		}
		return 1
	}
	if c(p) != c(o) {
		return c(p) < c(o)
	}
	if p.Add != o.Add {
		return p.Add < o.Add
	}
	return p.Del < o.Del
}

// slugify makes a file-name-safe string.
func slugify(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return strings.Trim(b.String(), "_")
}

// floats reads a []any of numbers.
func floats(v any) []float64 {
	a, _ := v.([]any)
	out := make([]float64, 0, len(a))
	for _, x := range a {
		f, _ := x.(float64)
		out = append(out, f)
	}
	return out
}
