// Command rgnn-load drives a running `rgnn serve` on loopback with a
// bounded number of requests and a bounded time, and prints the latency
// (p50, p90, p99, max) and throughput of three workloads:
//
//	predict      POST /v1/predict of 1–16 random nodes, open loop at --rate
//	             requests/s (latency from the scheduled send, so a slow
//	             server cannot hide its queue), --concurrency at a time
//	update       POST /v1/edges of one edge, then POST /v1/predict of an
//	             endpoint with min_version (the pair is added, then removed
//	             by the next update, so the graph returns to where it was)
//	certificate  GET /v1/certificate?node=u of random nodes
//
// Usage:
//
//	rgnn-load --url http://127.0.0.1:8080 --workload predict,update,certificate \
//	    --requests 2000 --duration 30s --rate 500 [--token-file F] [--json]
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

type config struct {
	url         string
	token       string
	requests    int
	duration    time.Duration
	rate        float64
	concurrency int
	minNodes    int
	maxNodes    int
	seed        uint64
}

// result is one workload's measurements.
type result struct {
	Workload   string         `json:"workload"`
	Requests   int            `json:"requests"`
	OK         int            `json:"ok"`
	Status     map[string]int `json:"status"` // non-2xx answers by code
	Errors     int            `json:"transport_errors"`
	Seconds    float64        `json:"seconds"`
	Throughput float64        `json:"throughput_per_s"`
	// Latencies of the 2xx answers (absent when there were none).
	P50         *float64 `json:"p50_ms,omitempty"`
	P90         *float64 `json:"p90_ms,omitempty"`
	P99         *float64 `json:"p99_ms,omitempty"`
	Max         *float64 `json:"max_ms,omitempty"`
	TargetRate  float64  `json:"target_rate,omitempty"`
	LastVersion uint64   `json:"last_version,omitempty"`
}

func main() {
	var c config
	var workloads, tokenFile string
	var asJSON bool
	flag.StringVar(&c.url, "url", "http://127.0.0.1:8080", "server URL")
	flag.StringVar(&workloads, "workload", "predict,update,certificate", "workloads to run, in order: predict, update, certificate")
	flag.IntVar(&c.requests, "requests", 1000, "requests per workload (at most)")
	flag.DurationVar(&c.duration, "duration", 20*time.Second, "time per workload (at most)")
	flag.Float64Var(&c.rate, "rate", 500, "predict: requests per second, open loop (0: as fast as --concurrency allows)")
	flag.IntVar(&c.concurrency, "concurrency", 8, "predict and certificate: requests in flight at most")
	flag.IntVar(&c.minNodes, "min-nodes", 1, "predict: fewest nodes per request")
	flag.IntVar(&c.maxNodes, "max-nodes", 16, "predict: most nodes per request")
	flag.Uint64Var(&c.seed, "seed", 1, "seed of the random nodes and pairs")
	flag.StringVar(&tokenFile, "token-file", "", "bearer token file (default $RGNN_SERVE_TOKEN)")
	flag.BoolVar(&asJSON, "json", false, "print JSON")
	flag.Parse()
	c.token = os.Getenv("RGNN_SERVE_TOKEN")
	if tokenFile != "" {
		b, err := os.ReadFile(tokenFile)
		if err != nil {
			fatal(err)
		}
		c.token = strings.TrimSpace(string(b))
	}
	if c.requests < 1 || c.duration <= 0 || c.concurrency < 1 || c.minNodes < 1 || c.maxNodes < c.minNodes || c.rate < 0 {
		fatal(errors.New("need --requests ≥ 1, --duration > 0, --concurrency ≥ 1, 1 ≤ --min-nodes ≤ --max-nodes, --rate ≥ 0"))
	}
	cl := &client{cfg: c, http: &http.Client{Timeout: 60 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: c.concurrency + 2, MaxConnsPerHost: c.concurrency + 2}}}
	var h struct {
		Nodes   int    `json:"nodes"`
		Model   string `json:"model"`
		Updates string `json:"updates"`
	}
	if code, err := cl.do("GET", "/v1/health", nil, &h); err != nil || code != 200 {
		fatal(fmt.Errorf("GET /v1/health: %d %v", code, err))
	}
	cl.nodes = h.Nodes
	var out []result
	for _, w := range strings.Split(workloads, ",") {
		var r result
		switch strings.TrimSpace(w) {
		case "predict":
			r = cl.predict()
		case "update":
			r = cl.update()
		case "certificate":
			r = cl.certificate()
		default:
			fatal(fmt.Errorf("unknown workload %q (predict, update, certificate)", w))
		}
		out = append(out, r)
		if !asJSON {
			fmt.Printf("%-12s %6d req %6d ok %5.1f s %8.1f req/s  p50 %s  p90 %s  p99 %s  max %s ms",
				r.Workload, r.Requests, r.OK, r.Seconds, r.Throughput, ms(r.P50), ms(r.P90), ms(r.P99), ms(r.Max))
			if len(r.Status) > 0 || r.Errors > 0 {
				fmt.Printf("  other: %v, transport errors %d", r.Status, r.Errors)
			}
			fmt.Println()
		}
	}
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.Encode(map[string]any{"url": c.url, "model": h.Model, "updates": h.Updates, "nodes": h.Nodes, "results": out})
	}
}

// ms formats a latency (— when absent).
func ms(v *float64) string {
	if v == nil {
		return "      —"
	}
	return fmt.Sprintf("%7.2f", *v)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "rgnn-load:", err)
	os.Exit(1)
}

type client struct {
	cfg   config
	http  *http.Client
	nodes int
}

// do sends a request and decodes a 2xx JSON answer into out.
func (c *client) do(method, path string, body any, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.cfg.url+path, rd)
	if err != nil {
		return 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.cfg.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode/100 == 2 && out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return resp.StatusCode, err
		}
	}
	return resp.StatusCode, nil
}

// tally collects latencies and outcomes (safe for concurrent use).
type tally struct {
	mu     sync.Mutex
	lat    []float64
	status map[string]int
	errs   int
	ok     int
}

func (t *tally) add(d time.Duration, code int, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case err != nil:
		t.errs++
	case code/100 == 2:
		t.ok++
		t.lat = append(t.lat, float64(d)/float64(time.Millisecond))
	default:
		if t.status == nil {
			t.status = map[string]int{}
		}
		t.status[fmt.Sprint(code)]++
	}
}

func (t *tally) result(name string, n int, elapsed time.Duration) result {
	slices.Sort(t.lat)
	q := func(p float64) *float64 {
		if len(t.lat) == 0 {
			return nil
		}
		v := t.lat[min(len(t.lat)-1, max(0, int(math.Ceil(p*float64(len(t.lat))))-1))]
		return &v
	}
	r := result{Workload: name, Requests: n, OK: t.ok, Status: t.status, Errors: t.errs, Seconds: elapsed.Seconds(),
		Throughput: float64(n) / elapsed.Seconds(), P50: q(0.5), P90: q(0.9), P99: q(0.99), Max: q(1)}
	return r
}

// openLoop sends up to cfg.requests requests within cfg.duration, at rate
// per second (0: back to back), at most cfg.concurrency at a time; each
// latency counts from its scheduled start.
func (c *client) openLoop(name string, rate float64, send func(i int, rng *rand.Rand) (int, error)) result {
	var t tally
	start := time.Now()
	deadline := start.Add(c.cfg.duration)
	sem := make(chan struct{}, c.cfg.concurrency)
	var wg sync.WaitGroup
	n := 0
	for i := 0; i < c.cfg.requests; i++ {
		at := time.Now()
		if rate > 0 {
			at = start.Add(time.Duration(float64(i) / rate * float64(time.Second)))
			if d := time.Until(at); d > 0 {
				time.Sleep(d)
			}
		}
		if time.Now().After(deadline) {
			break
		}
		sem <- struct{}{}
		n++
		wg.Add(1)
		go func(i int, at time.Time) {
			defer wg.Done()
			defer func() { <-sem }()
			rng := rand.New(rand.NewPCG(c.cfg.seed, uint64(i)))
			code, err := send(i, rng)
			t.add(time.Since(at), code, err)
		}(i, at)
	}
	wg.Wait()
	r := t.result(name, n, time.Since(start))
	r.TargetRate = rate
	return r
}

func (c *client) randomNodes(rng *rand.Rand) []int {
	k := c.cfg.minNodes + rng.IntN(c.cfg.maxNodes-c.cfg.minNodes+1)
	out := make([]int, k)
	for i := range out {
		out[i] = rng.IntN(c.nodes)
	}
	return out
}

func (c *client) predict() result {
	return c.openLoop("predict", c.cfg.rate, func(_ int, rng *rand.Rand) (int, error) {
		return c.do("POST", "/v1/predict", map[string]any{"nodes": c.randomNodes(rng)}, nil)
	})
}

func (c *client) certificate() result {
	return c.openLoop("certificate", 0, func(_ int, rng *rand.Rand) (int, error) {
		return c.do("GET", fmt.Sprintf("/v1/certificate?node=%d", rng.IntN(c.nodes)), nil, nil)
	})
}

// update adds a random absent pair, then removes it with the next update,
// each followed by a predict of an endpoint at the acknowledged version;
// the latency is the pair of requests.
func (c *client) update() result {
	var t tally
	rng := rand.New(rand.NewPCG(c.cfg.seed, 0xed6e))
	start := time.Now()
	deadline := start.Add(c.cfg.duration)
	n := 0
	var last uint64
	var pair []int
	for i := 0; i < c.cfg.requests && time.Now().Before(deadline); i++ {
		op := "remove"
		if pair == nil {
			op = "add"
			pair = []int{rng.IntN(c.nodes), rng.IntN(c.nodes)}
			if pair[0] == pair[1] {
				pair = nil
				i--
				continue
			}
		}
		t0 := time.Now()
		var v struct {
			Version uint64 `json:"version"`
		}
		code, err := c.do("POST", "/v1/edges", map[string]any{op: [][]int{pair}}, &v)
		if code == http.StatusConflict && op == "add" { // the pair is an edge already: draw another
			pair = nil
			i--
			continue
		}
		n++
		if err != nil || code != 200 {
			t.add(time.Since(t0), code, err)
			pair = nil
			continue
		}
		code, err = c.do("POST", "/v1/predict", map[string]any{"nodes": []int{pair[0]}, "min_version": v.Version}, nil)
		t.add(time.Since(t0), code, err)
		last = v.Version
		if op == "remove" {
			pair = nil
		}
	}
	if pair != nil { // leave the graph as it was
		c.do("POST", "/v1/edges", map[string]any{"remove": [][]int{pair}}, nil)
	}
	r := t.result("update", n, time.Since(start))
	r.LastVersion = last
	return r
}
