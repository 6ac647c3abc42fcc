package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	crand "crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/internal/testio"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/task"
	"github.com/rgnn/rgnn/tensor"
)

// The tests of `rgnn serve` start the real server (the test binary
// re-executed as rgnn) on a loopback port and talk HTTP to it.

// server is a running `rgnn serve`.
type server struct {
	cmd    *exec.Cmd
	url    string
	stderr *syncBuffer
	done   chan error
}

type syncBuffer = testio.Buffer

// startServer runs rgnn serve with args on a free loopback port and waits
// until it listens; the test's cleanup stops it (SIGTERM).
func startServer(t *testing.T, env []string, args ...string) *server {
	t.Helper()
	args = append([]string{"serve", "--data-dir", fixture.DataDir(t), "--listen", "127.0.0.1:0", "--json"}, args...)
	cmd := rgnnCmd(t, args...)
	cmd.Env = append(cmd.Env, env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, stderr: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan serveReady, 1)
	go func() {
		dec := json.NewDecoder(bufio.NewReader(stdout))
		var r serveReady
		if dec.Decode(&r) == nil {
			ready <- r
		}
		io.Copy(io.Discard, stdout)
	}()
	go func() { s.done <- cmd.Wait() }()
	select {
	case r := <-ready:
		s.url = r.URL
	case err := <-s.done:
		t.Fatalf("rgnn serve exited before listening: %v\n%s", err, s.stderr)
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("rgnn serve did not listen within 3 minutes\n%s", s.stderr)
	}
	t.Cleanup(func() { s.stop(t) })
	return s
}

// stop sends SIGTERM and waits for a clean exit (a no-op once stopped).
func (s *server) stop(t *testing.T) {
	if s.cmd.ProcessState != nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("rgnn serve did not exit cleanly after SIGTERM: %v\n%s", err, s.stderr)
		}
	case <-time.After(60 * time.Second):
		s.cmd.Process.Kill()
		t.Errorf("rgnn serve ignored SIGTERM for 60 s")
	}
}

// call sends a request (body: a JSON string, a value to encode, or nil) and
// returns the status and the decoded answer.
func (s *server) call(t *testing.T, method, path string, body any, hdr ...string) (int, map[string]any) {
	t.Helper()
	code, raw := s.raw(t, method, path, body, hdr...)
	var out map[string]any
	if len(raw) > 0 && json.Unmarshal(raw, &out) != nil && code != 200 {
		t.Fatalf("%s %s: %d with a body that is not JSON: %q", method, path, code, raw)
	}
	return code, out
}

func (s *server) raw(t *testing.T, method, path string, body any, hdr ...string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(method, s.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", method, path, err, s.stderr)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

func num(v any) float64 { f, _ := v.(float64); return f }

// serveModel writes weights of an untrained model (its seeded
// initialisation: fast, and as good as trained ones for these checks).
func serveModel(t *testing.T, m task.Model) string {
	t.Helper()
	l := &task.Loader{Dir: fixture.DataDir(t)}
	p, err := l.Problem(context.Background(), task.Data{Dataset: "cora_ml"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := task.NewModel(m, p, 0)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), m.Model+".npz")
	if err := tr.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

func modelSpec(name string, pprEps float64) task.Model {
	m := task.Train{}.Defaults().Model
	m.Model, m.PPREps = name, pprEps
	return m
}

// op is an update as the tests send it and replay it.
type op struct {
	add, remove [][2]int
	feats       [][]float64 // new nodes (kind nodes)
}

// graphOf applies ops to cora_ml and returns the adjacency and features.
func graphOf(t *testing.T, ops []op) (*data.Problem, *tensor.CSR, *tensor.CSR) {
	t.Helper()
	l := &task.Loader{Dir: fixture.DataDir(t)}
	p, err := l.Problem(context.Background(), task.Data{Dataset: "cora_ml"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := p.Adj.Rows
	edges := map[[2]int]bool{}
	for i := range n {
		lo, hi := p.Adj.RowRange(i)
		for _, j := range p.Adj.Indices[lo:hi] {
			if i < int(j) {
				edges[[2]int{i, int(j)}] = true
			}
		}
	}
	f := p.Features
	var fes []tensor.Entry
	for i := range f.Rows {
		lo, hi := f.RowRange(i)
		for k := lo; k < hi; k++ {
			fes = append(fes, tensor.Entry{Row: int32(i), Col: f.Indices[k], Val: f.Values[k]})
		}
	}
	key := func(u, v int) [2]int { return [2]int{min(u, v), max(u, v)} }
	for _, o := range ops {
		for _, x := range o.feats {
			for j, v := range x {
				if v != 0 {
					fes = append(fes, tensor.Entry{Row: int32(n), Col: int32(j), Val: float32(v)})
				}
			}
			n++
		}
		for _, e := range o.remove {
			delete(edges, key(e[0], e[1]))
		}
		for _, e := range o.add {
			edges[key(e[0], e[1])] = true
		}
	}
	var es []tensor.Entry
	for e := range edges {
		es = append(es, tensor.Entry{Row: int32(e[0]), Col: int32(e[1]), Val: 1}, tensor.Entry{Row: int32(e[1]), Col: int32(e[0]), Val: 1})
	}
	adj, err := tensor.FromCOO(n, n, es)
	if err != nil {
		t.Fatal(err)
	}
	feats, err := tensor.FromCOO(n, f.Cols, fes)
	if err != nil {
		t.Fatal(err)
	}
	return p, adj, feats
}

// fullLogits is the model's logits on the graph after ops, computed from
// scratch (Preprocess and Forward of the whole graph).
func fullLogits(t *testing.T, m task.Model, weights string, ops []op) *tensor.Dense {
	t.Helper()
	p, adj, feats := graphOf(t, ops)
	tr, err := task.Load(m, p, 0, weights)
	if err != nil {
		t.Fatal(err)
	}
	g, err := tr.Model.Preprocess(adj, feats)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Model.Forward(autograd.NoGrad(), g, autograd.NewSparse(feats), model.Mode{}).Value
}

// serverLogits fetches every node's logits at version v or later.
func serverLogits(t *testing.T, s *server, n int, v int) (*tensor.Dense, int) {
	return serverLogitsBy(t, s, n, v, n)
}

// serverLogitsBy is serverLogits in requests of at most per nodes (the
// version of the last answer).
func serverLogitsBy(t *testing.T, s *server, n, v, per int) (*tensor.Dense, int) {
	t.Helper()
	var d *tensor.Dense
	version := 0
	for lo := 0; lo < n; lo += per {
		nodes := make([]int, min(per, n-lo))
		for i := range nodes {
			nodes[i] = lo + i
		}
		code, raw := s.raw(t, "POST", "/v1/predict", map[string]any{"nodes": nodes, "min_version": v, "logits": true})
		if code != 200 {
			t.Fatalf("predict: %d %s", code, raw)
		}
		var ans struct {
			Version     int `json:"version"`
			Predictions []struct {
				Logits []float32 `json:"logits"`
			} `json:"predictions"`
		}
		if err := json.Unmarshal(raw, &ans); err != nil {
			t.Fatal(err)
		}
		c := len(ans.Predictions[0].Logits)
		if d == nil {
			d = tensor.NewDense(n, c)
		}
		for i, p := range ans.Predictions {
			copy(d.Data[(lo+i)*c:], p.Logits)
		}
		version = ans.Version
	}
	return d, version
}

// lazyNodes reads rgnn_serve_lazy_predicted_nodes_total from /metrics.
func lazyNodes(t *testing.T, s *server) float64 {
	t.Helper()
	_, raw := s.raw(t, "GET", "/metrics", nil)
	for line := range strings.SplitSeq(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "rgnn_serve_lazy_predicted_nodes_total "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("no rgnn_serve_lazy_predicted_nodes_total in /metrics")
	return 0
}

func maxDiff(a, b *tensor.Dense) float64 {
	if a.Rows != b.Rows || a.Cols != b.Cols {
		return math.Inf(1)
	}
	var m float64
	for i := range a.Data {
		m = math.Max(m, math.Abs(float64(a.Data[i])-float64(b.Data[i])))
	}
	return m
}

// randomOps draws updates to cora_ml: additions of absent edges, removals
// of the edges added, and new nodes hanging off existing ones.
func randomOps(t *testing.T, rng *rand.Rand, count, nFeat int, withNodes bool) []op {
	p, _, _ := graphOf(t, nil)
	a, n := p.Adj, p.Adj.Rows
	var ops []op
	present := map[[2]int]bool{}
	for len(ops) < count {
		switch {
		case withNodes && len(ops)%4 == 3:
			x := make([]float64, nFeat)
			for range 8 {
				x[rng.IntN(nFeat)] = 1
			}
			u := rng.IntN(n)
			ops = append(ops, op{feats: [][]float64{x}, add: [][2]int{{-1, u}}})
			n++
		case len(present) > 0 && len(ops)%3 == 2:
			for e := range present {
				ops = append(ops, op{remove: [][2]int{e}})
				delete(present, e)
				break
			}
		default:
			u, v := rng.IntN(n), rng.IntN(n)
			if u == v {
				continue
			}
			e := [2]int{min(u, v), max(u, v)}
			if present[e] {
				continue
			}
			if u < a.Rows && v < a.Rows {
				if _, isEdge := a.Find(u, v); isEdge {
					continue
				}
			}
			present[e] = true
			ops = append(ops, op{add: [][2]int{e}})
		}
	}
	return ops
}

// send posts one op and returns its version; with feats the new node's
// id replaces -1 in the op (for the replay).
func (s *server) send(t *testing.T, o *op) (int, int) {
	t.Helper()
	if o.feats != nil {
		code, raw := s.raw(t, "POST", "/v1/nodes", map[string]any{"features": o.feats, "edges": o.add})
		if code != 200 {
			return code, 0
		}
		var a struct {
			Version int   `json:"version"`
			Nodes   []int `json:"nodes"`
		}
		json.Unmarshal(raw, &a)
		for i := range o.add {
			for j := range o.add[i] {
				if o.add[i][j] < 0 {
					o.add[i][j] = a.Nodes[-o.add[i][j]-1]
				}
			}
		}
		return code, a.Version
	}
	body := map[string]any{}
	if o.add != nil {
		body["add"] = o.add
	}
	if o.remove != nil {
		body["remove"] = o.remove
	}
	code, raw := s.raw(t, "POST", "/v1/edges", body)
	if code != 200 {
		return code, 0
	}
	var a struct{ Version int }
	json.Unmarshal(raw, &a)
	return code, a.Version
}

// TestServeIncrementalMatchesFull: after additions, removals and new nodes
// sent to the server, the logits it serves — updated row by row for the
// PPRGo models, the PPR rows then the layers for push GDC — equal (within
// 1e-5) the model's logits computed from scratch on the same graph. Push
// GDC with the Soft Medoid is served node by node until updates pause
// (--fill-delay): once with a delay no test reaches, in requests of 4 nodes
// (the first 16 nodes computed by their predictions, which then have the
// table filled), and once with the default and a pause (the table).
func TestServeIncrementalMatchesFull(t *testing.T) {
	for _, c := range []struct {
		name, model string
		eps         float64
		mode        string
		steps       int
		nodes       bool
		budget      float64
		fillDelay   string // "": the default, then a pause before the predictions
		lazy        bool   // the predictions compute their nodes (lazy metric)
	}{
		{"softmedian_pprgo", "softmedian_pprgo", 0, "incremental (push-PPR rows and their logits)", 16, true, 1e-5, "", false},
		{"pprgo", "pprgo", 0, "incremental (push-PPR rows and their logits)", 8, false, 1e-5, "", false},
		{"sm_gdc_lazy", "sm_gdc", 1e-4, "incremental (push-PPR rows; layers at the requested nodes, on the whole graph once updates pause)", 6, true, 1e-5, "3600", true},
		{"sm_gdc_table", "sm_gdc", 1e-4, "incremental (push-PPR rows; layers at the requested nodes, on the whole graph once updates pause)", 6, true, 1e-5, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := modelSpec(c.model, c.eps)
			w := serveModel(t, m)
			args := []string{"--model", c.model, "--weights", w, "--state", t.TempDir(), "--cert-samples", "0"}
			if c.eps > 0 {
				args = append(args, "--ppr-eps", fmt.Sprint(c.eps))
			}
			if c.fillDelay != "" {
				args = append(args, "--fill-delay", c.fillDelay)
			}
			s := startServer(t, nil, args...)
			_, h := s.call(t, "GET", "/v1/health", nil)
			if h["updates"] != c.mode {
				t.Fatalf("updates %v, want %q", h["updates"], c.mode)
			}
			ops := randomOps(t, rand.New(rand.NewPCG(3, 4)), c.steps, 2879, c.nodes)
			last := 0
			for i := range ops {
				code, v := s.send(t, &ops[i])
				if code != 200 {
					t.Fatalf("op %d: %d", i, code)
				}
				last = v
			}
			if c.fillDelay == "" {
				time.Sleep(300 * time.Millisecond) // the default delay, and the fill after it
			}
			_, h = s.call(t, "GET", "/v1/health", nil)
			lazy0 := lazyNodes(t, s)
			per := int(num(h["nodes"]))
			if c.lazy {
				per = 4 // the first requests compute their nodes, then the table is filled
			}
			got, v := serverLogitsBy(t, s, int(num(h["nodes"])), last, per)
			if n := lazyNodes(t, s) - lazy0; (n > 0) != c.lazy {
				t.Fatalf("%g nodes computed by the prediction itself (lazy %v)", n, c.lazy)
			}
			if v != last {
				t.Fatalf("served version %d, want %d", v, last)
			}
			want := fullLogits(t, m, w, ops)
			if d := maxDiff(got, want); d > c.budget {
				t.Fatalf("served logits differ from a full recomputation by %g (> %g)", d, c.budget)
			} else {
				t.Logf("%d updates: max |served − full| = %g", len(ops), d)
			}
			if c.lazy {
				// The predictions above had the table of version last
				// filled. One more update (lazy, served once a prediction of
				// one node at it returns); then ten nodes without
				// min_version are too many to compute, so the newest table
				// answers, last's.
				next := 0
				for u := 1; next == 0 && u < 60; u++ {
					if code, v := s.send(t, &op{add: [][2]int{{0, u}}}); code == 200 {
						next = v
					}
				}
				if code, raw := s.raw(t, "POST", "/v1/predict", map[string]any{"nodes": []int{0}, "min_version": next}); code != 200 {
					t.Fatalf("predict at version %d: %d %s", next, code, raw)
				}
				code, raw := s.raw(t, "POST", "/v1/predict", map[string]any{"nodes": []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}})
				var a struct{ Version int }
				if json.Unmarshal(raw, &a); code != 200 || a.Version != last {
					t.Fatalf("10 nodes at lazy version %d: %d, version %d (want the newest table's, %d): %s", next, code, a.Version, last, raw)
				}
			}
		})
	}
}

// TestServeSurvivesKill9: a stream of updates; the server is killed with
// SIGKILL while updates are in flight and restarted on the same state
// folder: every acknowledged update is there, none twice (the version is
// the number of updates applied, and the graph replays them in order), and
// the logits are those of a fresh load of the final graph.
func TestServeSurvivesKill9(t *testing.T) {
	testServeKill(t, 600)
}

func testServeKill(t *testing.T, updates int) {
	m := modelSpec("softmedian_pprgo", 0)
	w := serveModel(t, m)
	state := t.TempDir()
	args := []string{"--model", m.Model, "--weights", w, "--state", state, "--cert-samples", "0"}
	s := startServer(t, nil, args...)
	_, h := s.call(t, "GET", "/v1/health", nil)
	n := int(num(h["nodes"]))
	ops := randomOps(t, rand.New(rand.NewPCG(9, 9)), updates, 2879, false)
	// Updates go out one after another from 4 clients; each op's version
	// is the order the server logged it in.
	var mu sync.Mutex
	acked := map[int]int{} // version → op
	next := 0
	killAt := updates/2 + rand.IntN(updates/3)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	// Clients share the op sequence: an op is sent only after the previous
	// one was acknowledged (a removal needs its addition), so the log's
	// order is the ops' order; four clients keep a request in flight while
	// the kill lands.
	var seqMu sync.Mutex
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				seqMu.Lock()
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(ops) {
					seqMu.Unlock()
					return
				}
				o := ops[i]
				code, v, err := trySend(s.url, &o)
				seqMu.Unlock()
				if err != nil {
					return // killed
				}
				if code != 200 {
					t.Errorf("op %d: %d", i, code)
					return
				}
				mu.Lock()
				acked[v] = i
				mu.Unlock()
			}
		}()
	}
	for {
		mu.Lock()
		k := len(acked)
		mu.Unlock()
		if k >= killAt {
			break
		}
		time.Sleep(time.Millisecond)
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
	close(stop)
	wg.Wait()
	maxAck := 0
	for v, i := range acked {
		if v != i+1 {
			t.Fatalf("op %d acknowledged as version %d", i, v)
		}
		maxAck = max(maxAck, v)
	}
	if len(acked) != maxAck {
		t.Fatalf("%d acknowledgements up to version %d", len(acked), maxAck)
	}
	s2 := startServer(t, nil, args...)
	_, h = s2.call(t, "GET", "/v1/health", nil)
	v := int(num(h["version"]))
	// The update in flight at the kill may have reached the log before its
	// acknowledgement: version maxAck or maxAck+1, never less, never more.
	if v != maxAck && v != maxAck+1 {
		t.Fatalf("after the restart the graph is at version %d; %d updates were acknowledged", v, maxAck)
	}
	got, sv := serverLogits(t, s2, n, v)
	if sv != v {
		t.Fatalf("served version %d, want %d", sv, v)
	}
	want := fullLogits(t, m, w, ops[:v])
	if d := maxDiff(got, want); d > 1e-5 {
		t.Fatalf("logits after the restart differ from a fresh load of the final graph by %g", d)
	}
	// Each op once: re-sending the last logged addition conflicts.
	if last := ops[v-1]; last.add != nil {
		if code, _ := s2.call(t, "POST", "/v1/edges", map[string]any{"add": last.add}); code != http.StatusConflict {
			t.Errorf("re-adding the last logged edge: %d, want 409", code)
		}
	}
	t.Logf("killed after %d acknowledged updates; restarted at version %d", maxAck, v)
}

// trySend is send without a test (the server may be gone).
func trySend(url string, o *op) (int, int, error) {
	body := map[string]any{}
	if o.add != nil {
		body["add"] = o.add
	}
	if o.remove != nil {
		body["remove"] = o.remove
	}
	b, _ := json.Marshal(body)
	resp, err := http.Post(url+"/v1/edges", "application/json", bytes.NewReader(b))
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	var a struct{ Version int }
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		return resp.StatusCode, 0, err
	}
	return resp.StatusCode, a.Version, nil
}

// TestServeAPI walks every endpoint of a server with certificates: health,
// predict (with min_version), edges, nodes, certificate, alerts, metrics,
// and a read-only server.
func TestServeAPI(t *testing.T) {
	m := modelSpec("gcn", 0)
	w := serveModel(t, m)
	s := startServer(t, nil, "--model", "gcn", "--weights", w, "--state", t.TempDir(), "--cert-samples", "200",
		"--p-add", "0", "--p-del", "0.3", "--cert-workers", "2")
	code, h := s.call(t, "GET", "/v1/health", nil)
	if code != 200 || h["status"] != "ok" || num(h["version"]) != 0 || num(h["nodes"]) != 2810 || num(h["edges"]) != 7981 || h["model"] != "gcn" {
		t.Fatalf("health: %d %v", code, h)
	}
	code, p := s.call(t, "POST", "/v1/predict", map[string]any{"nodes": []int{0, 5, 2809}})
	preds, _ := p["predictions"].([]any)
	if code != 200 || len(preds) != 3 {
		t.Fatalf("predict: %d %v", code, p)
	}
	first := preds[0].(map[string]any)
	probs := first["probabilities"].([]any)
	var sum float64
	for _, x := range probs {
		sum += num(x)
	}
	if len(probs) != 7 || math.Abs(sum-1) > 1e-9 || num(first["node"]) != 0 {
		t.Fatalf("prediction %v", first)
	}
	// The certificate of version 0 (poll: it is computed in the background).
	deadline := time.Now().Add(3 * time.Minute)
	var c map[string]any
	for {
		code, c = s.call(t, "GET", "/v1/certificate?node=0", nil)
		if code == 200 || time.Now().After(deadline) {
			break
		}
		if code != http.StatusServiceUnavailable {
			t.Fatalf("certificate: %d %v", code, c)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if code != 200 || num(c["certified_version"]) != 0 || c["stale"] != false || num(c["edits_since"]) != 0 {
		t.Fatalf("certificate: %d %v", code, c)
	}
	for _, k := range []string{"node", "class", "p_lower", "radius_add", "radius_del", "certified_version", "version", "stale", "edits_since"} {
		if _, ok := c[k]; !ok {
			t.Errorf("certificate answer has no %q: %v", k, c)
		}
	}
	// Remove an edge at node 0 (deletions: the smoothing certifies them):
	// the certificate turns stale and counts the edit; the alerts list it
	// where the radius allows no more.
	adj := func() (*tensor.CSR, error) {
		l := &task.Loader{Dir: fixture.DataDir(t)}
		p, err := l.Problem(context.Background(), task.Data{Dataset: "cora_ml"}, 0)
		if err != nil {
			return nil, err
		}
		return p.Adj, nil
	}
	a, err := adj()
	if err != nil {
		t.Fatal(err)
	}
	v0 := int(a.Indices[a.Indptr[0]])
	code, e := s.call(t, "POST", "/v1/edges", map[string]any{"remove": [][]int{{0, v0}}})
	if code != 200 || num(e["version"]) != 1 {
		t.Fatalf("edges: %d %v", code, e)
	}
	code, p = s.call(t, "POST", "/v1/predict", map[string]any{"nodes": []int{0}, "min_version": 1})
	if code != 200 || num(p["version"]) != 1 {
		t.Fatalf("predict at min_version 1: %d %v", code, p)
	}
	code, c = s.call(t, "GET", "/v1/certificate?node=0", nil)
	if code != 200 || c["stale"] != true || num(c["edits_since"]) != 1 || num(c["version"]) != 1 {
		t.Fatalf("certificate after an edit: %d %v", code, c)
	}
	code, al := s.call(t, "GET", "/v1/alerts", nil)
	if code != 200 || num(al["version"]) != 1 {
		t.Fatalf("alerts: %d %v", code, al)
	}
	if num(c["radius_del"]) <= 1 {
		found := false
		for _, x := range al["alerts"].([]any) {
			if num(x.(map[string]any)["node"]) == 0 {
				found = true
			}
		}
		if !found {
			t.Errorf("node 0 (radius_del %v, 1 deletion since) is not alerted: %v", c["radius_del"], al)
		}
	}
	// A new node with an edge to node 0: its id is returned, it predicts.
	x := make([]float64, 2879)
	x[3] = 1
	code, nn := s.call(t, "POST", "/v1/nodes", map[string]any{"features": [][]float64{x}, "edges": [][]int{{-1, 0}}})
	if code != 200 || num(nn["version"]) != 2 || len(nn["nodes"].([]any)) != 1 || num(nn["nodes"].([]any)[0]) != 2810 {
		t.Fatalf("nodes: %d %v", code, nn)
	}
	code, p = s.call(t, "POST", "/v1/predict", map[string]any{"nodes": []int{2810}, "min_version": 2})
	if code != 200 || num(p["version"]) < 2 {
		t.Fatalf("predict of the new node: %d %v", code, p)
	}
	code, h = s.call(t, "GET", "/v1/health", nil)
	if num(h["nodes"]) != 2811 || num(h["edges"]) != 7981 || num(h["version"]) != 2 {
		t.Fatalf("health after the updates: %v", h)
	}
	code, raw := s.raw(t, "GET", "/metrics", nil)
	for _, name := range []string{"rgnn_serve_request_duration_seconds_bucket", "rgnn_serve_graph_version 2", "rgnn_serve_served_version",
		"rgnn_serve_update_lag_seconds", "rgnn_serve_certificate_age_seconds", "rgnn_serve_certified_version"} {
		if code != 200 || !bytes.Contains(raw, []byte(name)) {
			t.Errorf("/metrics has no %s", name)
		}
	}
	// Read-only: predictions yes, updates no.
	ro := startServer(t, nil, "--model", "gcn", "--weights", w, "--read-only", "--cert-samples", "0")
	if code, _ := ro.call(t, "POST", "/v1/predict", map[string]any{"nodes": []int{1}}); code != 200 {
		t.Errorf("read-only predict: %d", code)
	}
	if code, _ := ro.call(t, "POST", "/v1/edges", map[string]any{"add": [][]int{{1, 2}}}); code != http.StatusForbidden {
		t.Errorf("read-only edges: %d, want 403", code)
	}
}

// TestServeBadRequests: every kind of bad request gets a 4xx with an
// {"error", "field"} body and changes nothing (version, nodes, edges and
// predictions as before).
func TestServeBadRequests(t *testing.T) {
	m := modelSpec("gcn", 0)
	w := serveModel(t, m)
	s := startServer(t, nil, "--model", "gcn", "--weights", w, "--state", t.TempDir(), "--cert-samples", "0", "--max-body", "8192")
	_, before := s.call(t, "GET", "/v1/health", nil)
	_, p0 := s.raw(t, "POST", "/v1/predict", map[string]any{"nodes": []int{0, 1, 2}})
	// an existing edge and a non-edge
	a := func() *tensor.CSR {
		l := &task.Loader{Dir: fixture.DataDir(t)}
		p, err := l.Problem(context.Background(), task.Data{Dataset: "cora_ml"}, 0)
		if err != nil {
			t.Fatal(err)
		}
		return p.Adj
	}()
	u, v := 0, int(a.Indices[a.Indptr[0]])
	big := `{"add":[` + strings.Repeat("[1,2],", 2000) + `[1,2]]}`
	cases := []struct {
		name, method, path string
		body               any
		status             int
		field              string
		hdr                []string
	}{
		{"bad JSON", "POST", "/v1/edges", `{"add": [[1, 2]`, 400, "", nil},
		{"not an object", "POST", "/v1/edges", `[1, 2]`, 400, "", nil},
		{"empty body", "POST", "/v1/edges", ``, 400, "", nil},
		{"trailing data", "POST", "/v1/edges", `{"add": [[1, 2]]} {}`, 400, "", nil},
		{"unknown field", "POST", "/v1/edges", `{"add": [[1, 2]], "color": 1}`, 400, "color", nil},
		{"wrong type", "POST", "/v1/edges", `{"add": "1-2"}`, 400, "add", nil},
		{"fractional id", "POST", "/v1/edges", `{"add": [[1.5, 2]]}`, 400, "add", nil},
		{"pair of three", "POST", "/v1/edges", `{"add": [[1, 2, 3]]}`, 400, "add[0]", nil},
		{"nothing to do", "POST", "/v1/edges", `{}`, 400, "add", nil},
		{"self-loop", "POST", "/v1/edges", `{"add": [[7, 7]]}`, 400, "add[0]", nil},
		{"negative id", "POST", "/v1/edges", `{"add": [[-1, 2]]}`, 400, "add[0][0]", nil},
		{"id beyond int32", "POST", "/v1/edges", `{"add": [[1, 99999999999]]}`, 400, "add[0][1]", nil},
		{"unknown node", "POST", "/v1/edges", `{"add": [[1, 2810]]}`, 404, "add[0][1]", nil},
		{"duplicate pair", "POST", "/v1/edges", `{"add": [[3, 4], [4, 3]]}`, 400, "add[1]", nil},
		{"add and remove", "POST", "/v1/edges", `{"add": [[3, 4]], "remove": [[3, 4]]}`, 400, "add[0]", nil},
		{"existing edge", "POST", "/v1/edges", fmt.Sprintf(`{"add": [[5, 6], [%d, %d]]}`, u, v), 409, "add[1]", nil},
		{"absent edge", "POST", "/v1/edges", `{"remove": [[0, 2809]]}`, 409, "remove[0]", nil},
		{"body too large", "POST", "/v1/edges", big, 413, "", nil},
		{"wrong method", "GET", "/v1/edges", nil, 405, "", nil},
		{"wrong content type", "POST", "/v1/edges", `{"add": [[1, 2]]}`, 415, "Content-Type", []string{"Content-Type", "text/plain"}},
		{"unknown endpoint", "GET", "/v1/graph", nil, 404, "", nil},
		{"predict: no nodes", "POST", "/v1/predict", `{}`, 400, "nodes", nil},
		{"predict: empty", "POST", "/v1/predict", `{"nodes": []}`, 400, "nodes", nil},
		{"predict: unknown node", "POST", "/v1/predict", `{"nodes": [0, 2810]}`, 404, "nodes[1]", nil},
		{"predict: negative", "POST", "/v1/predict", `{"nodes": [-3]}`, 400, "nodes[0]", nil},
		{"predict: string id", "POST", "/v1/predict", `{"nodes": ["0"]}`, 400, "nodes", nil},
		{"predict: future version", "POST", "/v1/predict", `{"nodes": [0], "min_version": 5}`, 400, "min_version", nil},
		{"nodes: wrong width", "POST", "/v1/nodes", `{"features": [[1, 0, 1]]}`, 400, "features[0]", nil},
		{"nodes: no features", "POST", "/v1/nodes", `{"features": []}`, 400, "features", nil},
		{"nodes: bad new id", "POST", "/v1/nodes", fmt.Sprintf(`{"features": [%s], "edges": [[-2, 0]]}`, zeros(2879)), 400, "edges[0][0]", nil},
		{"nodes: unknown node", "POST", "/v1/nodes", fmt.Sprintf(`{"features": [%s], "edges": [[-1, 5000]]}`, zeros(2879)), 404, "edges[0][1]", nil},
		{"certificate: no node", "GET", "/v1/certificate", nil, 400, "node", nil},
		{"certificate: not a number", "GET", "/v1/certificate?node=abc", nil, 400, "node", nil},
		{"certificate: unknown node", "GET", "/v1/certificate?node=99999", nil, 404, "node", nil},
		{"certificate: unknown parameter", "GET", "/v1/certificate?node=1&x=2", nil, 400, "x", nil},
		{"alerts: bad since", "GET", "/v1/alerts?since=-1", nil, 400, "since", nil},
		{"alerts: bad limit", "GET", "/v1/alerts?limit=0", nil, 400, "limit", nil},
	}
	kinds := 0
	for _, c := range cases {
		code, raw := s.raw(t, c.method, c.path, c.body, c.hdr...)
		var e struct{ Error, Field string }
		if code != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, code, raw, c.status)
			continue
		}
		if err := json.Unmarshal(raw, &e); err != nil || e.Error == "" {
			t.Errorf("%s: body %q is not {\"error\": ...}", c.name, raw)
			continue
		}
		if e.Field != c.field {
			t.Errorf("%s: field %q, want %q (%s)", c.name, e.Field, c.field, e.Error)
			continue
		}
		kinds++
	}
	if kinds < 20 {
		t.Errorf("%d kinds of bad request answered as specified, want ≥ 20", kinds)
	}
	_, after := s.call(t, "GET", "/v1/health", nil)
	for _, k := range []string{"version", "nodes", "edges", "served_version"} {
		if before[k] != after[k] {
			t.Errorf("%s changed from %v to %v by bad requests", k, before[k], after[k])
		}
	}
	if _, p1 := s.raw(t, "POST", "/v1/predict", map[string]any{"nodes": []int{0, 1, 2}}); !bytes.Equal(p0, p1) {
		t.Errorf("predictions changed by bad requests:\n%s\n%s", p0, p1)
	}
}

func zeros(n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat("0,", n), ",") + "]"
}

// TestServeToken: with a token every endpoint but /v1/health needs
// "Authorization: Bearer <token>".
func TestServeToken(t *testing.T) {
	m := modelSpec("gcn", 0)
	w := serveModel(t, m)
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte("s3cret-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, nil, "--model", "gcn", "--weights", w, "--state", t.TempDir(), "--cert-samples", "0", "--token-file", tok)
	if code, _ := s.call(t, "GET", "/v1/health", nil); code != 200 {
		t.Errorf("health without a token: %d, want 200", code)
	}
	for _, ep := range []struct{ method, path string }{{"POST", "/v1/predict"}, {"POST", "/v1/edges"}, {"POST", "/v1/nodes"},
		{"GET", "/v1/certificate?node=1"}, {"GET", "/v1/alerts"}, {"GET", "/metrics"}} {
		var body any
		if ep.method == "POST" {
			body = `{"nodes": [1]}`
		}
		for _, hdr := range [][]string{nil, {"Authorization", "Bearer wrong"}, {"Authorization", "s3cret-token"}, {"Authorization", "Bearer s3cret-token-"}} {
			if code, _ := s.call(t, ep.method, ep.path, body, hdr...); code != http.StatusUnauthorized {
				t.Errorf("%s %s with %v: %d, want 401", ep.method, ep.path, hdr, code)
			}
		}
	}
	if code, _ := s.call(t, "POST", "/v1/predict", `{"nodes": [1]}`, "Authorization", "Bearer s3cret-token"); code != 200 {
		t.Errorf("predict with the token: %d", code)
	}
	if code, _ := s.call(t, "GET", "/metrics", nil, "Authorization", "Bearer s3cret-token"); code != 200 {
		t.Errorf("metrics with the token: %d", code)
	}
	// $RGNN_SERVE_TOKEN works too.
	s2 := startServer(t, []string{"RGNN_SERVE_TOKEN=env-token"}, "--model", "gcn", "--weights", w, "--read-only", "--cert-samples", "0")
	if code, _ := s2.call(t, "GET", "/v1/alerts", nil); code != http.StatusUnauthorized {
		t.Errorf("alerts without the env token: %d", code)
	}
	if code, _ := s2.call(t, "GET", "/v1/alerts", nil, "Authorization", "Bearer env-token"); code != 200 {
		t.Errorf("alerts with the env token: %d", code)
	}
}

// TestServeTLS: with --tls-cert and --tls-key the server speaks HTTPS.
func TestServeTLS(t *testing.T) {
	dir := t.TempDir()
	key, err := ecdsa.GenerateKey(elliptic.P256(), crand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(crand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	w := serveModel(t, modelSpec("gcn", 0))
	s := startServer(t, nil, "--model", "gcn", "--weights", w, "--read-only", "--cert-samples", "0",
		"--tls-cert", certFile, "--tls-key", keyFile)
	if !strings.HasPrefix(s.url, "https://") {
		t.Fatalf("url %s", s.url)
	}
	pool := x509.NewCertPool()
	c, _ := x509.ParseCertificate(der)
	pool.AddCert(c)
	cl := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := cl.Get(s.url + "/v1/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.TLS == nil {
		t.Fatalf("https health: %d, TLS %v", resp.StatusCode, resp.TLS != nil)
	}
	// Plain HTTP to the TLS port gets net/http's 400, not an answer.
	if r, err := http.Get(strings.Replace(s.url, "https://", "http://", 1) + "/v1/health"); err == nil {
		r.Body.Close()
		if r.StatusCode == 200 {
			t.Error("plain HTTP answered on the TLS port")
		}
	}
}
