package experiment

import (
	"testing"
)

// TestSetReplacesEverywhere: a set parameter replaces fixed values and grid
// axes in every block, and a list becomes a top-level grid axis.
func TestSetReplacesEverywhere(t *testing.T) {
	e, err := Parse([]byte(`
name: s
fixed: {dataset: cora_ml, max_epochs: 100}
grid: {seed: [0, 1, 5], kind: [train]}
gcn: {fixed: {model: gcn, max_epochs: 50}}
sm: {fixed: {model: sm_gdc}, grid: {max_epochs: [10, 20]}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SetString("max_epochs=3"); err != nil {
		t.Fatal(err)
	}
	if err := e.SetString("seed=[7, 8]"); err != nil {
		t.Fatal(err)
	}
	runs, err := e.Expand(DefaultKinds())
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 4 {
		t.Fatalf("%d runs, want 2 models × 2 seeds", len(runs))
	}
	for _, r := range runs {
		if r.Params["max_epochs"] != 3 {
			t.Errorf("%s: max_epochs %v, want 3", r.Label(), r.Params["max_epochs"])
		}
		if s := r.Params["seed"]; s != 7 && s != 8 {
			t.Errorf("%s: seed %v", r.Label(), s)
		}
	}
	for _, bad := range []string{"max_epochs", "=3", "seed=[]"} {
		if err := e.SetString(bad); err == nil {
			t.Errorf("SetString(%q): no error", bad)
		}
	}
}

// TestPaperReproduction: `rgnn reproduce --paper` is the paper's shipped
// files on one dataset — every kind of the paper's evaluation, nothing of
// another dataset.
func TestPaperReproduction(t *testing.T) {
	es, err := PaperReproduction("citeseer")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, e := range es {
		runs, err := e.Expand(DefaultKinds())
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		for _, r := range runs {
			kinds[r.Kind]++
			if d, ok := r.Params["dataset"]; ok && d != "citeseer" {
				t.Fatalf("%s: run %s on %v", e.Name, r.Label(), d)
			}
		}
	}
	for _, k := range []string{"train", "certify", "attack", "targeted", "bias", "messages"} {
		if kinds[k] == 0 {
			t.Errorf("no %s runs (%v)", k, kinds)
		}
	}
	if _, err := PaperReproduction("../x"); err == nil {
		t.Error("a path as dataset name: no error")
	}
	// Nettack's budget is the fraction of the degree that fits each
	// dataset's GCN row: 0.65 on cora_ml (nettack.yaml), 1 on citeseer
	// (nettack_citeseer.yaml).
	for dataset, want := range map[string]float64{"cora_ml": 0.65, "citeseer": 1} {
		es, err := PaperReproduction(dataset)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range es {
			runs, err := e.Expand(DefaultKinds())
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range runs {
				if r.Kind == "targeted" {
					n++
					if r.Params["epsilon"] != want || r.Params["dataset"] != dataset {
						t.Fatalf("%s: targeted run %s, want epsilon %v", dataset, r.Label(), want)
					}
				}
			}
		}
		if n != 24 {
			t.Errorf("%s: %d targeted runs, want 24 (8 models × 3 seeds)", dataset, n)
		}
	}
}

// TestKeyOmitsLaterDefaults checks that a parameter added to a kind after
// results were stored (influencers of the targeted kind) is left out of the
// key at its default, so earlier keys stay valid, and is in it otherwise.
func TestKeyOmitsLaterDefaults(t *testing.T) {
	expand := func(extra string) Run {
		e, err := Parse([]byte("name: k\nfixed: {kind: targeted, dataset: cora_ml, model: gcn" + extra + "}\n"))
		if err != nil {
			t.Fatal(err)
		}
		runs, err := e.Expand(DefaultKinds())
		if err != nil || len(runs) != 1 {
			t.Fatalf("%d runs, %v", len(runs), err)
		}
		return runs[0]
	}
	plain, zero, two := expand(""), expand(", influencers: 0"), expand(", influencers: 2")
	if _, ok := plain.Params["influencers"]; ok {
		t.Errorf("influencers at its default is in the key's parameters: %v", plain.Params)
	}
	if plain.Key != zero.Key {
		t.Errorf("influencers 0 changed the key: %s vs %s", zero.Key, plain.Key)
	}
	if two.Key == plain.Key || two.Params["influencers"] != 2 {
		t.Errorf("influencers 2: key %s (default %s), params %v", two.Key, plain.Key, two.Params)
	}
}
