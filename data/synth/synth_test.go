package synth

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rgnn/rgnn/data"
)

func generate(t *testing.T, p Preset, seed uint64, procs int) (string, Stats) {
	t.Helper()
	old := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(old)
	path := filepath.Join(t.TempDir(), "g.npz")
	st, err := Generate(context.Background(), p, seed, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return path, st
}

func TestDeterministic(t *testing.T) {
	p, _ := LookupPreset("arxiv")
	p, err := p.Scaled(20000) // 3 random-stream blocks
	if err != nil {
		t.Fatal(err)
	}
	a, sa := generate(t, p, 7, 1)
	b, sb := generate(t, p, 7, 2)
	c, _ := generate(t, p, 8, 2)
	ba, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	bc, _ := os.ReadFile(c)
	if !bytes.Equal(ba, bb) {
		t.Fatal("GOMAXPROCS 1 and 2 wrote different files")
	}
	if bytes.Equal(ba, bc) {
		t.Fatal("seeds 7 and 8 wrote the same file")
	}
	if sa.Edges != sb.Edges || sa.LargestComponent != sb.LargestComponent {
		t.Fatalf("stats differ: %+v vs %+v", sa, sb)
	}
	t.Logf("%+v", sa)
}

func TestPlantedStatistics(t *testing.T) {
	for _, name := range []string{"arxiv", "products", "pubmed"} {
		t.Run(name, func(t *testing.T) {
			p, _ := LookupPreset(name)
			p, err := p.Scaled(15000)
			if err != nil {
				t.Fatal(err)
			}
			path, st := generate(t, p, 1, 2)
			t.Logf("%+v", st)
			g, err := data.LoadFile(path, false)
			if err != nil {
				t.Fatal(err)
			}
			if err := g.Adj.Validate(); err != nil {
				t.Fatal(err)
			}
			if err := g.Features.Validate(); err != nil {
				t.Fatal(err)
			}
			t.Logf("LCC %d of %d", g.NumNodes(), g.RawNodes)
			if g.RawNodes != p.Nodes || g.NumNodes() != st.LargestComponent || float64(g.NumNodes()) < 0.99*float64(p.Nodes) {
				t.Fatalf("LCC %d of %d nodes (stats %d)", g.NumNodes(), g.RawNodes, st.LargestComponent)
			}
			if g.Features.Cols != p.Features || g.NumClasses != p.Classes {
				t.Fatalf("%d features / %d classes", g.Features.Cols, g.NumClasses)
			}
			// The stored split has the preset's shape (pubmed: none).
			if p.TrainFrac == 0 {
				if g.Split != nil {
					t.Fatal("pubmed-shaped graph stores a split")
				}
			} else {
				tr, va, te, err := data.SplitFor(g, 0)
				if err != nil {
					t.Fatal(err)
				}
				k := float64(p.Nodes)
				if math.Abs(float64(len(tr))-p.TrainFrac*k) > 1 || math.Abs(float64(len(va))-p.ValidFrac*k) > 1 ||
					len(tr)+len(va)+len(te) != g.NumNodes() {
					t.Fatalf("split %d/%d/%d for fractions %.3f/%.3f of %d", len(tr), len(va), len(te), p.TrainFrac, p.ValidFrac, p.Nodes)
				}
			}
			// Mean degree within 5% of the preset's.
			want := 2 * float64(p.Edges) / float64(p.Nodes)
			if math.Abs(st.MeanDegree-want) > 0.05*want {
				t.Fatalf("mean degree %.2f, want %.2f", st.MeanDegree, want)
			}
			// Homophily near the planted share (the backbone adds its own).
			if math.Abs(st.Homophily-p.Homophily) > 0.06 {
				t.Fatalf("homophily %.3f, want %.2f", st.Homophily, p.Homophily)
			}
			// Degree spread: heavy tail, median below the mean.
			if st.DegreeCV < 0.7 || float64(st.MedianDegree) > 0.9*st.MeanDegree || float64(st.MaxDegree) < 5*st.MeanDegree {
				t.Fatalf("degree spread too narrow: %+v", st)
			}
			// Class balance: counts follow (c+1)^-skew within sampling error.
			w := p.classWeights()
			for c, k := range st.ClassCounts {
				e := w[c] * float64(p.Nodes)
				if math.Abs(float64(k)-e) > 5*math.Sqrt(e)+1 {
					t.Fatalf("class %d has %d nodes, expected %.0f", c, k, e)
				}
			}
			// Planted features: nearest class centroid from half the nodes
			// classifies the other half far above chance.
			acc := centroidAccuracy(g)
			chance := 0.0
			for _, k := range st.ClassCounts {
				chance = max(chance, float64(k)/float64(p.Nodes))
			}
			t.Logf("feature-centroid accuracy %.3f (majority class %.3f)", acc, chance)
			if acc < chance+0.25 {
				t.Fatalf("features carry too little signal: accuracy %.3f, majority %.3f", acc, chance)
			}
		})
	}
}

func centroidAccuracy(g *data.Graph) float64 {
	x := g.Features
	cent := make([][]float64, g.NumClasses)
	for c := range cent {
		cent[c] = make([]float64, x.Cols)
	}
	for i := 0; i < x.Rows; i += 2 {
		for k := x.Indptr[i]; k < x.Indptr[i+1]; k++ {
			cent[g.Labels[i]][x.Indices[k]] += float64(x.Values[k])
		}
	}
	for _, c := range cent {
		var s float64
		for _, v := range c {
			s += v * v
		}
		for j := range c {
			c[j] /= math.Sqrt(s) + 1e-12
		}
	}
	right, total := 0, 0
	for i := 1; i < x.Rows; i += 2 {
		best, bc := -1.0, 0
		for c := range cent {
			var s float64
			for k := x.Indptr[i]; k < x.Indptr[i+1]; k++ {
				s += cent[c][x.Indices[k]] * float64(x.Values[k])
			}
			if s > best {
				best, bc = s, c
			}
		}
		if int32(bc) == g.Labels[i] {
			right++
		}
		total++
	}
	return float64(right) / float64(total)
}
