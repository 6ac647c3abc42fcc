package task

import (
	"reflect"
	"strings"
)

// usesOf maps each model parameter to the model.Uses fact it needs, read
// once from the uses:"…" tags of Model's fields: the one declaration of
// where a parameter applies.
var usesOf = func() map[string]string {
	out := map[string]string{}
	for _, f := range Fields(&Model{}) {
		if f.Uses != "" {
			out[f.Param] = f.Uses
		}
	}
	return out
}()

// usesNoun names each model.Uses fact in messages ("gcn takes no top-k").
var usesNoun = map[string]string{
	"Temperature":   "temperature",
	"K":             "top-k",
	"Normalization": "normalisation variant",
	"Diffusion":     "GDC diffusion",
	"External":      "external command",
}

// Applies reports whether parameter param applies to the named model: a
// parameter tagged uses:"Fact" only to models whose registry entry
// (model.Spec.Uses) has Fact, every other parameter to every model. It is
// the one rule behind validation (a GCN's temperature is not checked), the
// model's options, run keys (an unused parameter is keyed at its default),
// labels and report rows. An unknown model takes no tagged parameter.
func Applies(param, modelName string) bool {
	fact, ok := usesOf[param]
	if !ok {
		return true
	}
	return usesFact(UsesOf(modelName), fact)
}

// usesFact reads the bool field named fact of u.
func usesFact(u Uses, fact string) bool {
	f := reflect.ValueOf(u).FieldByName(fact)
	return f.IsValid() && f.Kind() == reflect.Bool && f.Bool()
}

// modelsTaking lists the registered models param applies to.
func modelsTaking(param string) string {
	var out []string
	for _, s := range Models().Specs() {
		if Applies(param, s.Name) {
			out = append(out, s.Name)
		}
	}
	return strings.Join(out, ", ")
}
