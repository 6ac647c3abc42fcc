package serve

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/internal/cputime"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/tensor"
)

// TestEngineUpdateCost (RGNN_ENGINE_COST=1, cora_ml in $RGNN_DATA_DIR):
// random edge additions and removals through the engine of a push model;
// reports the CPU time per update (the process's own, internal/cputime)
// and checks the served logits against a full recomputation on the final
// graph, bit for bit. A model with lazy versions (modePushGDCRows) is timed
// for the update and the prediction at its endpoints, as a server answers
// it; the table is then filled (untimed) and the prediction checked
// against it. RGNN_ENGINE_COST_PAIRS=1 edits as rgnn-load's update
// workload does: a random absent edge added, removed by the next update.
// RGNN_ENGINE_COST_PROFILE=F writes a CPU profile of the updates alone (the
// initial push excluded) to F.<model>.
func TestEngineUpdateCost(t *testing.T) {
	if os.Getenv("RGNN_ENGINE_COST") == "" {
		t.Skip("RGNN_ENGINE_COST unset")
	}
	path := filepath.Join(os.Getenv("RGNN_DATA_DIR"), "cora_ml.npz")
	if f := os.Getenv("RGNN_ENGINE_COST_FILE"); f != "" {
		path = f // e.g. rgnn data generate --preset arxiv
	}
	models := []string{"sm_gdc", "softmedian_pprgo"}
	if m := os.Getenv("RGNN_ENGINE_COST_MODELS"); m != "" {
		models = strings.Split(m, ",")
	}
	if _, err := os.Stat(path); err != nil {
		t.Skip(err)
	}
	g, err := data.LoadFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range models {
		t.Run(name, func(t *testing.T) {
			e, m := testEngine(t, name, g, model.Options{PPREps: 1e-4, Seed: 1})
			st := &graphState{adj: g.Adj, feats: g.Features}
			tab, err := e.init(st)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			n := st.nodes()
			steps := 30
			var cpu, wall time.Duration
			var alloc uint64
			var ms runtime.MemStats
			if f := os.Getenv("RGNN_ENGINE_COST_PROFILE"); f != "" {
				out, err := os.Create(f + "." + name)
				if err != nil {
					t.Fatal(err)
				}
				defer out.Close()
				if err := pprof.StartCPUProfile(out); err != nil {
					t.Fatal(err)
				}
				defer pprof.StopCPUProfile() // on failure; after the updates otherwise
			}
			rows, removed, fills := 0, 0, 0
			pairs := os.Getenv("RGNN_ENGINE_COST_PAIRS") != ""
			var lastU, lastV int32
			for i := range steps {
				b := newBuilder(st)
				u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
				for u == v || pairs && hasEdge(st.adj, u, v) {
					u, v = int32(rng.IntN(n)), int32(rng.IntN(n))
				}
				add := !hasEdge(st.adj, u, v)
				switch {
				case pairs && i%2 == 1: // the edge added before, removed
					u, v, add = lastU, lastV, false
				case !pairs && i%5 == 4: // a removal of an existing edge of u
					r := st.adj.Indices[st.adj.Indptr[u]:st.adj.Indptr[u+1]]
					v, add = r[rng.IntN(len(r))], false
				}
				lastU, lastV = u, v
				if err := b.edge(u, v, add, "e"); err != nil {
					t.Fatal(err)
				}
				next := b.build(uint64(i + 1))
				runtime.ReadMemStats(&ms)
				a0 := ms.TotalAlloc
				c0, _ := cputime.Process()
				w0 := time.Now()
				nt, lazy, k, err := e.update(tab, next, b.changed())
				if err != nil {
					t.Fatal(err)
				}
				var z *tensor.Dense
				if lazy != nil { // the prediction at the endpoints
					if z, err = lazy.rows([]int{int(u), int(v)}); err != nil {
						t.Fatal(err)
					}
				}
				wall += time.Since(w0)
				c1, _ := cputime.Process()
				cpu += c1 - c0
				e.settle() // as the server does once the version is served
				if lazy != nil {
					nt = e.fill(lazy)
					fills++
					for j, x := range []int32{u, v} {
						if !slices.Equal(z.Row(j), nt.row(int(x))) {
							t.Fatalf("update %d: the lazy logits of node %d differ from the table's", i, x)
						}
					}
				}
				runtime.ReadMemStats(&ms)
				alloc += ms.TotalAlloc - a0
				rows += k
				if !add {
					removed += k
				}
				tab, st = nt, next
			}
			if os.Getenv("RGNN_ENGINE_COST_PROFILE") != "" {
				pprof.StopCPUProfile()
			}
			if e.agg1 != nil {
				c := &e.agg1.cache
				t.Logf("first layer: last update reused the distances of %d rows, computed %d (cache %.0f MB)", c.Hits, c.Misses, float64(c.Bytes())/1e6)
			}
			what := "update"
			if fills > 0 {
				what = "update and prediction at the endpoints (the table filled after, not counted)"
			}
			t.Logf("%s: %d updates, %.1f CPU-ms and %.1f wall-ms per %s, %.0f PPR rows per update (removals %d of them), %.1f MB allocated per update",
				name, steps, float64(cpu.Microseconds())/1e3/float64(steps),
				float64(wall.Microseconds())/1e3/float64(steps), what, float64(rows)/float64(steps), removed, float64(alloc)/1e6/float64(steps))
			// Full recomputation: a fresh push preprocessing and forward.
			mg, err := m.Preprocess(st.adj, st.feats)
			if err != nil {
				t.Fatal(err)
			}
			want := m.Forward(autograd.NoGrad(), mg, autograd.NewSparse(st.feats), model.Mode{}).Value
			diff, same := 0.0, 0
			for i := range n {
				got, w := tab.row(i), want.Data[i*want.Cols:(i+1)*want.Cols]
				if slices.Equal(got, w) {
					same++
				}
				for j := range got {
					diff = max(diff, float64(abs32(got[j]-w[j])))
				}
			}
			t.Logf("max |served − full| = %g; %d of %d rows bit-identical", diff, same, n)
			if diff > 1e-5 {
				t.Fatalf("served logits differ from a full recomputation by %g", diff)
			}
		})
	}
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}
