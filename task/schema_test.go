package task

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/rgnn/rgnn/aggregate"
	"github.com/rgnn/rgnn/certify"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/model"
)

func ptr[T any](v T) *T { return &v }

// schemaSpecs are every task spec at its defaults, with the choices that
// have none made (certify's noise, serve's weights, the unit test's file).
func schemaSpecs() map[string]any {
	c := Certify{}.Defaults()
	c.PDel = 0.4
	sv := Serve{}.Defaults()
	sv.Weights = "w.npz"
	ut := UnitTest{}.Defaults()
	ut.File = "unit_test.npz"
	return map[string]any{
		"train": ptr(Train{}.Defaults()), "eval": ptr(Eval{}.Defaults()), "certify": &c, "serve": &sv, "unittest": &ut,
		"perturb": ptr(Perturb{}.Defaults()), "attack": ptr(Attack{}.Defaults()), "targeted": ptr(Targeted{}.Defaults()),
		"bias": ptr(Bias{}.Defaults()), "messages": ptr(Messages{}.Defaults()),
	}
}

func validateSpec(s any) error { return s.(interface{ Validate() error }).Validate() }

// TestSchema walks every field of every spec: it has a parameter name and
// a help text; where it applies is its uses tag (one model.Uses fact, read
// by Applies); its default is the spec's Defaults(), which validates; and
// its range is checked by the spec's Validate, which refuses a bad value
// with a *FieldError naming the parameter (NaN for a number, a negative
// integer below its default).
func TestSchema(t *testing.T) {
	for name, s := range schemaSpecs() {
		if err := validateSpec(s); err != nil {
			t.Errorf("%s: the defaults do not validate: %v", name, err)
		}
		for _, f := range Fields(s) {
			if f.Param == "" || f.Help == "" {
				t.Errorf("%s: field %q has no parameter name or no help", name, f.Param)
			}
			if f.Uses != "" {
				if fu, ok := reflect.TypeOf(model.Uses{}).FieldByName(f.Uses); !ok || fu.Type.Kind() != reflect.Bool {
					t.Errorf("%s: %s: uses:%q is no fact of model.Uses", name, f.Param, f.Uses)
				}
				if usesNoun[f.Uses] == "" {
					t.Errorf("%s: %s: uses:%q has no noun for messages", name, f.Param, f.Uses)
				}
			}
			for _, v := range badValues(f) {
				c := reflect.New(reflect.TypeOf(s).Elem())
				c.Elem().Set(reflect.ValueOf(s).Elem())
				spec := c.Interface()
				if f.Uses != "" {
					takeParam(t, spec, f)
				}
				for _, g := range Fields(spec) {
					if g.Param == f.Param && g.Flag == f.Flag {
						if err := g.SetValue(v); err != nil {
							t.Fatalf("%s: set %s = %v: %v", name, f.Param, v, err)
						}
					}
				}
				err := validateSpec(spec)
				var fe *FieldError
				if !errors.As(err, &fe) || fe.Param != f.Param {
					t.Errorf("%s: %s = %v: Validate returned %v, want a FieldError of %s", name, f.Param, v, err, f.Param)
				}
			}
		}
	}
}

// badValues are values out of every numeric parameter's range.
func badValues(f Field) []any {
	switch f.Type() {
	case "float":
		return []any{math.NaN()}
	case "floats":
		return []any{[]float64{math.NaN()}}
	case "int":
		d, _ := f.Value().(int)
		return []any{min(d, 0) - 1}
	}
	return nil
}

// takeParam sets spec's model to the first registered one f applies to.
func takeParam(t *testing.T, spec any, f Field) {
	for _, m := range Models().Names() {
		if Applies(f.Param, m) {
			for _, g := range Fields(spec) {
				switch g.Param {
				case "model":
					g.SetValue(m)
				case "external_cmd":
					g.SetValue("python3 model.py")
				}
			}
			return
		}
	}
	t.Fatalf("%s applies to no model", f.Param)
}

// TestApplies: Applies is the registry's Uses, through the uses tags; a
// parameter that does not apply is neither validated nor given to the
// model, and one that applies is.
func TestApplies(t *testing.T) {
	for _, s := range Models().Specs() {
		for _, f := range Fields(&Model{}) {
			want := true
			if f.Uses != "" {
				want = reflect.ValueOf(s.Uses).FieldByName(f.Uses).Bool()
			}
			if got := Applies(f.Param, s.Name); got != want {
				t.Errorf("Applies(%s, %s) = %v, want %v", f.Param, s.Name, got, want)
			}
		}
		m := Train{}.Defaults().Model
		m.Model, m.Temperature, m.ExternalCmd = s.Name, math.NaN(), "python3 model.py"
		err := m.Validate()
		if Applies("temperature", s.Name) == (err == nil) {
			t.Errorf("%s with temperature NaN: Validate %v, but Applies says %v", s.Name, err, Applies("temperature", s.Name))
		}
		if o := m.options(0); Applies("temperature", s.Name) == (o.Temperature == 0) {
			t.Errorf("%s: options' temperature %v, but Applies says %v", s.Name, o.Temperature, Applies("temperature", s.Name))
		}
	}
	if Applies("temperature", "no such model") || !Applies("hidden", "no such model") {
		t.Error("an unknown model takes no tagged parameter and every other")
	}
}

// TestDefaultsAreTheLibraries': the specs' defaults are the constants the
// libraries export, so a library's zero means the spec's default.
func TestDefaultsAreTheLibraries(t *testing.T) {
	tr, c := Train{}.Defaults(), Certify{}.Defaults()
	for _, d := range []struct {
		name      string
		got, want any
	}{
		{"k", tr.K, aggregate.DefaultK}, {"k (GDC)", tr.K, graph.DefaultK},
		{"temperature", tr.Temperature, aggregate.DefaultTemperature}, {"hidden", tr.Hidden, model.DefaultHidden},
		{"estimate_temperature", Messages{}.Defaults().EstimateTemperature, aggregate.DefaultTemperature},
		{"samples", c.Samples, certify.DefaultSamples}, {"pre_samples", c.PreSamples, certify.DefaultPreSamples},
	} {
		if !reflect.DeepEqual(d.got, d.want) {
			t.Errorf("%s: spec default %v, library default %v", d.name, d.got, d.want)
		}
	}
	if !slices.Contains(Models().Names(), tr.Model.Model) {
		t.Errorf("default model %s not registered", tr.Model.Model)
	}
}
