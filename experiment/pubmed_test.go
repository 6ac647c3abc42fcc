package experiment_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/experiment"
	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/report"
)

// TestPaperPubMedShortened runs `rgnn reproduce --paper --dataset pubmed`
// shortened on a generated PubMed-shaped graph put where PubMed's file goes
// (pubmed.npz with its recorded sha256 in a data folder): the paper's
// PubMed settings (the runtime table, Table 6's five models at k = 32, their
// four certificates), and the report's PubMed comparison filled with every
// one of the paper's 30 PubMed numbers.
func TestPaperPubMedShortened(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := tinyPubMed(t, filepath.Join(dir, "pubmed.npz"))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if err := os.WriteFile(path+".sha256", []byte(hex.EncodeToString(sum[:])+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	es, err := experiment.PaperReproduction("pubmed")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name)
		for k, v := range shortened {
			if k == "k" {
				continue // the paper's k = 32 for PubMed stays
			}
			if err := e.Set(k, v); err != nil {
				t.Fatal(err)
			}
		}
		runs, err := e.Expand(experiment.DefaultKinds())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			if r.Params["dataset"] != "pubmed" {
				t.Fatalf("%s: run on %v", e.Name, r.Params["dataset"])
			}
			if k, ok := r.Params["k"]; ok && k != 32 && k != 32.0 {
				t.Fatalf("%s: %s with k = %v, want the paper's 32 for PubMed", e.Name, r.Label(), k)
			}
		}
	}
	if got := strings.Join(names, ","); got != "runtime,certification_pubmed" {
		t.Fatalf("PubMed's paper files %s, want runtime,certification_pubmed", got)
	}
	st, err := store.Open(filepath.Join(dir, "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	env := &experiment.Env{Store: st, Kinds: experiment.DefaultKinds(), DataDir: dir}
	// The runtime table's 200 epochs stay: it is shortened to its GCN.
	if err := es[0].Set("model", "gcn"); err != nil {
		t.Fatal(err)
	}
	sum2, err := experiment.ExecuteAll(ctx, env, es, experiment.RunOptions{Workers: 2})
	if err != nil || sum2.Failed > 0 {
		fs, _ := st.Failures(ctx)
		for _, f := range fs {
			t.Logf("failure: %v", f)
		}
		t.Fatalf("%d of %d runs failed: %v", sum2.Failed, sum2.Total, err)
	}
	rep, err := report.Build(ctx, st, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	md := rep.Markdown("")
	m := regexp.MustCompile(`(\d+) of the paper's (\d+) numbers have a result here: (\d+) within, (\d+) outside\.`).FindStringSubmatch(md)
	if m == nil || m[1] != "30" || m[2] != "30" {
		t.Fatalf("PubMed comparison %q, want all 30 of the paper's PubMed numbers with a result:\n%s", m, md)
	}
}
