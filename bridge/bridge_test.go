package bridge

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/tensor"
)

// The test binary doubles as a fake outside model: with RGNN_FAKE_MODEL set
// it speaks the protocol on stdin/stdout in the way the variable names.
func TestMain(m *testing.M) {
	if mode := os.Getenv("RGNN_FAKE_MODEL"); mode != "" {
		os.Exit(fakeModel(mode))
	}
	os.Exit(m.Run())
}

// fakeModel answers like a model whose logits are the node's degree for
// class 0 and its feature sum for class 1 ("ok"), or misbehaves.
func fakeModel(mode string) int {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	hello, err := ReadMessage(in, 0)
	if err != nil || hello.Type != "hello" {
		fmt.Fprintln(os.Stderr, "fake: bad hello", err)
		return 1
	}
	n, c := hello.Nodes, hello.Classes
	xi, _ := hello.Arrays["x_index"].Int64()
	xv := hello.Arrays["x_value"].Float32()
	featSum := make([]float32, n)
	for k, v := range xv {
		featSum[xi[k]] += v
	}
	switch mode {
	case "garbled":
		fmt.Fprintln(out, "Loading model... done")
		out.Flush()
		return 0
	case "wrongversion":
		WriteMessage(out, Header{Type: "ready", Version: 99})
		out.Flush()
		return 0
	}
	WriteMessage(out, Header{Type: "ready", Version: Version, Fit: mode == "ok", Name: "fake"})
	out.Flush()
	for {
		m, err := ReadMessage(in, 0)
		if err != nil {
			return 0 // stdin closed: the session's end
		}
		switch mode {
		case "crash":
			fmt.Fprintln(os.Stderr, "fake: CUDA out of memory")
			return 2
		case "hang":
			time.Sleep(time.Hour)
		case "badshape":
			WriteMessage(out, Header{Type: "logits", ID: m.ID}, npz.F32("logits", []int{1, 2}, []float32{1, 2}))
			out.Flush()
			continue
		case "error":
			WriteMessage(out, Header{Type: "error", ID: m.ID, Message: "ValueError: bad input"})
			out.Flush()
			continue
		}
		switch m.Type {
		case "fit":
			WriteMessage(out, Header{Type: "fitted", ID: m.ID})
		case "predict":
			ei, _ := m.Arrays["edge_index"].Int64()
			ptr, _ := m.Arrays["edge_ptr"].Int64()
			e := len(ei) / 2
			B := len(ptr) - 1
			logits := make([]float32, B*n*c)
			for b := range B {
				for k := ptr[b]; k < ptr[b+1]; k++ {
					logits[(b*n+int(ei[k]))*c]++
				}
				for i := range n {
					logits[(b*n+i)*c+1] = featSum[i]
				}
			}
			_ = e
			WriteMessage(out, Header{Type: "logits", ID: m.ID}, npz.F32("logits", []int{B, n, c}, logits))
		}
		out.Flush()
	}
}

func fakeCommand(t *testing.T, mode string) string {
	t.Helper()
	t.Setenv("RGNN_FAKE_MODEL", mode)
	return "'" + os.Args[0] + "'"
}

func testGraph(n int, seed uint64) (adj, x *tensor.CSR) {
	rng := rand.New(rand.NewPCG(seed, 1))
	var es, fs []tensor.Entry
	for i := range n {
		for j := i + 1; j < n; j++ {
			if rng.IntN(4) == 0 {
				es = append(es, tensor.Entry{Row: int32(i), Col: int32(j), Val: 1}, tensor.Entry{Row: int32(j), Col: int32(i), Val: 1})
			}
		}
		fs = append(fs, tensor.Entry{Row: int32(i), Col: int32(rng.IntN(3)), Val: float32(1 + rng.IntN(3))})
	}
	adj, _ = tensor.FromCOO(n, n, es)
	x, _ = tensor.FromCOO(n, 3, fs)
	return adj, x
}

// TestClientRoundTrip: predictions of a batch and of single graphs, a fit,
// and a clean end (the child reaped with status 0).
func TestClientRoundTrip(t *testing.T) {
	adj, x := testGraph(9, 1)
	adj2, _ := testGraph(9, 2)
	c, err := Start(context.Background(), fakeCommand(t, "ok"), Options{Nodes: 9, Classes: 2, Features: x, Stderr: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	if !c.CanFit() || c.Name() != "fake" {
		t.Fatalf("ready: fit %v name %q", c.CanFit(), c.Name())
	}
	if err := c.Fit(context.Background(), Graph{Adj: adj}, make([]int32, 9), []int{0}, []int{1}); err != nil {
		t.Fatal(err)
	}
	preds, err := c.Predict(context.Background(), []Graph{{Adj: adj}, {Adj: adj2}})
	if err != nil {
		t.Fatal(err)
	}
	for b, a := range []*tensor.CSR{adj, adj2} {
		for i := range 9 {
			lo, hi := a.RowRange(i)
			if got := preds[b].Logits.Data[i*2]; got != float32(hi-lo) {
				t.Fatalf("graph %d node %d: logit %v, degree %d", b, i, got, hi-lo)
			}
		}
	}
	m := NewModel(c)
	l, err := m.Logits(adj2, x)
	if err != nil || !slices.Equal(l.Data, preds[1].Logits.Data) {
		t.Fatalf("Model.Logits: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if c.cmd.ProcessState == nil || !c.cmd.ProcessState.Exited() || c.cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("child not reaped cleanly: %v", c.cmd.ProcessState)
	}
}

// TestClientFailures: a crash, garbled output, a wrong shape, an error
// reply, a hang (timeout) and a missing program each end in an error naming
// the command; the child is reaped.
func TestClientFailures(t *testing.T) {
	adj, x := testGraph(6, 3)
	for _, c := range []struct{ mode, want string }{
		{"crash", "exit status 2"},
		{"garbled", "not a JSON object"},
		{"wrongversion", "protocol version 99"},
		{"badshape", "logits of shape [1 2], want [1 6 2]"},
		{"error", "ValueError: bad input"},
		{"hang", "no reply within"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			cmd := fakeCommand(t, c.mode)
			cl, err := Start(context.Background(), cmd, Options{Nodes: 6, Classes: 2, Features: x, Timeout: 2 * time.Second, Stderr: &strings.Builder{}})
			if err == nil {
				_, err = cl.Predict(context.Background(), []Graph{{Adj: adj}})
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), os.Args[0]) {
				t.Fatalf("err = %v, want %q naming the command", err, c.want)
			}
			if c.mode == "crash" && !strings.Contains(err.Error(), "CUDA out of memory") {
				t.Fatalf("the child's stderr is not in %v", err)
			}
			if cl != nil {
				if c.mode == "error" { // the session survives an error reply
					if _, err := cl.Predict(context.Background(), []Graph{{Adj: adj}}); err == nil {
						t.Fatal("second request succeeded")
					}
				}
				cl.Close()
				if cl.cmd.ProcessState == nil {
					t.Fatal("child not reaped")
				}
			}
		})
	}
	_, err := Start(context.Background(), "/nonexistent/model --x", Options{Nodes: 6, Classes: 2, Features: x})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/model") {
		t.Fatalf("missing program: %v", err)
	}
}

func TestSplit(t *testing.T) {
	for in, want := range map[string][]string{
		`python3 m.py --w "a b.npz"`: {"python3", "m.py", "--w", "a b.npz"},
		`sh -c 'echo $HOME'`:         {"sh", "-c", "echo $HOME"},
		`a\ b "x\"y"`:                {"a b", `x"y`},
	} {
		got, err := Split(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("Split(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{`a "b`, `a 'b`, `a\`, "  "} {
		if _, err := Split(bad); err == nil {
			t.Errorf("Split(%q) succeeded", bad)
		}
	}
	if got := ShortName("python3 -u python/examples/numpy_model.py --weights w.npz"); got != "numpy_model.py" {
		t.Errorf("ShortName = %q", got)
	}
}

// TestPythonHelper runs python/examples/numpy_model.py through
// python/rgnn_bridge.py with /usr/bin/python3 and numpy: fit, then predict
// a batch with the base features and one with features of its own; the
// logits are (A + I)·X·W with W the rounded class centroids.
func TestPythonHelper(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("python3 with numpy is needed (apt-get install python3-numpy): %v", err)
		}
		t.Skipf("no python3 with numpy: %v", err)
	}
	adj, x := testGraph(8, 5)
	c, err := Start(context.Background(), py+" ../python/examples/numpy_model.py", Options{Nodes: 8, Classes: 2, Features: x})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	labels := []int32{0, 1, 0, 1, 0, 1, 0, 1}
	train := []int{0, 1, 2, 3}
	if err := c.Fit(context.Background(), Graph{Adj: adj}, labels, train, []int{4}); err != nil {
		t.Fatal(err)
	}
	_, x2 := testGraph(8, 6)
	preds, err := c.Predict(context.Background(), []Graph{{Adj: adj}, {Adj: adj, Features: x2}})
	if err != nil {
		t.Fatal(err)
	}
	fitted := x.ToDense() // W is fitted on the base features
	want := func(x *tensor.CSR) []float32 {
		xd := x.ToDense()
		w := make([]float64, 3*2)
		for cl := range 2 {
			var cnt float64
			sum := make([]float64, 3)
			for _, v := range train {
				if int(labels[v]) == cl {
					cnt++
					for j := range 3 {
						sum[j] += float64(fitted.Data[v*3+j])
					}
				}
			}
			for j := range 3 {
				w[j*2+cl] = roundEven(100 * sum[j] / cnt)
			}
		}
		out := make([]float32, 8*2)
		for i := range 8 {
			nb := []int{i}
			lo, hi := adj.RowRange(i)
			for _, j := range adj.Indices[lo:hi] {
				nb = append(nb, int(j))
			}
			for cl := range 2 {
				var s float64
				for _, j := range nb {
					for f := range 3 {
						s += float64(xd.Data[j*3+f]) * w[f*2+cl]
					}
				}
				out[i*2+cl] = float32(s)
			}
		}
		return out
	}
	if !slices.Equal(preds[0].Logits.Data, want(x)) || !slices.Equal(preds[1].Logits.Data, want(x2)) {
		t.Fatalf("logits %v / %v, want %v / %v", preds[0].Logits.Data, preds[1].Logits.Data, want(x), want(x2))
	}
}

func roundEven(v float64) float64 { return math.RoundToEven(v) }
