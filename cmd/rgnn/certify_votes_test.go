package main

import (
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/certify"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/npz"
)

// TestCertifyVotesSavezAndParams: votes written with np.savez under sparse
// smoothing's names (int32 counts, parameters as Python scalars, some of
// them missing) certify like the same votes written by rgnn; flags that
// disagree with the file's sampling parameters are refused by name, and a
// file whose counts contradict its n_samples is refused on load.
func TestCertifyVotesSavezAndParams(t *testing.T) {
	dataDir := fixture.DataDir(t)
	ref := fixture.Reference(t, "smoothing_votes/cora_ml_Vanilla_GCN_s0_del.npz")
	vf, err := certify.LoadVotes(ref)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	i32 := func(c *certify.Counts) []int32 {
		out := make([]int32, len(c.Data))
		for i, x := range c.Data {
			out[i] = int32(x)
		}
		return out
	}
	var n1 int64
	for _, x := range vf.Votes.Row(0) {
		n1 += x
	}
	savez := filepath.Join(dir, "savez.npz")
	shape := []int{vf.Votes.Nodes, vf.Votes.Classes}
	if err := npz.WriteFile(savez, npz.I32("votes", shape, i32(vf.Votes)), npz.I32("pre_votes", shape, i32(vf.PreVotes)),
		npz.F64("pf_minus_adj", []int{}, []float64{0.4}), npz.I64("n_samples", []int{}, []int64{n1}),
		npz.I64("seed", []int{}, []int64{0})); err != nil {
		t.Fatal(err)
	}
	// With python3 and numpy at hand, the same file as np.savez writes it.
	if py := pythonNumpy(t); py != "" {
		script := `import numpy as np, sys
a = np.load(sys.argv[1])
np.savez(sys.argv[2], votes=a["votes"].astype(np.int32), pre_votes=a["pre_votes"].astype(np.int32),
         pf_minus_adj=0.4, n_samples=int(a["votes"][0].sum()), seed=0)`
		if out, err := exec.Command(py, "-c", script, ref, savez).CombinedOutput(); err != nil {
			t.Fatalf("np.savez: %v\n%s", err, out)
		}
	}
	run := func(args ...string) (certifyReport, error) {
		out, err := runRoot(t, append([]string{"certify", "--data-dir", dataDir, "--dataset", "cora_ml", "--split-seed", "0", "--json"}, args...)...)
		var rep certifyReport
		if err == nil {
			err = json.Unmarshal([]byte(out), &rep)
		}
		return rep, err
	}
	want, err := run("--votes", ref, "--p-add", "0", "--p-del", "0.4")
	if err != nil {
		t.Fatal(err)
	}
	got, err := run("--votes", savez)
	if err != nil {
		t.Fatal(err)
	}
	if got.AccumulatedCertifications != want.AccumulatedCertifications || got.PDel != 0.4 || got.NumSamples != int(n1) {
		t.Fatalf("np.savez votes: %+v, want %+v", got.CertifyResult, want.CertifyResult)
	}
	for _, c := range []struct{ args []string }{
		{[]string{"--p-del", "0.3"}}, {[]string{"--p-add", "0.01"}}, {[]string{"--samples", "5"}}, {[]string{"--seed", "3"}},
	} {
		_, err := run(append([]string{"--votes", savez}, c.args...)...)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.args[0]) || !strings.Contains(err.Error(), "disagrees with the votes file") {
			t.Errorf("%v: %v, want a usage error naming the flag", c.args, err)
		}
	}
	// The reference's file records nothing: --samples is checked against its
	// totals.
	if _, err := run("--votes", ref, "--p-add", "0", "--p-del", "0.4", "--samples", "7"); err == nil ||
		!strings.Contains(err.Error(), "--samples 7: disagrees") {
		t.Errorf("--samples against the totals: %v", err)
	}
	bad := filepath.Join(dir, "bad.npz")
	if err := npz.WriteFile(bad, npz.I32("votes", shape, i32(vf.Votes)), npz.I32("pre_votes", shape, i32(vf.PreVotes)),
		npz.F64("pf_minus_adj", []int{}, []float64{0.4}), npz.I64("n_samples", []int{}, []int64{n1 + 1})); err != nil {
		t.Fatal(err)
	}
	if _, err := run("--votes", bad); err == nil || !strings.Contains(err.Error(), "records") {
		t.Errorf("contradicting n_samples: %v", err)
	}
}

// pythonNumpy returns /usr/bin/python3 when it imports numpy, else "".
func pythonNumpy(t testing.TB) string {
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		return ""
	}
	return py
}
