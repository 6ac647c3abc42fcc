package experiment

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/experiment/store"
)

// goldenKeys lists, for every run of the shipped experiments and of
// `rgnn reproduce` (quick and full, cora_ml and citeseer), its kind, key and
// canonical parameters, and the keys of the runs it depends on (the train
// run of its model; the perturb run of a transfer attack).
func goldenKeys(t *testing.T) []string {
	t.Helper()
	var exps []*Experiment
	files, err := filepath.Glob("../experiments/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		e, err := ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		exps = append(exps, e)
	}
	for _, ds := range []string{"cora_ml", "citeseer"} {
		for _, quick := range []bool{true, false} {
			e, err := Reproduction(ds, quick)
			if err != nil {
				t.Fatal(err)
			}
			exps = append(exps, e)
		}
	}
	kinds := DefaultKinds()
	seen := map[string]bool{}
	var lines []string
	add := func(kind string, p store.Params) string {
		key, err := store.Key(kind, p)
		if err != nil {
			t.Fatal(err)
		}
		if !seen[key] {
			seen[key] = true
			c, _ := store.Canonical(p)
			lines = append(lines, kind+" "+key+" "+c)
		}
		return key
	}
	for _, e := range exps {
		runs, err := e.Expand(kinds)
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		for _, r := range runs {
			add(r.Kind, r.Params)
			k, _ := kinds.Lookup(r.Kind)
			for _, dep := range k.Deps {
				if adaptive, _ := r.Params["adaptive"].(bool); adaptive && dep == "perturb" {
					continue // an adaptive attack computes its own perturbation
				}
				key, p, err := kinds.Dependency(dep, r.Params)
				if err != nil {
					t.Fatalf("%s: %v", e.Name, err)
				}
				if add(dep, p) != key {
					t.Fatalf("%s: dependency key mismatch", e.Name)
				}
			}
		}
	}
	sort.Strings(lines)
	return lines
}

// TestStoreKeysStable pins the store keys of every shipped run: a store
// written by an earlier release keeps resolving (its results are found, not
// recomputed). Regenerate testdata/keys.golden only for a deliberate
// change of a run's parameters: RGNN_UPDATE_GOLDEN=1 go test -run TestStoreKeysStable ./experiment/
func TestStoreKeysStable(t *testing.T) {
	got := goldenKeys(t)
	path := filepath.Join("testdata", "keys.golden")
	if os.Getenv("RGNN_UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(path, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		want[sc.Text()] = true
	}
	have := map[string]bool{}
	for _, l := range got {
		have[l] = true
	}
	var missing, extra []string
	for l := range want {
		if !have[l] {
			missing = append(missing, l)
		}
	}
	for l := range have {
		if !want[l] {
			extra = append(extra, l)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing)+len(extra) > 0 {
		show := func(s []string) string {
			if len(s) > 5 {
				return strings.Join(s[:5], "\n  ") + fmt.Sprintf("\n  ... (%d more)", len(s)-5)
			}
			return strings.Join(s, "\n  ")
		}
		t.Fatalf("store keys changed: %d golden runs no longer produced, %d new\nmissing:\n  %s\nnew:\n  %s",
			len(missing), len(extra), show(missing), show(extra))
	}
	if len(want) < 500 {
		t.Fatalf("only %d golden keys", len(want))
	}
}
