//go:build long

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/certify"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/task"
	"github.com/rgnn/rgnn/tensor"
	"github.com/rgnn/rgnn/train"
)

// TestPPRVotesApproxVsExact measures how much the push approximation of
// the GDC preprocessing changes the votes of Soft Medoid GDC (reference bin1
// weights, T = 0.5, seed 0) compared with exact PPR on the same sampled
// graphs (the first N samples of the votes stream, seed 0), for the Del.
// (p₋ = 0.4) and Add (p₊ = 0.001) settings:
//
//	go test -tags long ./cmd/rgnn -run TestPPRVotesApproxVsExact -v -timeout 2h
//
// RGNN_PPR_SAMPLES sets N (default 200), RGNN_PPR_EPS the comma-separated
// eps values (default 1e-4,3e-4,1e-3); RGNN_PPR_TABLE, if set, is a
// file the markdown table is also written to, every 10 samples (a checkpoint).
func TestPPRVotesApproxVsExact(t *testing.T) {
	nSamples := 200
	if s := os.Getenv("RGNN_PPR_SAMPLES"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("RGNN_PPR_SAMPLES=%q", s)
		}
		nSamples = v
	}
	epss := []float64{1e-4, 3e-4, 1e-3}
	if s := os.Getenv("RGNN_PPR_EPS"); s != "" {
		epss = epss[:0]
		for _, f := range strings.Split(s, ",") {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil || !(v > 0) {
				t.Fatalf("RGNN_PPR_EPS=%q", s)
			}
			epss = append(epss, v)
		}
	}
	g, err := data.LoadFile(filepath.Join(fixture.DataDir(t), "cora_ml.npz"), true)
	if err != nil {
		t.Fatal(err)
	}
	_, _, test, err := data.Split(g.Labels, g.NumClasses, 20, 0)
	if err != nil {
		t.Fatal(err)
	}
	weights := fixture.Reference(t, "pretrained/cora_ml_Soft_Medoid_GDC_T_0_5_s0_bin1.npz")
	x := autograd.NewSparse(g.Features)
	all := append([]float64{0}, epss...) // 0 = exact
	models := make([]model.Model, len(all))
	for i, eps := range all {
		m, err := task.Models().New("sm_gdc", g.Features.Cols, g.NumClasses, model.Options{Temperature: 0.5, PPREps: eps})
		if err != nil {
			t.Fatal(err)
		}
		if err := model.LoadWeights(m, weights); err != nil {
			t.Fatal(err)
		}
		models[i] = m
	}
	n, c := g.Adj.Rows, g.NumClasses
	type setting struct {
		name     string
		p        certify.SampleParams
		s        *certify.Sampler
		votes    []*certify.Counts
		agree    []int
		prepTime []time.Duration
	}
	settings := []*setting{{name: "Del. p₋=0.4", p: certify.SampleParams{PMinusAdj: 0.4}},
		{name: "Add p₊=0.001", p: certify.SampleParams{PPlusAdj: 0.001}}}
	for _, st := range settings {
		if st.s, err = certify.NewSampler(g.Adj, g.Features, st.p); err != nil {
			t.Fatal(err)
		}
		st.votes, st.agree, st.prepTime = make([]*certify.Counts, len(all)), make([]int, len(all)), make([]time.Duration, len(all))
		for i := range all {
			st.votes[i] = certify.NewCounts(n, c)
		}
	}
	// table renders the results after done samples of every setting.
	table := func(done int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "%d sampled graphs per setting (votes stream, seed 0), %d nodes, SM GDC T=0.5 bin1 s0; agreement = same prediction as with exact PPR over all (sample, node) pairs\n\n", done, n)
		b.WriteString("| setting | PPR | GDC ms/graph | prediction agreement | nodes with a different majority class | mean / max moved votes per node | acc. cert. (votes as pre-votes, n=" + strconv.Itoa(done) + ") |\n|---|---|---|---|---|---|---|\n")
		for _, st := range settings {
			for i, eps := range all {
				name := "exact"
				if eps > 0 {
					name = fmt.Sprintf("push eps %g", eps)
				}
				diffMajor, moved, maxMoved := 0, 0.0, 0
				for v := range n {
					a, b := st.votes[0].Data[v*c:(v+1)*c], st.votes[i].Data[v*c:(v+1)*c]
					if argmax64(a) != argmax64(b) {
						diffMajor++
					}
					l1 := int64(0)
					for j := range a {
						l1 += abs64(a[j] - b[j])
					}
					moved += float64(l1) / 2
					maxMoved = max(maxMoved, int(l1/2))
				}
				cert, err := certify.Compute(st.votes[i], st.votes[i], certify.Params{PPlus: st.p.PPlusAdj, PMinus: st.p.PMinusAdj, Alpha: 0.05, NumSamples: done}, nil)
				if err != nil {
					t.Fatal(err)
				}
				met, err := cert.Metrics(g.Labels, test)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "| %s | %s | %.0f | %.5f | %d | %.3f / %d | %.4f |\n", st.name, name,
					float64(st.prepTime[i].Milliseconds())/float64(done), float64(st.agree[i])/float64(n*done),
					diffMajor, moved/float64(n), maxMoved, met.AccumulatedCertifications)
			}
		}
		return b.String()
	}
	for k := range nSamples {
		for _, st := range settings {
			adj, feats := st.s.SampleAt(0, certify.StreamVotes, k)
			var exact []int32
			for i, m := range models {
				start := time.Now()
				mg, err := m.Preprocess(adj, feats)
				if err != nil {
					t.Fatal(err)
				}
				st.prepTime[i] += time.Since(start)
				pred := argmaxRows(train.Predict(m, mg, x))
				if i == 0 {
					exact = pred
				}
				for v, y := range pred {
					st.votes[i].Data[v*c+int(y)]++
					if y == exact[v] {
						st.agree[i]++
					}
				}
			}
		}
		// Checkpoint: a long run stopped early still leaves a table.
		if done := k + 1; done%10 == 0 || done == nSamples {
			tab := table(done)
			t.Logf("%d/%d samples per setting", done, nSamples)
			if f := os.Getenv("RGNN_PPR_TABLE"); f != "" {
				if err := os.WriteFile(f, []byte(tab), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if done == nSamples {
				t.Log("\n" + tab)
			}
		}
	}
	for _, st := range settings {
		if st.agree[0] != n*nSamples {
			t.Errorf("%s: exact vs itself: %d disagreements", st.name, n*nSamples-st.agree[0])
		}
	}
}

func argmaxRows(d *tensor.Dense) []int32 {
	out := make([]int32, d.Rows)
	for i := range out {
		out[i] = int32(d.ArgmaxRow(i))
	}
	return out
}

// argmax64 is the first index of the largest count.
func argmax64(a []int64) int {
	best := 0
	for j := range a {
		if a[j] > a[best] {
			best = j
		}
	}
	return best
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
