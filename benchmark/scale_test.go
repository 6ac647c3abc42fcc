package benchmark

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/aggregate"
	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

func TestScaleSpecValidate(t *testing.T) {
	d := ScaleSpec{}.Defaults()
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Sizes, []int{10_000, 100_000, 1_000_000, 2_449_029}) || d.Preset != "products" || d.K != 64 {
		t.Errorf("defaults %+v", d)
	}
	for _, c := range []struct {
		edit func(*ScaleSpec)
		want string
	}{
		{func(s *ScaleSpec) { s.Preset = "cora" }, "preset"},
		{func(s *ScaleSpec) { s.Sizes = nil }, "sizes"},
		{func(s *ScaleSpec) { s.Sizes = []int{0} }, "sizes"},
		{func(s *ScaleSpec) { s.Sizes = []int{20_000_000} }, "sizes"},
		{func(s *ScaleSpec) { s.Epochs = 0 }, "epochs"},
		{func(s *ScaleSpec) { s.BatchSize = 0 }, "batch size"},
		{func(s *ScaleSpec) { s.Dir = "" }, "dir"},
	} {
		s := d
		c.edit(&s)
		if err := s.Validate(); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v", c.want, err)
		}
	}
	if got, err := ParseSizes("10000, 2449029"); err != nil || !reflect.DeepEqual(got, []int{10000, 2449029}) {
		t.Errorf("ParseSizes: %v %v", got, err)
	}
	if _, err := ParseSizes("10k"); err == nil {
		t.Error("ParseSizes accepted 10k")
	}
}

// The stages of a size: generate and convert only while their files are
// missing, Soft Median GDC only up to ScaleMaxSMGDC nodes.
func TestScaleJobs(t *testing.T) {
	s := ScaleSpec{}.Defaults()
	s.Dir = t.TempDir()
	stages := func(n int) []string {
		var out []string
		for _, j := range s.Jobs(n) {
			out = append(out, j.Stage)
		}
		return out
	}
	all := []string{StageGenerate, StageConvert, StageLoad, StagePPR, StageGCN, StagePRBCD, StageSMGDC, StagePRBCDSMGDC,
		StagePPRGo, StageSMPPRGo, StageLocalPRBCD}
	if got := stages(1000); !reflect.DeepEqual(got, all) {
		t.Errorf("1000 nodes: %v", got)
	}
	if got := stages(1_000_000); slicesContains(got, StageSMGDC) || slicesContains(got, StagePRBCD) ||
		slicesContains(got, StagePRBCDSMGDC) {
		t.Errorf("1M nodes: %v", got)
	}
	file, _ := s.Paths(1000)
	for _, p := range []string{file, file + ".rgnn-cache.bin"} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := stages(1000); !reflect.DeepEqual(got, all[2:]) {
		t.Errorf("1000 nodes, files present: %v", got)
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestFloatsFileRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.sums")
	v := []float64{1, 0.25, -3e-300, 7}
	if err := writeFloats(p, v); err != nil {
		t.Fatal(err)
	}
	if got, err := readFloats(p); err != nil || !reflect.DeepEqual(got, v) {
		t.Fatalf("read back %v, %v", got, err)
	}
	raw, _ := os.ReadFile(p)
	if err := os.WriteFile(p, raw[:len(raw)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readFloats(p); err == nil {
		t.Fatal("truncated file read")
	}
}

func TestCSRFileRoundTrip(t *testing.T) {
	a, err := tensor.FromCOO(3, 5, []tensor.Entry{{Row: 0, Col: 4, Val: 0.5}, {Row: 2, Col: 0, Val: 1}, {Row: 2, Col: 3, Val: -2}})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "a.ppr")
	if err := writeCSR(p, a); err != nil {
		t.Fatal(err)
	}
	b, err := readCSR(p)
	if err != nil || !reflect.DeepEqual(a, b) {
		t.Fatalf("read back %+v, %v; want %+v", b, err, a)
	}
	raw, _ := os.ReadFile(p)
	if err := os.WriteFile(p, raw[:len(raw)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readCSR(p); err == nil {
		t.Fatal("truncated file read")
	}
}

// Every stage runs in-process at a tiny size and reports its row; the
// PPRGo stages learn (above chance after two epochs of four mini-batches).
func TestRunScaleInProcess(t *testing.T) {
	reg := model.Default(func(n string, o model.Options) (autograd.Aggregator, error) {
		return aggregate.ForModel(n, o.K, o.Temperature, o.Normalization)
	})
	s := ScaleSpec{}.Defaults()
	s.Dir, s.Sizes, s.Epochs, s.BatchSize = t.TempDir(), []int{3000}, 2, 64
	var seen []string
	rows, err := s.Run(context.Background(), func(ctx context.Context, job ScaleJob) (ScaleRow, error) {
		return RunScaleJob(ctx, job, reg, ScaleHooks{})
	}, func(r ScaleRow) { seen = append(seen, r.Stage) })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{StageGenerate, StageConvert, StageLoad, StagePPR, StageGCN, StagePRBCD, StageSMGDC, StagePRBCDSMGDC,
		StagePPRGo, StageSMPPRGo, StageLocalPRBCD}
	if !reflect.DeepEqual(seen, want) {
		t.Fatalf("stages %v, want %v", seen, want)
	}
	for _, r := range rows {
		if r.Nodes != 3000 || r.Edges < 50_000 || r.Seconds < 0 || r.CPUSeconds < 0 || r.PeakRSS <= 0 {
			t.Errorf("row %+v", r)
		}
		if r.Epochs > 0 {
			t.Logf("%s: accuracy %.3f (chance %.3f)", r.Stage, r.Accuracy, r.Chance)
		}
		if r.Stage == StagePRBCDSMGDC && (r.Seconds <= 0 || !strings.Contains(r.Note, "softmedian_gdc")) {
			t.Errorf("prbcd_sm_gdc row %+v", r)
		}
		if r.Stage == StageLocalPRBCD && (r.Seconds <= 0 || r.CPUSeconds <= 0 || !strings.Contains(r.Note, "5 test targets")) {
			t.Errorf("local_prbcd row %+v", r)
		}
		if (r.Stage == StagePPRGo || r.Stage == StageSMPPRGo) && (r.Epochs != 2 || r.BatchSize != 64 || r.Accuracy <= r.Chance) {
			t.Errorf("%s: %+v, want 2 epochs in batches of 64 and accuracy above chance", r.Stage, r)
		}
	}
	rep := NewScaleReport(s, "rgnn bench --scale --sizes 3000")
	rep.Rows = rows
	rep.Finish()
	var buf bytes.Buffer
	if err := rep.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, w := range []string{"command: rgnn bench --scale --sizes 3000", "machine: ", "load average", "sm_pprgo", "peak RSS"} {
		if !strings.Contains(out, w) {
			t.Errorf("table lacks %q:\n%s", w, out)
		}
	}
}
