package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/rgnn/rgnn/internal/cputime"
	"github.com/rgnn/rgnn/internal/fixture"
)

// BenchmarkCertifySample is one `rgnn certify --model ...` sampling run with
// the reference bin1 weights: 16 samples (GCN: 200, so that loading the
// data and weights does not dominate) + 2 pre-samples per iteration, Del.
// setting. cpu-ms/sample is the process CPU time per sample (a number that
// hardly moves when other processes compete for the cores; on an idle
// machine samples/s ≈ cores·1000/cpu-ms). For profiling:
//
//	go test ./cmd/rgnn -run xxx -bench CertifySample/sm_gdc -cpuprofile cpu.out
func BenchmarkCertifySample(b *testing.B) {
	dataDir := fixture.DataDir(b)
	const pre = 2
	for _, tc := range []struct {
		name, model, weights, eps string
		samples                   int
	}{
		{"gcn", "gcn", "pretrained/cora_ml_Vanilla_GCN_s0_bin1.npz", "", 200},
		{"sm_gdc/eps=1e-4", "sm_gdc", "pretrained/cora_ml_Soft_Medoid_GDC_T_0_5_s0_bin1.npz", "1e-4", 16},
		{"sm_gdc/eps=3e-4", "sm_gdc", "pretrained/cora_ml_Soft_Medoid_GDC_T_0_5_s0_bin1.npz", "3e-4", 16},
		{"sm_gdc/eps=1e-3", "sm_gdc", "pretrained/cora_ml_Soft_Medoid_GDC_T_0_5_s0_bin1.npz", "1e-3", 16},
		{"svd_gcn", "svd_gcn", "pretrained/cora_ml_SVD_GCN_s0_bin1.npz", "", 16},
	} {
		samples := tc.samples
		w := fixture.Reference(b, tc.weights)
		b.Run(tc.name, func(b *testing.B) {
			args := []string{"certify", "--data-dir", dataDir, "--dataset", "cora_ml", "--model", tc.model,
				"--temperature", "0.5", "--weights", w, "--binary-attr", "--split-seed", "0",
				"--p-add", "0", "--p-del", "0.4", "--samples", fmt.Sprint(samples), "--pre-samples", fmt.Sprint(pre), "--json"}
			if tc.eps != "" {
				args = append(args, "--sample-ppr-eps", tc.eps)
			}
			cpu0 := processCPU()
			for b.Loop() {
				if _, err := runRoot(b, args...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/1000/float64(b.N*(samples+pre)), "cpu-ms/sample")
		})
	}
}

// processCPU is the process's CPU time so far (0 where not reported).
func processCPU() time.Duration {
	c, _ := cputime.Process()
	return c
}
