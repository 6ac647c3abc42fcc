//go:build amd64 && !purego

package aggregate

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

// TestMedianKernelsAVX512 checks each family of kernels on every column
// of forMedianCases: the exact 8-lane kernels (otherwise run only where a
// uint32-key kernel reports a collision), the 16-lane kernels with their
// scan over up to 8 lanes (otherwise run without AVX-512VL), and the
// default choice, whose collisions are counted: near-ties must produce
// some for the fallback to be tested.
func TestMedianKernelsAVX512(t *testing.T) {
	if !hasMedian512 {
		t.Skip("no AVX-512F")
	}
	var ws workspace
	colls, rows := 0, 0
	for _, mode := range []int{medianExact, medianWide, medianAuto} {
		forMedianCases(t, func(a *tensor.CSR, x *tensor.Dense, r int, total float64, pick []int32) {
			lo, hi := a.Indptr[r], a.Indptr[r+1]
			if !medianPicksAVX512(x, a.Indices[lo:hi], a.Values[lo:hi], total/2, lo, pick, &ws, mode) {
				medianPicks(a, x, r, total, pick, &ws)
				return
			}
			if mode != medianAuto {
				return
			}
			rows++
			for _, m := range ws.coll[:(x.Cols+7)/8] {
				if m != 0 {
					colls++
					break
				}
			}
		})
	}
	t.Logf("uint32-key kernels: %d of %d rows with collisions", colls, rows)
	if colls == 0 || colls == rows {
		t.Errorf("%d of %d rows with collisions: the test does not exercise both paths", colls, rows)
	}
	// How often normal values (the benchmark graph) take the exact kernel.
	a, x, _ := benchGraph()
	pick := make([]int32, x.Cols)
	totals := rowSums(a, nil)
	groups, redo := 0, 0
	for r := range a.Rows {
		lo, hi := a.Indptr[r], a.Indptr[r+1]
		medianPicksAVX512(x, a.Indices[lo:hi], a.Values[lo:hi], totals[r]/2, lo, pick, &ws, medianAuto)
		for _, m := range ws.coll[:(x.Cols+15)/16] {
			for h := range 2 {
				groups++
				redo += b2i(m>>(8*h)&0xff != 0)
			}
		}
	}
	t.Logf("benchGraph: %d of %d eight-column groups recomputed with exact keys", redo, groups)
}

// TestDimMedianAsmGenerated checks that dimmedian_amd64.s is what
// dimmedian_gen.go writes (go generate after changing the generator).
func TestDimMedianAsmGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		t.Skipf("no go tool: %v", err)
	}
	out := filepath.Join(t.TempDir(), "dimmedian_amd64.s")
	cmd := exec.Command(goTool, "run", "dimmedian_gen.go", "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run dimmedian_gen.go: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("dimmedian_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("dimmedian_amd64.s differs from dimmedian_gen.go's output: run go generate ./aggregate")
	}
}

// BenchmarkMedianPicksExact is BenchmarkMedianPicks' 64-entry rows on the
// exact 8-lane kernel alone (no 16-lane pass).
func BenchmarkMedianPicksExact(b *testing.B) {
	if !hasMedian512 {
		b.Skip("no AVX-512F")
	}
	for _, d := range []int{64, 7} {
		rng := rand.New(rand.NewPCG(64, uint64(d)))
		const n = 512
		var es []tensor.Entry
		for r := range 64 {
			for _, c := range rng.Perm(n)[:64] {
				es = append(es, tensor.Entry{Row: int32(r), Col: int32(c), Val: float32(rng.Float64())})
			}
		}
		a, _ := tensor.FromCOO(64, n, es)
		x := randX(rng, n, d)
		totals := rowSums(a, nil)
		pick := make([]int32, d)
		b.Run(fmt.Sprintf("nk=64/d=%d", d), func(b *testing.B) {
			var ws workspace
			r := 0
			c0 := cpuSeconds()
			for b.Loop() {
				lo, hi := a.Indptr[r], a.Indptr[r+1]
				medianPicksAVX512(x, a.Indices[lo:hi], a.Values[lo:hi], totals[r]/2, lo, pick, &ws, medianExact)
				r = (r + 1) & 63
			}
			if c := cpuSeconds(); c > 0 && b.N > 0 {
				b.ReportMetric((c-c0)*1e9/float64(b.N), "cpu-ns/op")
			}
		})
	}
}
