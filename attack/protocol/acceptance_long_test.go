//go:build long

package protocol

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/internal/attacktest"
	"github.com/rgnn/rgnn/internal/cputime"
)

// cpuSeconds is the process's user+system CPU time.
func cpuSeconds() float64 {
	c, _ := cputime.Process()
	return c.Seconds()
}

type acceptRow struct {
	Seed       int     `json:"seed"`
	Attack     string  `json:"attack"`
	Mode       string  `json:"mode"`
	Epsilon    float64 `json:"epsilon"`
	Flips      int     `json:"flips"`
	Added      int     `json:"added"`
	Removed    int     `json:"removed"`
	GCN        float64 `json:"gcn"`
	SMGDC      float64 `json:"sm_gdc_t0.5"`
	Attacked   float64 `json:"attacked_model"`
	Seconds    float64 `json:"wall_seconds"`
	CPUSeconds float64 `json:"cpu_seconds"`
}

// TestAcceptance runs the acceptance protocol on cora_ml, seeds 0,
// 1, 5: transfer DICE, FGSM, PGD, PR-BCD, GR-BCD from a GCN surrogate
// trained here, direct PR-BCD against the reference GCN, against the
// reference pretrained GCN and Soft Medoid GDC (T = 0.5). RGNN_ATTACKS
// restricts the attacks (e.g. "fgsm,prbcd"), RGNN_SEEDS the seeds (e.g.
// "1"), RGNN_ATTACK_OUT names a JSON file for the rows. The bounds are
// checked on the means when all three seeds ran.
//
//	GOEXPERIMENT=simd go test -tags long -run TestAcceptance -timeout 6h -v ./attack/protocol
func TestAcceptance(t *testing.T) {
	only := map[string]bool{}
	for _, a := range strings.Split(os.Getenv("RGNN_ATTACKS"), ",") {
		if a != "" {
			only[a] = true
		}
	}
	want := func(a string) bool { return len(only) == 0 || only[a] }
	type job struct {
		attack   string
		adaptive bool
		eps      []float64
		opts     attack.Options
	}
	// Direct PR-BCD runs with 20 rounds of greedy swap refinement (rgnn
	// attack --refine 20): at the reference's setting alone it stays 0.001
	// above the bound (BENCHMARKS.md, "Direct PR-BCD").
	jobs := []job{{"dice", false, []float64{0.1, 0.25}, attack.Options{}}, {"fgsm", false, []float64{0.1, 0.25}, attack.Options{}},
		{"pgd", false, []float64{0.1, 0.25}, attack.Options{}}, {"prbcd", false, []float64{0.1, 0.25}, attack.Options{}},
		{"prbcd_direct", true, []float64{0.1}, attack.Options{Refine: 20}}, {"grbcd", false, []float64{0.1, 0.25}, attack.Options{}}}
	var rows []acceptRow
	seeds := []int{0, 1, 5}
	if env := os.Getenv("RGNN_SEEDS"); env != "" {
		seeds = nil
		for _, f := range strings.Split(env, ",") {
			var s int
			if _, err := fmt.Sscan(f, &s); err != nil {
				t.Fatalf("RGNN_SEEDS: %v", err)
			}
			seeds = append(seeds, s)
		}
	}
	for _, seed := range seeds {
		p := attacktest.LoadCora(t, seed)
		gcn := attacktest.Pretrained(t, "gcn", "Vanilla_GCN", 1, seed, p)
		smgdc := attacktest.Pretrained(t, "sm_gdc", "Soft_Medoid_GDC_T_0_5", 0.5, seed, p)
		victims := []Victim{{Name: "gcn", Model: gcn}, {Name: "sm_gdc", Model: smgdc}}
		t0 := time.Now()
		sur, err := TrainSurrogate(context.Background(), p, uint64(seed), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d: surrogate trained in %.1fs", seed, time.Since(t0).Seconds())
		for _, j := range jobs {
			if !want(j.attack) {
				continue
			}
			name := strings.TrimSuffix(j.attack, "_direct")
			cfg := Config{Attack: name, Epsilons: j.eps, Seed: uint64(seed), Surrogate: sur, Victims: victims, Options: j.opts}
			if j.adaptive {
				cfg.Adaptive = true // attacks victims[0], the reference GCN
			}
			c0 := cpuSeconds()
			r, err := Run(context.Background(), cfg, p)
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, j.attack, err)
			}
			cpu := cpuSeconds() - c0
			for _, b := range r.Budgets {
				row := acceptRow{Seed: seed, Attack: name, Mode: r.Mode, Epsilon: b.Epsilon, Flips: b.NumFlips,
					Added: b.Added, Removed: b.Removed, GCN: b.Victims[0].Accuracy, SMGDC: b.Victims[1].Accuracy,
					Attacked: b.AttackedAccuracy, Seconds: b.Seconds, CPUSeconds: cpu}
				rows = append(rows, row)
				t.Logf("seed %d %-6s %-8s ε=%-4g flips %4d (+%d −%d) gcn %.4f sm_gdc %.4f attacked %.4f  %.1fs wall, run %.1fs cpu",
					seed, name, r.Mode, b.Epsilon, b.NumFlips, b.Added, b.Removed, row.GCN, row.SMGDC, row.Attacked,
					b.Seconds, cpu)
			}
		}
	}
	// means over seeds and the acceptance bounds
	type key struct {
		attack, mode string
		eps          float64
	}
	sum := map[key][3]float64{}
	var order []key
	for _, r := range rows {
		k := key{r.Attack, r.Mode, r.Epsilon}
		s, ok := sum[k]
		if !ok {
			order = append(order, k)
		}
		sum[k] = [3]float64{s[0] + r.GCN, s[1] + r.SMGDC, s[2] + 1}
	}
	for _, k := range order {
		s := sum[k]
		t.Logf("MEAN %-6s %-8s ε=%-4g gcn %.4f sm_gdc(T=0.5) %.4f (%d seeds)", k.attack, k.mode, k.eps, s[0]/s[2], s[1]/s[2], int(s[2]))
	}
	mean := func(a, m string, e float64) (float64, bool) {
		s, ok := sum[key{a, m, e}]
		if !ok || s[2] < 3 {
			return 0, false
		}
		return s[0] / s[2], true
	}
	check := func(a, m string, e, lo, hi float64) {
		if v, ok := mean(a, m, e); ok && (v < lo || v > hi) {
			t.Errorf("%s %s ε=%v: mean GCN accuracy %.4f outside [%.3f, %.3f]", a, m, e, v, lo, hi)
		}
	}
	check("fgsm", "transfer", 0.1, 0, 0.740)
	check("fgsm", "transfer", 0.25, 0, 0.665)
	check("pgd", "transfer", 0.1, 0, 0.730)
	check("pgd", "transfer", 0.25, 0, 0.630)
	check("dice", "model-free", 0.1, 0.812-0.015, 0.812+0.015)
	check("dice", "model-free", 0.25, 0.785-0.015, 0.785+0.015)
	check("prbcd", "adaptive", 0.1, 0, 0.634)
	if out := os.Getenv("RGNN_ATTACK_OUT"); out != "" {
		b, _ := json.MarshalIndent(rows, "", "  ")
		if err := os.WriteFile(out, b, 0o644); err != nil {
			t.Error(err)
		}
	}
}
