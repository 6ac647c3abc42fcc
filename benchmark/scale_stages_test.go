package benchmark

import (
	"os"
	"slices"
	"testing"
)

// TestScaleStagesSelect: --scale-stages runs the stages asked for plus the
// ones whose files are missing (generate, convert, and ppr for the stages
// that read its matrix), and refuses unknown names.
func TestScaleStagesSelect(t *testing.T) {
	s := ScaleSpec{}.Defaults()
	s.Dir, s.Sizes, s.Stages = t.TempDir(), []int{10_000}, []string{StageLocalPRBCD}
	names := func() []string {
		var out []string
		for _, j := range s.Jobs(10_000) {
			out = append(out, j.Stage)
		}
		return out
	}
	if got, want := names(), []string{StageGenerate, StageConvert, StagePPR, StageLocalPRBCD}; !slices.Equal(got, want) {
		t.Errorf("missing files: stages %v, want %v", got, want)
	}
	file, ppr := s.Paths(10_000)
	for _, f := range []string{file, file + ".rgnn-cache.bin", ppr, ppr + sumsSuffix} {
		os.WriteFile(f, nil, 0o644)
	}
	s.Stages = []string{StageGCN, StageLocalPRBCD}
	if got := names(); !slices.Contains(got, StageGCN) || !slices.Contains(got, StageLocalPRBCD) || slices.Contains(got, StagePPR) ||
		slices.Contains(got, StageLoad) {
		t.Errorf("files present: stages %v, want gcn and local_prbcd (plus convert if its cache name differs)", got)
	}
	s.Stages = []string{"nope"}
	if err := s.Validate(); err == nil {
		t.Error("unknown stage accepted")
	}
}
