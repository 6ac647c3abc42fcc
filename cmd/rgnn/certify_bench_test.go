package main

import (
	"testing"

	"github.com/rgnn/rgnn/internal/fixture"
)

// BenchmarkCertifySample is one `rgnn certify --model ...` sampling run with
// the reference bin1 weights (16 samples + 2 pre-samples per iteration),
// for profiling: go test ./cmd/rgnn -run xxx -bench CertifySample/sm_gdc -cpuprofile cpu.out
func BenchmarkCertifySample(b *testing.B) {
	dataDir := fixture.DataDir(b)
	for _, tc := range []struct{ name, weights string }{
		{"gcn", "pretrained/cora_ml_Vanilla_GCN_s0_bin1.npz"},
		{"sm_gdc", "pretrained/cora_ml_Soft_Medoid_GDC_T_0_5_s0_bin1.npz"},
	} {
		w := fixture.Reference(b, tc.weights)
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := runRoot(b, "certify", "--data-dir", dataDir, "--dataset", "cora_ml", "--model", tc.name,
					"--temperature", "0.5", "--weights", w, "--binary-attr", "--split-seed", "0",
					"--p-add", "0.001", "--p-del", "0.4", "--samples", "16", "--pre-samples", "2", "--json"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
