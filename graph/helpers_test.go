package graph

import (
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"

	"github.com/rgnn/rgnn/linalg"
	"github.com/rgnn/rgnn/tensor"
)

func TestJaccardFilter(t *testing.T) {
	// Feature patterns: 0 {0,1,2}, 1 {1,2,3}, 2 {7}, 3 {} , 4 {}, 5 {0,1,2,3,4,5,6,7,8,9}
	// with an explicit stored zero in row 2 (column 0) that must not count.
	feat, err := tensor.FromCOO(6, 10, []tensor.Entry{
		{Row: 0, Col: 0, Val: 1}, {Row: 0, Col: 1, Val: .5}, {Row: 0, Col: 2, Val: 1},
		{Row: 1, Col: 1, Val: 1}, {Row: 1, Col: 2, Val: 1}, {Row: 1, Col: 3, Val: 2},
		{Row: 2, Col: 0, Val: 0}, {Row: 2, Col: 7, Val: 1},
		{Row: 5, Col: 0, Val: 1}, {Row: 5, Col: 1, Val: 1}, {Row: 5, Col: 2, Val: 1}, {Row: 5, Col: 3, Val: 1},
		{Row: 5, Col: 4, Val: 1}, {Row: 5, Col: 5, Val: 1}, {Row: 5, Col: 6, Val: 1}, {Row: 5, Col: 7, Val: 1},
		{Row: 5, Col: 8, Val: 1}, {Row: 5, Col: 9, Val: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	// edges: 0-1 J=2/4=.5 keep; 0-2 J=0 drop; 3-4 both empty → NaN keep;
	// 2-5 J=1/10=.1 keep at t=.01, drop at t=.1 (≤); 1-3 J=0 drop.
	a := undirected(t, 6, [][2]int{{0, 1}, {0, 2}, {3, 4}, {2, 5}, {1, 3}})
	for _, tc := range []struct {
		thr     float64
		removed int
		kept    [][2]int
	}{
		{0.01, 2, [][2]int{{0, 1}, {2, 5}, {3, 4}}},
		{0.1, 3, [][2]int{{0, 1}, {3, 4}}},
		{-1, 0, [][2]int{{0, 1}, {0, 2}, {1, 3}, {2, 5}, {3, 4}}},
	} {
		out, removed, err := JaccardFilter(a, feat, tc.thr)
		if err != nil {
			t.Fatal(err)
		}
		if err := out.Validate(); err != nil {
			t.Fatal(err)
		}
		if removed != tc.removed {
			t.Errorf("t=%v: removed %d, want %d", tc.thr, removed, tc.removed)
		}
		if got := UpperTriangleEdges(out); !slices.Equal(got, tc.kept) {
			t.Errorf("t=%v: kept %v, want %v", tc.thr, got, tc.kept)
		}
		if !linalg.IsSymmetric(out) {
			t.Errorf("t=%v: result not symmetric", tc.thr)
		}
	}
	if _, _, err := JaccardFilter(a, &tensor.CSR{Rows: 2, Cols: 2, Indptr: []int{0, 0, 0}}, .01); err == nil ||
		!strings.Contains(err.Error(), "feature rows") {
		t.Errorf("shape mismatch error: %v", err)
	}
}

func TestFlipEdges(t *testing.T) {
	a := undirected(t, 5, [][2]int{{0, 1}, {1, 2}, {3, 4}})
	out, err := FlipEdges(a, [][2]int{{2, 1}, {0, 4}, {2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := UpperTriangleEdges(out), [][2]int{{0, 1}, {0, 4}, {2, 3}, {3, 4}}; !slices.Equal(got, want) {
		t.Errorf("edges %v, want %v", got, want)
	}
	if got := UpperTriangleEdges(a); len(got) != 3 {
		t.Errorf("input modified: %v", got)
	}
	for _, bad := range [][][2]int{{{1, 1}}, {{0, 5}}, {{-1, 2}}, {{0, 1}, {1, 0}}} {
		if _, err := FlipEdges(a, bad); err == nil {
			t.Errorf("pairs %v: no error", bad)
		}
	}
	if got := Degrees(out); !slices.Equal(got, []int{2, 1, 1, 2, 2}) {
		t.Errorf("degrees %v", got)
	}
}

// TestFlipEdgesProperties: symmetric, no self loops, an involution, and
// exactly the requested pairs change.
func TestFlipEdgesProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(2, 30).Draw(rt, "n")
		seed := rapid.Uint64().Draw(rt, "seed")
		a := randomGraph(rt, n, n, seed)
		r := rand.New(rand.NewPCG(seed, 3))
		seen := map[[2]int]bool{}
		var pairs [][2]int
		for i := 0; i < rapid.IntRange(0, 20).Draw(rt, "flips"); i++ {
			u, v := r.IntN(n), r.IntN(n)
			if u == v || seen[[2]int{min(u, v), max(u, v)}] {
				continue
			}
			seen[[2]int{min(u, v), max(u, v)}] = true
			pairs = append(pairs, [2]int{u, v})
		}
		f, err := FlipEdges(a, pairs)
		if err != nil {
			rt.Fatal(err)
		}
		if err := f.Validate(); err != nil {
			rt.Fatal(err)
		}
		if !linalg.IsSymmetric(f) {
			rt.Fatal("not symmetric")
		}
		for i := 0; i < n; i++ {
			if _, ok := f.Find(i, i); ok {
				rt.Fatalf("self loop at %d", i)
			}
		}
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				_, before := a.Find(i, j)
				_, after := f.Find(i, j)
				if (before != after) != seen[[2]int{i, j}] {
					rt.Fatalf("pair (%d,%d): before %v after %v flipped %v", i, j, before, after, seen[[2]int{i, j}])
				}
			}
		}
		back, err := FlipEdges(f, pairs)
		if err != nil {
			rt.Fatal(err)
		}
		if !sameCSR(back, a) {
			rt.Fatal("flipping twice is not the identity")
		}
	})
}

func TestConnectedComponents(t *testing.T) {
	// components: {0,3,5}, {1}, {2,4}, {6,7,8}
	a := undirected(t, 9, [][2]int{{0, 3}, {3, 5}, {4, 2}, {6, 8}, {7, 8}})
	labels, sizes := ConnectedComponents(a)
	if want := []int{0, 1, 2, 0, 2, 0, 3, 3, 3}; !slices.Equal(labels, want) {
		t.Errorf("labels %v, want %v", labels, want)
	}
	if want := []int{3, 1, 2, 3}; !slices.Equal(sizes, want) {
		t.Errorf("sizes %v, want %v", sizes, want)
	}
	if got := LargestComponent(a); !slices.Equal(got, []int{0, 3, 5}) {
		t.Errorf("largest %v", got)
	}
	// directed edge 1→2 only: weakly connected
	d, _ := tensor.FromCOO(3, 3, []tensor.Entry{{Row: 1, Col: 2, Val: 1}})
	if _, s := ConnectedComponents(d); !slices.Equal(s, []int{1, 2}) {
		t.Errorf("weak components sizes %v", s)
	}
}

func TestPrepCache(t *testing.T) {
	a := randomGraph(t, 60, 80, 1)
	c := NewPrepCache(2)
	var calls atomic.Int32
	compute := func(x *tensor.CSR) (*tensor.CSR, error) {
		calls.Add(1)
		return GDC(x, DefaultGDCConfig())
	}
	var wg sync.WaitGroup
	results := make([]*tensor.CSR, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := c.Get(a, "gdc", compute)
			if err != nil {
				t.Error(err)
			}
			results[i] = r
		}()
	}
	wg.Wait()
	if calls.Load() != 1 {
		t.Errorf("computed %d times for one graph, want 1", calls.Load())
	}
	for _, r := range results[1:] {
		if r != results[0] {
			t.Fatal("concurrent callers got different results")
		}
	}
	// A perturbed graph is a miss; an equal copy is a hit.
	f, _ := FlipEdges(a, [][2]int{{0, 59}})
	if _, err := c.Get(f, "gdc", compute); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(a.Clone(), "gdc", compute); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 2 {
		t.Errorf("calls %d, want 2", calls.Load())
	}
	// Different parameters are a different key; capacity 2 evicts a.
	if _, err := c.GDC(a, GDCConfig{Alpha: .1, K: 8}); err != nil {
		t.Fatal(err)
	}
	if size, _, _ := c.Stats(); size != 2 {
		t.Errorf("size %d, want 2", size)
	}
	if _, err := c.Get(a, "gdc", compute); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 3 {
		t.Errorf("calls %d after eviction, want 3", calls.Load())
	}
	if Fingerprint(a) == Fingerprint(f) {
		t.Error("fingerprint ignores an edge flip")
	}
	// SVDs are cached beside diffusions: the same result on a hit, and a
	// GDC and an SVD of one graph both kept with capacity 2.
	d := NewPrepCache(2)
	s1, err := d.SVDLowRank(a, 5)
	if err != nil {
		t.Fatal(err)
	}
	g1, err := d.GDC(a, DefaultGDCConfig())
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := d.SVDLowRank(a.Clone(), 5)
	g2, _ := d.GDC(a.Clone(), DefaultGDCConfig())
	if s1 != s2 || g1 != g2 {
		t.Error("an SVD and a GDC of the same graph are not both cached")
	}
	if _, hits, misses := d.Stats(); hits != 2 || misses != 2 {
		t.Errorf("hits %d, misses %d; want 2 and 2", hits, misses)
	}
	if s3, _ := d.SVDLowRank(a, 6); s3 == s1 {
		t.Error("another rank hit the cached SVD")
	}

}
