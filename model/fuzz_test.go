package model_test

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/internal/fuzzseed"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/npz"
)

// fuzzModels builds the models FuzzLoadWeights loads into: tiny ones of
// every layout and, when the reference fixtures are present, GCN and RGCN
// of cora_ml's shape (2879 features, 7 classes) to match the pretrained
// files.
func fuzzModels(tb testing.TB) []model.Model {
	reg := model.Default(testAggregators)
	var ms []model.Model
	add := func(name string, nFeat, nClass int, o model.Options) {
		m, err := reg.New(name, nFeat, nClass, o)
		if err != nil {
			tb.Fatal(err)
		}
		ms = append(ms, m)
	}
	for _, name := range []string{"gcn", "rgcn", "gat", "appnp"} {
		hidden := 2
		if name == "gat" {
			hidden = 8 // 8 heads
		}
		add(name, 3, 2, model.Options{Hidden: hidden})
	}
	if len(fixture.ReferenceFiles("pretrained/*.npz")) > 0 {
		add("gcn", 2879, 7, model.Options{})
		add("rgcn", 2879, 7, model.Options{})
	}
	return ms
}

func snapshot(m model.Model) [][]float32 {
	var out [][]float32
	for _, p := range m.Params() {
		out = append(out, slices.Clone(p.Value.Data))
	}
	return out
}

// FuzzLoadWeights: a weights file never panics LoadWeights; a file it
// accepts sets every parameter to finite values, and a file it refuses
// leaves the model unchanged. Seeds: every tiny model's own SaveWeights
// output and, when present, reference pretrained files (GCN and RGCN
// layouts).
func FuzzLoadWeights(f *testing.F) {
	ms := fuzzModels(f)
	dir := f.TempDir()
	for _, m := range ms[:4] {
		p := filepath.Join(dir, m.Name()+".npz")
		if err := model.SaveWeights(m, p); err != nil {
			f.Fatal(err)
		}
		for _, s := range fuzzseed.Files(f, p) {
			f.Add(s)
		}
		if err := model.SaveWeightsOf(m, p); err != nil { // with the model recorded
			f.Fatal(err)
		}
		for _, s := range fuzzseed.Files(f, p) {
			f.Add(s)
		}
	}
	for _, b := range fuzzseed.Reference(f, 1, "pretrained/cora_ml_Vanilla_GCN_s0_bin0.npz", "pretrained/cora_ml_RGCN_s0_bin0.npz") {
		f.Add(b)
	}
	file := fuzzseed.File(f, "w.npz")
	f.Fuzz(func(t *testing.T, b []byte) {
		path := file(t, b)
		for _, m := range ms {
			before := snapshot(m)
			if err := model.LoadWeights(m, path); err != nil {
				if !slices.EqualFunc(before, snapshot(m), slices.Equal) {
					t.Fatalf("%s: refused file (%v) changed the model", m.Name(), err)
				}
				continue
			}
			for _, p := range m.Params() {
				for _, x := range p.Value.Data {
					if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
						t.Fatalf("%s: %s holds %v", m.Name(), p.Name, x)
					}
				}
			}
		}
	})
}

// TestLoadWeightsStrict: shapes must match exactly (a flattened or 3-D
// weight with the right count is refused), and a refused file leaves the
// model as it was even when earlier parameters were fine.
func TestLoadWeightsStrict(t *testing.T) {
	ms := fuzzModels(t)
	gcn, dir := ms[0], t.TempDir()
	good := filepath.Join(dir, "good.npz")
	if err := model.SaveWeights(gcn, good); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:4] {
		p := filepath.Join(dir, m.Name()+".npz")
		if err := model.SaveWeights(m, p); err != nil {
			t.Fatal(err)
		}
		if err := model.LoadWeights(m, p); err != nil {
			t.Fatalf("%s: own file refused: %v", m.Name(), err)
		}
	}
	params := gcn.Params()
	last := params[len(params)-1]
	write := func(name string, lastShape []int) string {
		var es []npz.Entry
		for _, p := range params {
			shape := []int{p.Value.Rows, p.Value.Cols}
			if p == last {
				shape = lastShape
			}
			v := slices.Clone(p.Value.Data)
			for i := range v {
				v[i] += 1
			}
			es = append(es, npz.F32(p.Name, shape, v))
		}
		path := filepath.Join(dir, name)
		if err := npz.WriteFile(path, es...); err != nil {
			t.Fatal(err)
		}
		return path
	}
	n := len(last.Value.Data)
	for name, shape := range map[string][]int{"flat.npz": {n}, "3d.npz": {1, last.Value.Rows, last.Value.Cols}, "swapped.npz": {last.Value.Cols, last.Value.Rows}} {
		if last.Value.Rows == 1 && name == "flat.npz" {
			continue
		}
		before := snapshot(gcn)
		err := model.LoadWeights(gcn, write(name, shape))
		if err == nil || !strings.Contains(err.Error(), "has shape") {
			t.Errorf("%s: err %v", name, err)
		}
		if !slices.EqualFunc(before, snapshot(gcn), slices.Equal) {
			t.Errorf("%s: refused file changed the model", name)
		}
	}
}
