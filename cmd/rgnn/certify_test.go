package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/rgnn/rgnn/certify"
	"github.com/rgnn/rgnn/internal/fixture"
)

func runRoot(t testing.TB, args ...string) (string, error) {
	t.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func TestCertifyCommand(t *testing.T) {
	dataDir := fixture.DataDir(t)
	votes := fixture.Reference(t, "smoothing_votes/cora_ml_Vanilla_GCN_s0_del.npz")
	out, err := runRoot(t, "certify", "--data-dir", dataDir, "--votes", votes, "--p-add", "0", "--p-del", "0.4",
		"--dataset", "cora_ml", "--split-seed", "0", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep certifyReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	// expected_certification_cora_ml.json, Vanilla GCN seed 0, Del.
	if math.Abs(rep.AccumulatedCertifications-4.446245059288537) > 1e-9 ||
		math.Abs(rep.SmoothedAccuracy-0.8102766798418972) > 1e-9 ||
		rep.GridShape != [3]int{2810, 3, 10} || len(rep.DegreeBins) == 0 {
		t.Errorf("report %+v", rep)
	}

	// Our own vote file records the flip probabilities: no flags needed,
	// contradicting flags are a usage error.
	vf, err := certify.LoadVotes(votes)
	if err != nil {
		t.Fatal(err)
	}
	vf.HasParams, vf.Sample = true, certify.SampleParams{PMinusAdj: 0.4}
	own := filepath.Join(t.TempDir(), "v.npz")
	if err := vf.Save(own); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := runRoot(t, "certify", "--data-dir", dataDir, "--votes", own, "--split-seed", "0", "--plot", dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"v_cert_ratio.png", "v_cert_ratio.svg", "v_accum_certs_degree.png", "v_accum_certs_degree.svg"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("plot %s: %v", f, err)
		}
	}
	var ue usageError
	if _, err := runRoot(t, "certify", "--data-dir", dataDir, "--votes", own, "--p-del", "0.3"); !errors.As(err, &ue) {
		t.Errorf("contradicting --p-del: %v, want a usage error", err)
	}
	// Sampling needs exactly one of --weights and --train, and the flip probabilities.
	if _, err := runRoot(t, "certify", "--data-dir", dataDir, "--model", "gcn", "--p-add", "0", "--p-del", "0.4"); !errors.As(err, &ue) {
		t.Errorf("--model without --weights/--train: %v, want a usage error", err)
	}
	if _, err := runRoot(t, "certify", "--data-dir", dataDir, "--model", "gcn", "--train"); !errors.As(err, &ue) {
		t.Errorf("--train without --p-add/--p-del: %v, want a usage error", err)
	}
}
