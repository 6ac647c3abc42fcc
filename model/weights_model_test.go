package model_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/npz"
)

// TestWeightsLoadOnlyIntoTheirModel: weights saved with their model
// recorded (SaveWeightsOf, what `rgnn train --out` writes) load into that
// model only — GCN weights have the layer names and shapes of gdc, sm_gcn
// and sm_gdc, and loaded as them before — with an error naming the file,
// the model recorded and the one asked for. Files without the record (the
// reference's) keep loading by names and shapes.
func TestWeightsLoadOnlyIntoTheirModel(t *testing.T) {
	reg := model.Default(testAggregators)
	build := func(name string) model.Model {
		m, err := reg.New(name, 3, 2, model.Options{Hidden: 4})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	dir := t.TempDir()
	gcn := build("gcn")
	tagged := filepath.Join(dir, "gcn.npz")
	if err := model.SaveWeightsOf(gcn, tagged); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain.npz")
	if err := model.SaveWeights(gcn, plain); err != nil {
		t.Fatal(err)
	}
	if a, err := npz.Open(tagged); err != nil || a.Comment != "rgnn weights: model=gcn" {
		t.Fatalf("comment %q, %v", a.Comment, err)
	}
	if err := model.LoadWeights(build("gcn"), tagged); err != nil {
		t.Fatalf("gcn weights into gcn: %v", err)
	}
	for _, other := range []string{"gdc", "sm_gcn", "sm_gdc", "jaccard_gcn"} {
		err := model.LoadWeights(build(other), tagged)
		if err == nil {
			t.Errorf("gcn weights loaded as %s", other)
			continue
		}
		for _, w := range []string{tagged, "weights of model gcn", "not " + other} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", other, err, w)
			}
		}
		// Without the record only names and shapes can be checked (the
		// reference's files): they load.
		if err := model.LoadWeights(build(other), plain); err != nil {
			t.Errorf("unrecorded weights into %s: %v", other, err)
		}
	}
}

// TestModelNamesAreRegistryNames: a model's Name is its registry name,
// which SaveWeightsOf records and LoadWeights compares.
func TestModelNamesAreRegistryNames(t *testing.T) {
	reg := model.Default(testAggregators)
	for _, name := range reg.Names() {
		if s, _ := reg.Lookup(name); s.External {
			continue // built by its front end, not the registry
		}
		o := model.Options{Hidden: 8}
		m, err := reg.New(name, 3, 2, o)
		if err != nil {
			t.Fatal(err)
		}
		if m.Name() != name {
			t.Errorf("model %s is named %s", name, m.Name())
		}
	}
}
