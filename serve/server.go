package serve

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/rgnn/rgnn/certify"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/model"
	"github.com/rgnn/rgnn/task"
	"github.com/rgnn/rgnn/tensor"
)

// Options are the server's settings besides the model (task.Serve). The
// zero value of a field means its default (Defaults).
type Options struct {
	Listen string `param:"listen" help:"address to listen on (host:port; port 0 picks a free one). Loopback unless you say otherwise"`
	State  string `param:"state" help:"state folder: the write-ahead log of graph updates, replayed on start (required unless --read-only)"`
	// TokenFile holds the bearer token; Token is the token itself (the
	// front end reads $RGNN_SERVE_TOKEN into it).
	TokenFile string `param:"token_file" help:"file holding a bearer token that every endpoint but /v1/health then requires (Authorization: Bearer <token>); $RGNN_SERVE_TOKEN sets one too"`
	Token     string `json:"-"`
	TLSCert   string `param:"tls_cert" help:"TLS certificate (PEM); with --tls-key the server speaks HTTPS"`
	TLSKey    string `param:"tls_key" help:"TLS private key (PEM)"`
	ReadOnly  bool   `param:"read_only" help:"refuse updates (POST /v1/edges and /v1/nodes answer 403); the state folder's log is replayed if given"`
	MaxBody   int    `param:"max_body" help:"largest request body in bytes (larger: 413)"`
	// MaxInFlight requests at a time; beyond, 503 with Retry-After.
	MaxInFlight int     `param:"max_inflight" help:"requests handled at a time; more are refused with 503 and Retry-After"`
	MaxWait     float64 `param:"max_wait" help:"seconds a predict with min_version waits at most for that version to be served"`
	CertWorkers int     `param:"cert_workers" help:"goroutines of the background certificates (they share the cores with the requests)"`
	Workers     int     `param:"workers" help:"goroutines of the push-PPR updates (0: GOMAXPROCS)"`
	FillDelay   float64 `param:"fill_delay" help:"push GDC with a robust aggregation: a new version is served as soon as its PPR rows are, a prediction of a few nodes running the layers at its own nodes; once updates pause this many seconds (or a larger prediction asks) the layers run on every node and predictions read the result"`
}

// Defaults returns the options with every default set.
func (Options) Defaults() Options {
	return Options{Listen: "127.0.0.1:8080", MaxBody: 8 << 20, MaxInFlight: 64, MaxWait: 10, CertWorkers: 1, FillDelay: 0.025}
}

// Validate checks the options.
func (o Options) Validate() error {
	switch {
	case o.Listen == "":
		return fieldErr("listen", "empty")
	case o.State == "" && !o.ReadOnly:
		return fieldErr("state", "give a state folder for the write-ahead log (or --read-only)")
	case (o.TLSCert == "") != (o.TLSKey == ""):
		return fieldErr("tls_cert", "give both --tls-cert and --tls-key")
	case o.MaxBody < 1024:
		return fieldErr("max_body", "must be at least 1024 bytes")
	case o.MaxInFlight < 1:
		return fieldErr("max_inflight", "must be ≥ 1")
	case !(o.MaxWait >= 0) || math.IsInf(o.MaxWait, 0):
		return fieldErr("max_wait", "must be a number of seconds ≥ 0")
	case o.CertWorkers < 1:
		return fieldErr("cert_workers", "must be ≥ 1")
	case o.Workers < 0:
		return fieldErr("workers", "must be ≥ 0")
	case !(o.FillDelay > 0) || math.IsInf(o.FillDelay, 0):
		return fieldErr("fill_delay", "must be a number of seconds > 0")
	}
	if _, _, err := net.SplitHostPort(o.Listen); err != nil {
		return fieldErr("listen", fmt.Sprintf("%q: want host:port (%v)", o.Listen, err))
	}
	return nil
}

// OptionError is a bad option; Param names it as in Options' tags.
type OptionError struct{ Param, Msg string }

func (e *OptionError) Error() string { return e.Param + ": " + e.Msg }

func fieldErr(param, msg string) error { return &OptionError{param, msg} }

// Server answers predictions, certificates and alerts over HTTP for a model
// on a graph that changes by the updates it accepts.
type Server struct {
	spec    task.Serve
	opts    Options
	logw    io.Writer
	logMu   sync.Mutex
	problem *data.Problem
	trained *task.Trained
	met     *metrics
	regions *certify.RegionCache

	// The write path: one update at a time.
	wmu    sync.Mutex
	log    *wal
	failed error // the log could not be written: no more updates

	graph atomic.Pointer[graphState] // the latest acknowledged version
	gmu   sync.Mutex
	gnew  chan struct{} // closed when graph moves on (under gmu)

	eng     *engine
	pending *pending
	served  atomic.Pointer[servedState]
	smu     sync.Mutex
	snew    chan struct{} // closed when served moves on (under smu)
	// fillWant holds a token when predictions want the table of a lazy
	// version (requestFill).
	fillWant chan struct{}
	engErr   atomic.Pointer[string]

	alerts   *alerts // nil: certificates off
	inflight chan struct{}
	bg       sync.WaitGroup
	started  time.Time
	id       GraphID
}

// servedState is the version whose predictions are answered: its logits
// table, or (logits nil) its lazy rows, which compute the logits of the
// nodes asked for.
type servedState struct {
	version uint64
	logits  *logitTable
	lazy    *lazyRows
	nodes   int
	// table (lazy versions) is the newest earlier state with a table.
	table *servedState
}

// New loads the dataset and the model of spec (weights required), replays
// the state folder's log and computes the logits of the latest version;
// the server is then ready for Handler or Run. Progress and events are
// logged to logw (nil: none).
func New(ctx context.Context, spec task.Serve, opts Options, loader *task.Loader, logw io.Writer) (*Server, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	s := &Server{spec: spec, opts: opts, logw: logw, met: newMetrics(), regions: &certify.RegionCache{},
		inflight: make(chan struct{}, opts.MaxInFlight), started: time.Now(),
		gnew: make(chan struct{}), snew: make(chan struct{}), fillWant: make(chan struct{}, 1)}
	p, err := loader.Problem(ctx, spec.Data, spec.EffectiveSplitSeed())
	if err != nil {
		return nil, err
	}
	g0, err := task.OnGraph(p, spec.Graph)
	if err != nil {
		return nil, err
	}
	s.problem = g0.Problem
	if s.trained, err = task.Load(spec.Model, s.problem, spec.Seed, spec.Weights); err != nil {
		return nil, err
	}
	base := &graphState{adj: s.problem.Adj, feats: s.problem.Features}
	s.id = graphID(spec, base)
	g := base
	if opts.State != "" {
		w, recs, torn, err := openWAL(opts.State, s.id)
		if err != nil {
			return nil, err
		}
		if torn > 0 {
			s.logf("write-ahead log: cut a torn tail of %d bytes (an update that was never acknowledged)", torn)
		}
		if g, err = replay(base, recs); err != nil {
			w.close()
			return nil, fmt.Errorf("write-ahead log %s: %w", w.path, err)
		}
		if len(recs) > 0 {
			s.logf("replayed %d updates: graph version %d", len(recs), g.version)
		}
		if opts.ReadOnly {
			w.close()
		} else {
			s.log = w
		}
	}
	s.graph.Store(g)
	s.eng = newEngine(s.trained.Model, opts.Workers, func() (model.Model, error) {
		r, err := s.trained.Replica(s.problem)
		if err != nil {
			return nil, err
		}
		return r.Model, nil
	})
	t0 := time.Now()
	logits, err := s.eng.init(g)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.logf("model %s (%s updates): logits of %d nodes in %.2f s", spec.Model.Model, s.eng.mode, g.nodes(), time.Since(t0).Seconds())
	s.served.Store(&servedState{version: g.version, logits: logits, nodes: g.nodes()})
	s.pending = newPending()
	s.setGraphMetrics(g)
	s.met.served.Set(float64(g.version))
	if spec.CertSamples > 0 {
		s.alerts = newAlerts(s.met.alerts.Inc)
	}
	return s, nil
}

// graphID is what a log records about the graph it belongs to.
func graphID(spec task.Serve, g *graphState) GraphID {
	h := sha256.New()
	put := func(xs ...[]int32) {
		for _, x := range xs {
			binary.Write(h, binary.LittleEndian, x)
		}
	}
	for _, a := range []*tensor.CSR{g.adj, g.feats} {
		ptr := make([]int32, len(a.Indptr))
		for i, v := range a.Indptr {
			ptr[i] = int32(v)
		}
		put(ptr, a.Indices)
		binary.Write(h, binary.LittleEndian, a.Values)
	}
	return GraphID{Dataset: spec.Dataset, Graph: spec.Graph, Binary: spec.BinaryAttr, Nodes: g.adj.Rows,
		Edges: g.adj.Nnz() / 2, Features: g.feats.Cols, Digest: hex.EncodeToString(h.Sum(nil))}
}

// replay applies the logged updates to base, checking that their versions
// run 1, 2, ... without a gap or a repeat.
func replay(base *graphState, recs []Record) (*graphState, error) {
	if len(recs) == 0 {
		return base, nil
	}
	b := newBuilder(base)
	for i, r := range recs {
		if r.Version != uint64(i+1) {
			return nil, fmt.Errorf("record %d has version %d, want %d", i+1, r.Version, i+1)
		}
		if r.Kind != "edges" && r.Kind != "nodes" {
			return nil, fmt.Errorf("record %d: unknown kind %q", i+1, r.Kind)
		}
		if err := b.applyRecord(r); err != nil {
			return nil, err
		}
	}
	return b.build(uint64(len(recs))), nil
}

func (s *Server) logf(format string, args ...any) {
	if s.logw == nil {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.logw, "%s rgnn serve: %s\n", time.Now().UTC().Format(time.RFC3339), fmt.Sprintf(format, args...))
}

func (s *Server) setGraphMetrics(g *graphState) {
	s.met.graphVersion.Set(float64(g.version))
	s.met.nodes.Set(float64(g.nodes()))
	s.met.edges.Set(float64(g.adj.Nnz() / 2))
}

// Mode says how the model's logits follow updates.
func (s *Server) Mode() string { return s.eng.mode }

// Start starts the background work (the logits of new versions, the
// certificates) until ctx ends; Close waits for it.
func (s *Server) Start(ctx context.Context) {
	s.bg.Add(1)
	go s.engineLoop(ctx)
	if s.alerts != nil {
		s.bg.Add(1)
		go s.certLoop(ctx)
	}
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				s.updateAgeMetrics()
			}
		}
	}()
}

func (s *Server) updateAgeMetrics() {
	if s.alerts == nil {
		return
	}
	if v, behind, ok := s.alerts.age(); ok {
		s.met.certAge.Set(behind.Seconds())
		s.met.certAgeVers.Set(float64(s.graph.Load().version - v))
	}
}

// Close stops accepting updates and closes the log (after Start's context
// ended, it waits for the background work).
func (s *Server) Close() error {
	s.pending.close() // nil-safe
	s.bg.Wait()
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.log != nil {
		err := s.log.close()
		s.log = nil
		s.failed = errors.New("the server is shutting down")
		return err
	}
	return nil
}

// Run serves HTTP on opts.Listen until ctx ends (SIGTERM in the front end),
// then shuts down gracefully: no new connections, requests in flight
// finish (up to 30 s), background work stops, the log is closed. ready, if
// not nil, receives the address listened on.
func (s *Server) Run(ctx context.Context, ready func(addr string)) error {
	ln, err := net.Listen("tcp", s.opts.Listen)
	if err != nil {
		return fmt.Errorf("listen %s: %w", s.opts.Listen, err)
	}
	if host, _, _ := net.SplitHostPort(s.opts.Listen); !isLoopback(host) && s.opts.Token == "" {
		s.logf("WARNING: listening on %s without a token: anyone who can reach it can change the graph", ln.Addr())
	}
	bgCtx, stopBG := context.WithCancel(context.Background())
	s.Start(bgCtx)
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: time.Duration(s.opts.MaxWait*float64(time.Second)) + 60*time.Second, IdleTimeout: 120 * time.Second,
		MaxHeaderBytes: 64 << 10}
	errc := make(chan error, 1)
	go func() {
		if s.opts.TLSCert != "" {
			errc <- srv.ServeTLS(ln, s.opts.TLSCert, s.opts.TLSKey)
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	if ready != nil {
		ready(ln.Addr().String())
	}
	select {
	case err = <-errc:
	case <-ctx.Done():
		s.logf("shutting down: draining requests")
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err = srv.Shutdown(sctx)
		cancel()
	}
	stopBG()
	if cerr := s.Close(); err == nil || errors.Is(err, http.ErrServerClosed) {
		err = cerr
	}
	s.logf("stopped at graph version %d", s.graph.Load().version)
	return err
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Endpoints are the paths of the HTTP API (docs/openapi.yaml documents
// each).
var Endpoints = []string{"/v1/health", "/v1/predict", "/v1/edges", "/v1/nodes", "/v1/certificate", "/v1/alerts", "/metrics"}

// Handler is the server's HTTP API (docs/openapi.yaml).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/health", s.instrument("health", s.handleHealth))
	mux.HandleFunc("/v1/predict", s.guard("predict", http.MethodPost, s.handlePredict))
	mux.HandleFunc("/v1/edges", s.guard("edges", http.MethodPost, s.handleEdges))
	mux.HandleFunc("/v1/nodes", s.guard("nodes", http.MethodPost, s.handleNodes))
	mux.HandleFunc("/v1/certificate", s.guard("certificate", http.MethodGet, s.handleCertificate))
	mux.HandleFunc("/v1/alerts", s.guard("alerts", http.MethodGet, s.handleAlerts))
	prom := promhttp.HandlerFor(s.met.reg, promhttp.HandlerOpts{})
	mux.HandleFunc("/metrics", s.guard("metrics", http.MethodGet, func(w http.ResponseWriter, r *http.Request) {
		s.updateAgeMetrics()
		prom.ServeHTTP(w, r)
	}))
	mux.HandleFunc("/", s.instrument("other", func(w http.ResponseWriter, r *http.Request) {
		writeErr(w, http.StatusNotFound, "", fmt.Sprintf("no endpoint %s (see docs/openapi.yaml)", r.URL.Path))
	}))
	return mux
}

// statusWriter records the status code for the metrics.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// instrument times a handler into the latency histogram.
func (s *Server) instrument(name string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		h(sw, r)
		if sw.code == 0 {
			sw.code = http.StatusOK
		}
		s.met.latency.WithLabelValues(name, fmt.Sprint(sw.code)).Observe(time.Since(t0).Seconds())
	}
}

// guard wraps an endpoint: the in-flight bound, the token, the method.
func (s *Server) guard(name, method string, h http.HandlerFunc) http.HandlerFunc {
	return s.instrument(name, func(w http.ResponseWriter, r *http.Request) {
		select {
		case s.inflight <- struct{}{}:
			defer func() { <-s.inflight }()
		default:
			s.met.rejected.Inc()
			w.Header().Set("Retry-After", "1")
			writeErr(w, http.StatusServiceUnavailable, "", fmt.Sprintf("too many requests in flight (%d): retry", s.opts.MaxInFlight))
			return
		}
		s.met.inflight.Set(float64(len(s.inflight)))
		if !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="rgnn"`)
			writeErr(w, http.StatusUnauthorized, "Authorization", "missing or wrong bearer token")
			return
		}
		if r.Method != method {
			w.Header().Set("Allow", method)
			writeErr(w, http.StatusMethodNotAllowed, "", fmt.Sprintf("%s %s: use %s", r.Method, r.URL.Path, method))
			return
		}
		if method == http.MethodPost {
			if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(strings.ToLower(ct), "application/json") {
				writeErr(w, http.StatusUnsupportedMediaType, "Content-Type", fmt.Sprintf("content type %q: send application/json", ct))
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, int64(s.opts.MaxBody))
		}
		h(w, r)
	})
}

// authorized checks the bearer token in constant time.
func (s *Server) authorized(r *http.Request) bool {
	if s.opts.Token == "" {
		return true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	a, b := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(s.opts.Token))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// waitGraphAfter returns the latest graph when it is newer than last (nil:
// any), waiting for one; nil when ctx ends.
func (s *Server) waitGraphAfter(ctx context.Context, last *graphState) *graphState {
	for {
		s.gmu.Lock()
		g, ch := s.graph.Load(), s.gnew
		s.gmu.Unlock()
		if last == nil || g.version > last.version {
			return g
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ch:
		}
	}
}

// publishGraph makes g the latest version.
func (s *Server) publishGraph(g *graphState) {
	s.gmu.Lock()
	s.graph.Store(g)
	close(s.gnew)
	s.gnew = make(chan struct{})
	s.gmu.Unlock()
	s.setGraphMetrics(g)
}

// publishServed makes st the served version.
func (s *Server) publishServed(st *servedState) {
	if st.logits == nil {
		if prev := s.served.Load(); prev.logits != nil {
			st.table = prev
		} else {
			st.table = prev.table
		}
	}
	s.smu.Lock()
	s.served.Store(st)
	close(s.snew)
	s.snew = make(chan struct{})
	s.smu.Unlock()
	s.met.served.Set(float64(st.version))
	s.met.lagVersions.Set(float64(s.graph.Load().version - st.version))
}

// requestFill asks the engine to fill the table of its lazy version now.
func (s *Server) requestFill() {
	select {
	case s.fillWant <- struct{}{}:
	default:
	}
}

// waitServed returns the served state once its version is at least v, or
// nil after wait (or when ctx ends).
func (s *Server) waitServed(ctx context.Context, v uint64, wait time.Duration) *servedState {
	return s.waitFor(ctx, wait, func(st *servedState) bool { return st.version >= v })
}

// waitTable returns the first served state of version v or later with its
// logits table, or nil after wait (or when ctx ends).
func (s *Server) waitTable(ctx context.Context, v uint64, wait time.Duration) *servedState {
	return s.waitFor(ctx, wait, func(st *servedState) bool { return st.version >= v && st.logits != nil })
}

// waitFor returns the served state once ok holds for it, or nil after wait
// (or when ctx ends).
func (s *Server) waitFor(ctx context.Context, wait time.Duration, ok func(*servedState) bool) *servedState {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		s.smu.Lock()
		st, ch := s.served.Load(), s.snew
		s.smu.Unlock()
		if ok(st) {
			return st
		}
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
			return nil
		case <-ch:
		}
	}
}
