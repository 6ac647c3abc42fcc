package benchmark

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/internal/fixture"
)

func TestSpecValidate(t *testing.T) {
	d := Spec{}.Defaults()
	if err := d.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	if got := d.Config(); !got.WithGDC || !got.WithoutGDC || got.Warmup != 10 || got.Epochs != 100 || got.Architectures != nil {
		t.Fatalf("default config %+v", got)
	}
	// Every error starts with the parameter's name (its param tag).
	for param, mod := range map[string]func(*Spec){
		"warmup":   func(s *Spec) { s.Warmup = 0 },
		"epochs":   func(s *Spec) { s.Epochs = -1 },
		"seed":     func(s *Spec) { s.Seed = -1 },
		"gdc":      func(s *Spec) { s.GDC = "maybe" },
		"models":   func(s *Spec) { s.Models = "gcn," },
		"datasets": func(s *Spec) { s.Datasets = "cora_ml,cora" },
		"ppr_eps":  func(s *Spec) { s.PPREps = s.PPREps / 0 * 0 },
	} {
		s := Spec{}.Defaults()
		mod(&s)
		if err := s.Validate(); err == nil || !strings.HasPrefix(err.Error(), param+" ") && !strings.HasPrefix(err.Error(), param+":") {
			t.Errorf("%s: error %v", param, err)
		}
	}
	s := Spec{}.Defaults()
	s.Models, s.GDC, s.Seed = " sm_gdc, gat", "yes", 3
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if c := s.Config(); !reflect.DeepEqual(c.Architectures, []string{"sm_gdc", "gat"}) || c.WithoutGDC || !c.WithGDC || c.Seed != 3 {
		t.Fatalf("config %+v", c)
	}
	if _, err := ArchitectureOf(""); err == nil {
		t.Error(`ArchitectureOf(""): no error`)
	}
}

func TestLoadDatasets(t *testing.T) {
	s := Spec{}.Defaults()
	s.Datasets = "citeseer"
	ds, err := s.LoadDatasets(context.Background(), data.Options{Dir: fixture.DataDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || ds[0].Name != "citeseer" || ds[0].K != 64 || ds[0].PPREps != 0 || ds[0].Graph.NumNodes() == 0 {
		t.Fatalf("datasets %+v", ds)
	}
	s.PPREps = 1e-3
	if ds, err = s.LoadDatasets(context.Background(), data.Options{Dir: fixture.DataDir(t)}); err != nil || ds[0].PPREps != 1e-3 {
		t.Fatalf("ppr eps %v, %v", ds[0].PPREps, err)
	}
}

func TestReport(t *testing.T) {
	rep := &Report{Warmup: 1, Epochs: 3, Seed: 2, GOMAXPROCS: 4, GOARCH: "amd64", GoVersion: "go1.26", Date: "2026-01-02T03:04:05Z",
		Rows: []Row{
			{Dataset: "citeseer", Architecture: "gcn", Model: "gcn", Graph: "input", PrepMs: 0.44, EpochMeanMs: 27.123,
				EpochMedMs: 27.1, EpochMinMs: 27, EpochCPUMs: 10.5, TotalMs: 27.126, PaperMs: 4.7},
			{Dataset: "citeseer", Architecture: "medoid_gdc", Graph: "input", Skipped: "no variant without GDC"},
		}}
	var b bytes.Buffer
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	want := `ms per training epoch: 1 warm-up + 3 timed epochs, GOMAXPROCS=4, go1.26, 2026-01-02T03:04:05Z
   dataset  architecture  GDC                    model (graph)  prep ms  epoch mean  median    min  CPU/epoch  mean+prep/200  paper (GPU)
  citeseer           gcn   no                      gcn (input)      0.4       27.12   27.10  27.00      10.50          27.13          4.7
  citeseer    medoid_gdc   no  skipped: no variant without GDC                                                                          -
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := rep.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	want = `1 warm-up + 3 timed epochs, GOMAXPROCS=4, go1.26, 2026-01-02T03:04:05Z

| dataset | architecture | GDC | model (graph) | prep ms | epoch mean ms | median | CPU ms/epoch | mean + prep/200 | paper (GPU) |
|---|---|---|---|---|---|---|---|---|---|
| citeseer | gcn | no | gcn (input) | 0.4 | 27.12 | 27.10 | 10.50 | 27.13 | 4.7 |
| citeseer | medoid_gdc | no | skipped: no variant without GDC | | | | | | - |

`
	if b.String() != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", b.String(), want)
	}

	path := filepath.Join(t.TempDir(), "bench.json")
	if err := os.WriteFile(path, []byte(`{"warmup_epochs":1,"timed_epochs":3,"seed":2,"gomaxprocs":4,"goarch":"amd64",`+
		`"go_version":"go1.26","date":"2026-01-02T03:04:05Z","rows":[{"dataset":"citeseer","architecture":"gcn","gdc":false,`+
		`"model":"gcn","graph":"input","prep_ms":0.44,"epoch_mean_ms":27.123,"epoch_median_ms":27.1,"epoch_min_ms":27,`+
		`"epoch_cpu_ms":10.5,"epoch_plus_prep_over_200_ms":27.126,"timed_epochs":0,"paper_ms":4.7},`+
		`{"dataset":"citeseer","architecture":"medoid_gdc","gdc":false,"model":"","graph":"input","skipped":"no variant without GDC",`+
		`"prep_ms":0,"epoch_mean_ms":0,"epoch_median_ms":0,"epoch_min_ms":0,"epoch_cpu_ms":0,"epoch_plus_prep_over_200_ms":0,"timed_epochs":0}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadReport(path)
	if err != nil || !reflect.DeepEqual(got, rep) {
		t.Fatalf("ReadReport: %+v, %v", got, err)
	}
	if nr := NewReport(Config{Warmup: 2, Epochs: 5, Seed: 7}, rep.Rows); nr.Warmup != 2 || nr.Epochs != 5 || nr.Seed != 7 || nr.GOMAXPROCS < 1 || nr.Date == "" {
		t.Fatalf("NewReport %+v", nr)
	}
}
