package graph

import "testing"

func BenchmarkExactGDC(b *testing.B) {
	a := coraOrRandom(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := ExactGDC(a, 0.15, 64); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkApproxGDC(b *testing.B) {
	a := coraOrRandom(b)
	for b.Loop() {
		if _, err := ApproxGDC(a, 0.15, 64, 1e-4); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSVDGraph(b *testing.B) {
	a := coraOrRandom(b)
	for b.Loop() {
		if _, err := SVDGraph(a, 50); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJaccard(b *testing.B) {
	g := benchGraphs(b)[0]
	for b.Loop() {
		if _, _, err := JaccardFilter(g.adj, g.features, DefaultJaccardThreshold); err != nil {
			b.Fatal(err)
		}
	}
}
