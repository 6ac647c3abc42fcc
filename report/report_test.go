package report

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rgnn/rgnn/experiment/store"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.md")

// syntheticResults are rows of every kind the report reads, with values
// that follow a simple formula (no randomness), for two seeds.
func syntheticResults() []store.Result {
	var rs []store.Result
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	add := func(kind string, p store.Params, m map[string]any, secs float64) {
		k, _ := store.Key(kind, p)
		rs = append(rs, store.Result{Key: k, Kind: kind, Experiment: "synthetic", Params: p, Metrics: m,
			Started: t0, Finished: t0, Seconds: secs})
	}
	type mdl struct {
		name string
		T    float64
		rob  float64 // robustness factor
		acc  float64
	}
	models := []mdl{{"gcn", 1, 1, 0.82}, {"gdc", 1, 1.1, 0.83}, {"sm_gdc", 0.2, 3, 0.77}, {"sm_gdc", 0.5, 2.5, 0.8}, {"sm_gdc", 1, 2, 0.82}}
	pairs := [][2]float64{{0.001, 0}, {0, 0.4}, {0.001, 0.4}}
	for _, m := range models {
		for _, seed := range []int{0, 1} {
			s := float64(seed) * 0.01
			base := store.Params{"dataset": "cora_ml", "model": m.name, "temperature": m.T, "seed": seed}
			with := func(kv ...any) store.Params {
				p := store.Params{}
				for k, v := range base {
					p[k] = v
				}
				for i := 0; i < len(kv); i += 2 {
					p[kv[i].(string)] = kv[i+1]
				}
				return p
			}
			add("train", with(), map[string]any{"test_accuracy": m.acc + s, "ms_per_epoch": 5 * m.rob, "epochs": 400.0 + 10*float64(seed),
				"train_seconds": 2 * m.rob}, 2*m.rob)
			for _, pp := range pairs {
				var ratio []any
				for ra := 0; ra < 3; ra++ {
					var row []any
					for rd := 0; rd < 6; rd++ {
						v := (m.acc + s) / (1 + float64(ra)/(0.2*m.rob) + float64(rd)/(2*m.rob))
						if pp[0] == 0 && ra > 0 || pp[1] == 0 && rd > 0 {
							v = 0
						}
						row = append(row, v)
					}
					ratio = append(ratio, row)
				}
				var bins []any
				for b := 0; b < 4; b++ {
					bins = append(bins, map[string]any{"min_degree": float64(int(1) << b), "max_degree": float64(int(1)<<(b+1)) - 1,
						"accumulated_certifications": m.rob * float64(b+1) * (pp[0] + pp[1] + 0.1)})
				}
				add("certify", with("p_add", pp[0], "p_del", pp[1]), map[string]any{
					"accumulated_certifications": m.rob*(pp[0]*100+pp[1]*5) + s, "avg_radius_add_correct": 0.2 * m.rob,
					"avg_radius_del_correct": 2*m.rob + s, "clean_accuracy": m.acc + s, "ratio": ratio, "degree_bins": bins,
				}, 30*m.rob)
			}
			add("targeted", with("attack", "nettack", "budget", "degree+2", "targets_from", ""), map[string]any{
				"mean_margin": 0.2*m.rob - 0.5 + s, "failure_rate": 0.2*m.rob + s, "clean_acc": m.acc + s}, 40)
			for _, a := range []string{"fgsm", "prbcd"} {
				for _, eps := range []float64{0.1, 0.25} {
					add("attack", with("attack", a, "epsilon", eps), map[string]any{"clean_acc": m.acc + s,
						"perturbed_acc": m.acc + s - eps/m.rob}, 10)
				}
			}
		}
	}
	for _, agg := range []string{"sum", "soft_medoid"} {
		var eps, bias []any
		for i := 0; i <= 5; i++ {
			e := float64(i) / 10
			eps = append(eps, e)
			f := 1.0
			if agg == "soft_medoid" {
				f = 0.2
			}
			bias = append(bias, f*e*e*10)
		}
		add("bias", store.Params{"aggregation": agg}, map[string]any{"epsilon": eps, "bias": bias}, 1)
	}
	// The all-curves-in-one-row shape of package bias.
	var curves []any
	for i, est := range []string{"mean", "soft_medoid"} {
		curves = append(curves, map[string]any{"estimator": est, "temperature": float64(i), "norm": 10.0,
			"bias": []any{0.0, 1.0 / float64(i+1), 3.0 / float64(i+1)}})
	}
	add("bias", store.Params{"seed": 0}, map[string]any{"epsilon": []any{0.0, 0.1, 0.2}, "curves": curves}, 1)
	return rs
}

// TestReportFromStore writes the synthetic rows into a store, renders the
// report, and compares the Markdown with testdata/golden.md.
func TestReportFromStore(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, r := range syntheticResults() {
		if _, err := st.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Build(ctx, st, Options{Title: "synthetic"})
	if err != nil {
		t.Fatal(err)
	}
	md := rep.Markdown("figures")
	golden := filepath.Join("testdata", "golden.md")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(golden, []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if md != string(want) {
		t.Errorf("Markdown differs from %s (rerun with -update after checking):\n%s", golden, md)
	}
	// One figure of each family.
	names := map[string]bool{}
	for _, f := range rep.Figures {
		names[strings.SplitN(f.Name, "_cora", 2)[0]] = true
	}
	for _, want := range []string{"cert_ratio", "acc_budget", "temperature", "accum_certs_degree", "bias_curve", "bias_curve_norm10"} {
		if !names[want] {
			t.Errorf("no %s figure (have %v)", want, names)
		}
	}

	dir := t.TempDir()
	if d := os.Getenv("RGNN_SCREENSHOT_DIR"); d != "" {
		dir = d // keep the report next to the screenshot for a look
	}
	paths, err := rep.WriteDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	pngs := 0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			t.Fatalf("%s: %v (%d bytes)", p, err, len(b))
		}
		switch filepath.Ext(p) {
		case ".png":
			pngs++
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if n := colours(img); n < 4 {
				t.Errorf("%s looks blank: %d colours", p, n)
			}
		case ".svg":
			if !bytes.Contains(b, []byte("<svg")) || !bytes.Contains(b, []byte("<path")) {
				t.Errorf("%s: no SVG paths", p)
			}
		case ".html":
			if !bytes.Contains(b, []byte("data:image/png;base64,")) || bytes.Contains(b, []byte("src=\"http")) {
				t.Errorf("%s: not self-contained", p)
			}
		}
	}
	if pngs != len(rep.Figures) || pngs < 10 {
		t.Errorf("%d PNGs for %d figures", pngs, len(rep.Figures))
	}
	checkInBrowser(t, filepath.Join(dir, "report.html"))
}

func colours(img image.Image) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
		}
	}
	return len(seen)
}

// chromium finds a headless browser: $RGNN_CHROMIUM, else chromium or
// chromium-browser on PATH.
func chromium() string {
	if p := os.Getenv("RGNN_CHROMIUM"); p != "" {
		return p
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// checkInBrowser opens the page in headless Chromium: it must load without
// console errors, with every embedded image decoded (data-images="ok"),
// and give a non-blank screenshot (kept in $RGNN_SCREENSHOT_DIR if set).
// Skipped when no browser is installed, unless RGNN_REQUIRE_BROWSER=1
// (.ci/browser-check sets it after installing chromium).
func checkInBrowser(t *testing.T, page string) {
	bin := chromium()
	if bin == "" {
		if os.Getenv("RGNN_REQUIRE_BROWSER") == "1" {
			t.Fatal("RGNN_REQUIRE_BROWSER=1 but no chromium found")
		}
		t.Log("no chromium on PATH: browser check skipped (.ci/browser-check installs it)")
		return
	}
	abs, _ := filepath.Abs(page)
	shotDir := os.Getenv("RGNN_SCREENSHOT_DIR")
	if shotDir == "" {
		shotDir = t.TempDir()
	}
	shot := filepath.Join(shotDir, "report.png")
	run := func(extra ...string) (string, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000"}, extra...)
		args = append(args, "file://"+abs)
		cmd := exec.CommandContext(ctx, bin, args...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %v: %v\n%s", extra, err, errb.String())
		}
		return out.String(), errb.String()
	}
	dom, logs := run("--dump-dom")
	if !strings.Contains(dom, `data-images="ok"`) {
		t.Errorf("images did not all load in chromium (data-images attribute missing or broken)")
	}
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, "CONSOLE") || strings.Contains(l, "Uncaught") || strings.Contains(l, "Failed to load") {
			t.Errorf("chromium console: %s", l)
		}
	}
	_, _ = run("--screenshot="+shot, "--window-size=1280,2400", "--hide-scrollbars")
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if n := colours(img); n < 20 {
		t.Errorf("screenshot %s looks blank (%d colours)", shot, n)
	}
	t.Log(fmt.Sprintf("chromium: page loaded, screenshot %s", shot))
}

// With one seed, captions say so instead of promising a standard error.
func TestOneSeedWording(t *testing.T) {
	one := decodeRows([]store.Result{{Kind: "train", Params: store.Params{"seed": 0.0}}})
	if got := overSeeds(one); strings.Contains(got, "±") || !strings.Contains(got, "one seed (0)") {
		t.Errorf("one seed: %q", got)
	}
	if got := meanOver(one); got != "seed 0" {
		t.Errorf("one seed, figure: %q", got)
	}
	three := decodeRows([]store.Result{{Kind: "train", Params: store.Params{"seed": 5.0}}, {Kind: "train", Params: store.Params{"seed": 0.0}}, {Kind: "train", Params: store.Params{"seed": 1.0}}})
	if got := overSeeds(three); got != "mean ± standard error over seeds 0, 1, 5" {
		t.Errorf("three seeds: %q", got)
	}
}

// Legends stand in their own column, right of the plotting area, so no
// curve runs under them.
func TestLegendBesidePlot(t *testing.T) {
	p := newPlot("t", "x", "y")
	l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		t.Fatal(err)
	}
	p.Add(l)
	p.Legend.Add("Soft Medoid GDC (T=0.5)", l)
	dc := draw.New(vgimg.New(figW, figH))
	plotArea, legArea, ok := legendColumn(dc, &p.Legend)
	if !ok || legArea.Min.X < plotArea.Max.X || legArea.Max.X > dc.Max.X || plotArea.Max.X-plotArea.Min.X < figW/2 {
		t.Fatalf("plot %v, legend %v in %v", plotArea.Rectangle, legArea.Rectangle, dc.Rectangle)
	}
	if b, err := (Figure{Name: "t", Plot: p}).Render("png"); err != nil || len(b) == 0 {
		t.Fatalf("render: %v", err)
	}
}
