//go:build long

package model_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/graph"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/train"
)

// paperTable is the reference's clean test accuracy (cora_ml, citeseer),
// mean over seeds 0, 1, 5. The models with pretrained reference
// weights take their numbers from expected_accuracy_cora_ml.json (trained
// on the raw features, bin0); the others (binary: true) from the paper's
// Table 7 "Accuracy (base)", whose models were trained on binarised
// features (the smoothing setting, bin1) — for them the features are
// binarised here too. Only cora_ml is affected: citeseer's features are
// binary already.
var paperTable = []struct {
	name             string
	opts             model.Options
	binary           bool
	coraML, citeseer float64
}{
	{"gcn", model.Options{}, false, .825, .712},
	{"gdc", model.Options{}, false, .833, .709},
	{"appnp", model.Options{}, true, .836, .724},
	{"gat", model.Options{}, true, .804, .652},
	{"svd_gcn", model.Options{}, false, .762, .650},
	{"jaccard_gcn", model.Options{}, false, .819, .714},
	{"rgcn", model.Options{}, false, .810, .653},
	{"sm_gcn", model.Options{Temperature: 50}, true, .823, .711},
	{"dimmedian_gdc", model.Options{}, true, .804, .725},
	{"medoid_gdc", model.Options{}, true, .742, .673},
	{"sm_gdc", model.Options{Temperature: 1.0}, false, .829, .716},
	{"sm_gdc", model.Options{Temperature: 0.5}, false, .821, .711},
	{"sm_gdc", model.Options{Temperature: 0.2}, false, .801, .705},
	// No reference number: reported only.
	{"softmedian_gdc", model.Options{}, false, math.NaN(), math.NaN()},
}

// TestAccuracyTable trains every model from scratch (seeds 0, 1, 5) and
// checks the mean test accuracy against the reference to ±0.02. Long:
//
//	go test -tags long -run TestAccuracyTable -timeout 12h -v ./model
//
// RGNN_ONLY=gcn,sm_gdc restricts the models, RGNN_DATASETS=cora_ml the
// datasets.
func TestAccuracyTable(t *testing.T) {
	dir := fixture.DataDir(t)
	only := os.Getenv("RGNN_ONLY")
	datasets := []string{"cora_ml", "citeseer"}
	if d := os.Getenv("RGNN_DATASETS"); d != "" {
		datasets = strings.Split(d, ",")
	}
	reg := model.Default(testAggregators)
	for _, ds := range datasets {
		raw, err := data.Load(context.Background(), ds, data.Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		bin, err := data.Load(context.Background(), ds, data.Options{Dir: dir, BinaryAttr: true})
		if err != nil {
			t.Fatal(err)
		}
		rawCache, binCache := graph.NewPrepCache(4), graph.NewPrepCache(4)
		for _, row := range paperTable {
			if only != "" && !strings.Contains(","+only+",", ","+row.name+",") {
				continue
			}
			g, cache := raw, rawCache
			if row.binary {
				g, cache = bin, binCache
			}
			x := autograd.NewSparse(g.Features)
			want := row.coraML
			if ds == "citeseer" {
				want = row.citeseer
			}
			var sum float64
			start := time.Now()
			for _, seed := range []int{0, 1, 5} {
				tr, va, te, _ := data.Split(g.Labels, g.NumClasses, 20, uint32(seed))
				o := row.opts
				o.Seed, o.Cache = uint64(seed), cache
				m, err := reg.New(row.name, g.Features.Cols, g.NumClasses, o)
				if err != nil {
					t.Fatal(err)
				}
				pg, err := m.Preprocess(g.Adj, g.Features)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := train.Fit(context.Background(), m, pg, &data.Problem{X: x, Labels: g.Labels, Train: tr, Val: va},
					train.Config{Seed: uint64(seed)}); err != nil {
					t.Fatal(err)
				}
				sum += train.Accuracy(train.Predict(m, pg, x), g.Labels, te)
			}
			mean := sum / 3
			label := fmt.Sprintf("%s T=%g", row.name, row.opts.Temperature)
			if row.binary {
				label += " bin"
			}
			t.Logf("RESULT %s %-22s mean %.4f reference %.3f (%s)", ds, label, mean, want, time.Since(start).Round(time.Second))
			if !math.IsNaN(want) && math.Abs(mean-want) > 0.02 {
				t.Errorf("%s %s: mean test accuracy %.4f, reference %.3f ± 0.02", ds, label, mean, want)
			}
		}
	}
}
