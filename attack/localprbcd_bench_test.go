package attack_test

import (
	"context"
	"testing"

	"github.com/rgnn/rgnn/attack"
	"github.com/rgnn/rgnn/attack/engine"
	"github.com/rgnn/rgnn/attack/internal/attacktest"
)

// BenchmarkLocalPRBCDCoraML attacks one cora_ml target (node 40, budget
// deg + 2 = 3) of the reference GCN with the default 500 + 100 epochs on
// one worker:
//
//	GOEXPERIMENT=simd go test -run xxx -bench LocalPRBCDCoraML -benchtime 3x ./attack
func BenchmarkLocalPRBCDCoraML(b *testing.B) {
	p := attacktest.LoadCora(b, 0)
	gcn := attacktest.Pretrained(b, "gcn", "Vanilla_GCN", 1, 0, p)
	spec, _ := attack.Default().Lookup("local_prbcd")
	a, _ := spec.NewTargeted(attack.Options{})
	loss, _ := attack.LossByName("margin")
	e, err := engine.New(gcn, p, false)
	if err != nil {
		b.Fatal(err)
	}
	env := &attack.TargetEnv{Problem: p, Loss: loss, Workers: 1, NewEngine: func() (attack.Engine, error) { return e, nil }}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := a.PerturbTargets(context.Background(), env, []attack.TargetBudget{{Node: 40, Budget: 3}}); err != nil {
			b.Fatal(err)
		}
	}
}
