package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rgnn/rgnn/tensor"
)

// Limits of one request.
const (
	maxPredictNodes = 10000
	maxEdgeOps      = 100000
	maxNewNodes     = 10000
	maxAlertsPage   = 10000
)

// apiError is the JSON of every error: {"error": ..., "field": ...}.
type apiError struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"encoding the answer failed"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

func writeErr(w http.ResponseWriter, status int, field, msg string) {
	writeJSON(w, status, apiError{Error: msg, Field: field})
}

// decode reads the request body as one JSON value into v, strictly:
// unknown fields, wrong types, trailing data and bodies over the limit are
// errors (status, field, message).
func decode(r *http.Request, v any) (int, string, string, bool) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return http.StatusRequestEntityTooLarge, "", fmt.Sprintf("request body larger than %d bytes", mb.Limit), false
		}
		return http.StatusBadRequest, "", "reading the body: " + err.Error(), false
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return http.StatusBadRequest, "", "empty body: send a JSON object", false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return http.StatusBadRequest, "", fmt.Sprintf("bad JSON at byte %d: %v", se.Offset, se), false
		case errors.As(err, &te):
			if te.Field == "" {
				return http.StatusBadRequest, "", fmt.Sprintf("the body is a JSON %s, want an object", te.Value), false
			}
			return http.StatusBadRequest, te.Field, fmt.Sprintf("%s: got a JSON %s, want %s", te.Field, te.Value, typeName(te.Type.String())), false
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			f := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			return http.StatusBadRequest, f, fmt.Sprintf("unknown field %q", f), false
		case errors.Is(err, io.ErrUnexpectedEOF):
			return http.StatusBadRequest, "", "bad JSON: the body ends early", false
		}
		return http.StatusBadRequest, "", "bad JSON: " + err.Error(), false
	}
	if dec.More() {
		return http.StatusBadRequest, "", "bad JSON: data after the object", false
	}
	if _, err := dec.Token(); err != io.EOF {
		return http.StatusBadRequest, "", "bad JSON: data after the object", false
	}
	return 0, "", "", true
}

// typeName names a Go type of a request field as JSON.
func typeName(t string) string {
	switch {
	case strings.HasPrefix(t, "[]") || strings.HasPrefix(t, "["):
		return "an array"
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		return "an integer in range"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "bool":
		return "true or false"
	case t == "string":
		return "a string"
	}
	return t
}

type healthAnswer struct {
	Status        string  `json:"status"`
	Version       uint64  `json:"version"`
	Nodes         int     `json:"nodes"`
	Edges         int     `json:"edges"`
	Model         string  `json:"model"`
	ServedVersion uint64  `json:"served_version"`
	Updates       string  `json:"updates"`
	ReadOnly      bool    `json:"read_only"`
	Uptime        float64 `json:"uptime_seconds"`
	Problem       string  `json:"problem,omitempty"`
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeErr(w, http.StatusMethodNotAllowed, "", r.Method+" /v1/health: use GET")
		return
	}
	g, st := s.graph.Load(), s.served.Load()
	a := healthAnswer{Status: "ok", Version: g.version, Nodes: g.nodes(), Edges: g.adj.Nnz() / 2,
		Model: s.spec.Model.Model, ServedVersion: st.version, Updates: s.eng.mode, ReadOnly: s.opts.ReadOnly,
		Uptime: time.Since(s.started).Seconds()}
	if e := s.engErr.Load(); e != nil {
		a.Status, a.Problem = "degraded", "logits of the latest version failed: "+*e
	}
	s.wmu.Lock()
	if s.failed != nil && s.log != nil {
		a.Status, a.Problem = "degraded", "updates refused: "+s.failed.Error()
	}
	s.wmu.Unlock()
	writeJSON(w, http.StatusOK, a)
}

type predictRequest struct {
	Nodes      []int64 `json:"nodes"`
	MinVersion *int64  `json:"min_version"`
	Logits     bool    `json:"logits"`
}

type prediction struct {
	Node          int       `json:"node"`
	Class         int       `json:"class"`
	Probabilities []float64 `json:"probabilities"`
	Logits        []float32 `json:"logits,omitempty"`
}

type predictAnswer struct {
	Version     uint64       `json:"version"`
	Predictions []prediction `json:"predictions"`
}

func (s *Server) handlePredict(w http.ResponseWriter, r *http.Request) {
	var req predictRequest
	if code, field, msg, ok := decode(r, &req); !ok {
		writeErr(w, code, field, msg)
		return
	}
	switch {
	case req.Nodes == nil:
		writeErr(w, http.StatusBadRequest, "nodes", "missing: give the node ids to predict")
		return
	case len(req.Nodes) == 0:
		writeErr(w, http.StatusBadRequest, "nodes", "empty list")
		return
	case len(req.Nodes) > maxPredictNodes:
		writeErr(w, http.StatusBadRequest, "nodes", fmt.Sprintf("%d nodes: at most %d per request", len(req.Nodes), maxPredictNodes))
		return
	}
	st := s.served.Load()
	if req.MinVersion != nil {
		mv := *req.MinVersion
		latest := s.graph.Load().version
		switch {
		case mv < 0:
			writeErr(w, http.StatusBadRequest, "min_version", fmt.Sprintf("%d: versions are ≥ 0", mv))
			return
		case uint64(mv) > latest:
			writeErr(w, http.StatusBadRequest, "min_version", fmt.Sprintf("version %d has not been written (the latest is %d)", mv, latest))
			return
		}
		if st.version < uint64(mv) {
			if st = s.waitServed(r.Context(), uint64(mv), time.Duration(s.opts.MaxWait*float64(time.Second))); st == nil {
				w.Header().Set("Retry-After", "1")
				writeErr(w, http.StatusServiceUnavailable, "min_version",
					fmt.Sprintf("version %d is not served yet (waited %gs; serving %d)", mv, s.opts.MaxWait, s.served.Load().version))
				return
			}
		}
	}
	for i, u := range req.Nodes {
		switch {
		case u < 0:
			writeErr(w, http.StatusBadRequest, fmt.Sprintf("nodes[%d]", i), fmt.Sprintf("node id %d out of range: ids are ≥ 0", u))
			return
		case u >= int64(st.nodes):
			writeErr(w, http.StatusNotFound, fmt.Sprintf("nodes[%d]", i), fmt.Sprintf("unknown node %d (version %d has nodes 0..%d)", u, st.version, st.nodes-1))
			return
		}
	}
	if st.logits == nil && !st.lazy.take(len(req.Nodes)) {
		// Too many nodes to compute here: the engine fills the table (of
		// this version, or a later one if updates came meanwhile). Without
		// min_version the newest table answers at once, if it has the
		// nodes (its version is in the answer).
		s.requestFill()
		if t := st.table; req.MinVersion == nil && t != nil && maxNode(req.Nodes) < int64(t.nodes) {
			st = t
		} else if t := s.waitTable(r.Context(), st.version, time.Duration(s.opts.MaxWait*float64(time.Second))); t != nil {
			st = t
		}
	}
	var computed *tensor.Dense // a lazy version's logits of req.Nodes
	if st.logits == nil {      // the layers at these nodes
		nodes := make([]int, len(req.Nodes))
		for i, u := range req.Nodes {
			nodes[i] = int(u)
		}
		z, err := st.lazy.rows(nodes)
		if err != nil {
			writeErr(w, http.StatusInternalServerError, "", fmt.Sprintf("logits of version %d: %v", st.version, err))
			return
		}
		computed = z
		s.met.lazyNodes.Add(float64(len(nodes)))
	}
	// The answer (predictAnswer's JSON, as encoding/json writes it) goes
	// into a pooled buffer: a request allocates no per-node slices.
	bp := answerBufs.Get().(*[]byte)
	b := append((*bp)[:0], `{"version":`...)
	b = strconv.AppendUint(b, st.version, 10)
	b = append(b, `,"predictions":[`...)
	var prob [64]float64
	for i, u := range req.Nodes {
		var z []float32
		if computed != nil {
			z = computed.Row(i)
		} else {
			z = st.logits.row(int(u))
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"node":`...)
		b = strconv.AppendInt(b, u, 10)
		b = append(b, `,"class":`...)
		b = strconv.AppendInt(b, int64(argmax(z)), 10)
		b = append(b, `,"probabilities":[`...)
		p := prob[:0]
		if len(z) > len(prob) {
			p = make([]float64, 0, len(z))
		}
		for j, v := range softmaxInto(p, z) {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendJSONFloat(b, v, 64)
		}
		b = append(b, ']')
		if req.Logits {
			b = append(b, `,"logits":[`...)
			for j, v := range z {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendJSONFloat(b, float64(v), 32)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	b = append(b, "]}\n"...)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	w.Write(b)
	if cap(b) <= 1<<20 {
		*bp = b
		answerBufs.Put(bp)
	}
}

// maxNode is the largest id of nodes (not empty).
func maxNode(nodes []int64) int64 {
	m := nodes[0]
	for _, u := range nodes[1:] {
		m = max(m, u)
	}
	return m
}

var answerBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// appendJSONFloat appends f as encoding/json writes a float of that many
// bits (finite: logits and probabilities are).
func appendJSONFloat(b []byte, f float64, bits int) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 {
		if bits == 64 && (a < 1e-6 || a >= 1e21) || bits == 32 && (float32(a) < 1e-6 || float32(a) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

func argmax(z []float32) int {
	best := 0
	for i, v := range z {
		if v > z[best] {
			best = i
		}
	}
	return best
}

// softmaxInto appends to out the softmax of float32 logits (or
// log-probabilities), in float64.
func softmaxInto(out []float64, z []float32) []float64 {
	m := math.Inf(-1)
	for _, v := range z {
		m = math.Max(m, float64(v))
	}
	out = out[:0]
	var sum float64
	for _, v := range z {
		e := math.Exp(float64(v) - m)
		out = append(out, e)
		sum += e
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}

type edgesRequest struct {
	Add    [][]int64 `json:"add"`
	Remove [][]int64 `json:"remove"`
}

type versionAnswer struct {
	Version uint64  `json:"version"`
	Nodes   []int32 `json:"nodes,omitempty"`
}

// pairs checks the pairs of one list of a request: two integer ids each
// within int32 (the graph check follows), no pair twice in the request.
func pairs(list [][]int64, field string, seen map[[2]int32]string) ([][2]int32, *editError) {
	out := make([][2]int32, len(list))
	for i, p := range list {
		f := fmt.Sprintf("%s[%d]", field, i)
		if len(p) != 2 {
			return nil, &editError{400, f, fmt.Sprintf("a pair has two node ids, got %d values", len(p))}
		}
		for j, x := range p {
			if x < math.MinInt32 || x > math.MaxInt32 {
				return nil, &editError{400, fmt.Sprintf("%s[%d]", f, j), fmt.Sprintf("node id %d out of range", x)}
			}
		}
		u, v := int32(p[0]), int32(p[1])
		key := [2]int32{min(u, v), max(u, v)}
		if prev, dup := seen[key]; dup {
			return nil, &editError{400, f, fmt.Sprintf("pair %d–%d is also %s: each pair once per request", u, v, prev)}
		}
		seen[key] = f
		out[i] = [2]int32{u, v}
	}
	return out, nil
}

func (s *Server) refuseWrites(w http.ResponseWriter) bool {
	if s.opts.ReadOnly {
		writeErr(w, http.StatusForbidden, "", "the server is read-only (--read-only)")
		return true
	}
	return false
}

func (s *Server) handleEdges(w http.ResponseWriter, r *http.Request) {
	if s.refuseWrites(w) {
		return
	}
	var req edgesRequest
	if code, field, msg, ok := decode(r, &req); !ok {
		writeErr(w, code, field, msg)
		return
	}
	if len(req.Add)+len(req.Remove) == 0 {
		writeErr(w, http.StatusBadRequest, "add", "nothing to do: give add and/or remove")
		return
	}
	if len(req.Add)+len(req.Remove) > maxEdgeOps {
		writeErr(w, http.StatusBadRequest, "add", fmt.Sprintf("at most %d pairs per request", maxEdgeOps))
		return
	}
	seen := map[[2]int32]string{}
	rm, e := pairs(req.Remove, "remove", seen)
	if e != nil {
		writeErr(w, e.status, e.field, e.msg)
		return
	}
	add, e := pairs(req.Add, "add", seen)
	if e != nil {
		writeErr(w, e.status, e.field, e.msg)
		return
	}
	v, _, err := s.commit(Record{Kind: "edges", Add: add, Remove: rm})
	if err != nil {
		s.writeCommitErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, versionAnswer{Version: v})
}

type nodesRequest struct {
	Features [][]float64 `json:"features"`
	Edges    [][]int64   `json:"edges"`
}

func (s *Server) handleNodes(w http.ResponseWriter, r *http.Request) {
	if s.refuseWrites(w) {
		return
	}
	var req nodesRequest
	if code, field, msg, ok := decode(r, &req); !ok {
		writeErr(w, code, field, msg)
		return
	}
	switch {
	case len(req.Features) == 0:
		writeErr(w, http.StatusBadRequest, "features", "give one feature vector per new node")
		return
	case len(req.Features) > maxNewNodes:
		writeErr(w, http.StatusBadRequest, "features", fmt.Sprintf("at most %d new nodes per request", maxNewNodes))
		return
	case len(req.Edges) > maxEdgeOps:
		writeErr(w, http.StatusBadRequest, "edges", fmt.Sprintf("at most %d edges per request", maxEdgeOps))
		return
	}
	d := s.problem.Features.Cols
	cols := make([][]int32, len(req.Features))
	vals := make([][]float32, len(req.Features))
	for i, x := range req.Features {
		c, v, err := featureRow(x, d, s.spec.BinaryAttr, fmt.Sprintf("features[%d]", i))
		if err != nil {
			e := err.(*editError)
			writeErr(w, e.status, e.field, e.msg)
			return
		}
		cols[i], vals[i] = c, v
	}
	// New nodes are -1, -2, ... in the request's edges.
	for i, p := range req.Edges {
		for j, x := range p {
			if x < 0 && -x > int64(len(req.Features)) {
				writeErr(w, http.StatusBadRequest, fmt.Sprintf("edges[%d][%d]", i, j),
					fmt.Sprintf("%d: new nodes are -1..-%d (the order of features)", x, len(req.Features)))
				return
			}
		}
	}
	seen := map[[2]int32]string{}
	edges, e := pairs(req.Edges, "edges", seen)
	if e != nil {
		writeErr(w, e.status, e.field, e.msg)
		return
	}
	v, ids, err := s.commit(Record{Kind: "nodes", Add: edges, Cols: cols, Vals: vals})
	if err != nil {
		s.writeCommitErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, versionAnswer{Version: v, Nodes: ids})
}

func (s *Server) writeCommitErr(w http.ResponseWriter, err error) {
	var e *editError
	if errors.As(err, &e) {
		writeErr(w, e.status, e.field, e.msg)
		return
	}
	w.Header().Set("Retry-After", "5")
	writeErr(w, http.StatusServiceUnavailable, "", err.Error())
}

// commit applies an update to the latest graph (checked; nothing changes
// when it does not apply), appends it to the log with fsync, and makes it
// the latest version; only then is it acknowledged. For kind nodes the
// record's edges use -1, -2, ... for the new nodes, rewritten to their ids
// before logging.
func (s *Server) commit(rec Record) (uint64, []int32, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.failed != nil {
		return 0, nil, fmt.Errorf("updates are refused: %w", s.failed)
	}
	if s.log == nil {
		return 0, nil, errors.New("updates are refused: no write-ahead log")
	}
	g := s.graph.Load()
	b := newBuilder(g)
	var ids []int32
	for i := range rec.Cols {
		ids = append(ids, b.node(rec.Cols[i], rec.Vals[i]))
	}
	if rec.Kind == "nodes" {
		for i, p := range rec.Add {
			for j, x := range p {
				if x < 0 {
					rec.Add[i][j] = ids[-x-1]
				}
			}
		}
		// two request pairs may name the same edge once rewritten: pairs
		// checked them as written, the graph check below catches the rest
	}
	for i, e := range rec.Remove {
		if err := b.edge(e[0], e[1], false, fmt.Sprintf("remove[%d]", i)); err != nil {
			return 0, nil, err
		}
	}
	field := "add"
	if rec.Kind == "nodes" {
		field = "edges"
	}
	for i, e := range rec.Add {
		if err := b.edge(e[0], e[1], true, fmt.Sprintf("%s[%d]", field, i)); err != nil {
			return 0, nil, err
		}
	}
	rec.Version = g.version + 1
	t0 := time.Now()
	if err := s.log.append(rec); err != nil {
		s.failed = err
		s.logf("%v: refusing further updates", err)
		return 0, nil, err
	}
	s.met.walSync.Observe(time.Since(t0).Seconds())
	next := b.build(rec.Version)
	changed := b.changed()
	s.publishGraph(next)
	s.pending.push(update{g: next, changed: changed, acked: time.Now()})
	if s.alerts != nil {
		s.alerts.record(next.version, touches(next.adj, rec))
	}
	return next.version, ids, nil
}

// touches counts, per node, the edge additions and removals of rec in its
// neighbourhood: the edge's endpoints and their neighbours in the new graph
// (the nodes whose two-hop receptive field holds the edge).
func touches(a *tensor.CSR, rec Record) []touch {
	type ad struct{ add, del int32 }
	m := map[int32]*ad{}
	edit := func(u, v int32, add bool) {
		seen := map[int32]bool{}
		hit := func(x int32) {
			if seen[x] {
				return
			}
			seen[x] = true
			c := m[x]
			if c == nil {
				c = &ad{}
				m[x] = c
			}
			if add {
				c.add++
			} else {
				c.del++
			}
		}
		for _, x := range []int32{u, v} {
			hit(x)
			for _, y := range a.Indices[a.Indptr[x]:a.Indptr[x+1]] {
				hit(y)
			}
		}
	}
	for _, e := range rec.Remove {
		edit(e[0], e[1], false)
	}
	for _, e := range rec.Add {
		edit(e[0], e[1], true)
	}
	out := make([]touch, 0, len(m))
	for u, x := range m {
		out = append(out, touch{node: u, add: x.add, del: x.del})
	}
	return out
}

func (s *Server) handleCertificate(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	for k := range q {
		if k != "node" {
			writeErr(w, http.StatusBadRequest, k, fmt.Sprintf("unknown parameter %q", k))
			return
		}
	}
	raw := q.Get("node")
	if raw == "" {
		writeErr(w, http.StatusBadRequest, "node", "missing: /v1/certificate?node=<id>")
		return
	}
	u, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		writeErr(w, http.StatusBadRequest, "node", fmt.Sprintf("%q is not an integer node id", raw))
		return
	}
	g := s.graph.Load()
	switch {
	case u < 0:
		writeErr(w, http.StatusBadRequest, "node", fmt.Sprintf("node id %d out of range: ids are ≥ 0", u))
		return
	case u >= int64(g.nodes()):
		writeErr(w, http.StatusNotFound, "node", fmt.Sprintf("unknown node %d (the graph has nodes 0..%d)", u, g.nodes()-1))
		return
	}
	if s.alerts == nil {
		writeErr(w, http.StatusNotFound, "", "certificates are off (--cert-samples 0)")
		return
	}
	a, ok, err := s.alerts.answer(int(u), g.version)
	switch {
	case err != nil:
		writeErr(w, http.StatusNotFound, "node", err.Error())
		return
	case !ok:
		w.Header().Set("Retry-After", "10")
		writeErr(w, http.StatusServiceUnavailable, "", "the first certificate is being computed: retry later")
		return
	}
	writeJSON(w, http.StatusOK, a)
}

type alertsAnswer struct {
	Version          uint64  `json:"version"`
	CertifiedVersion *uint64 `json:"certified_version"`
	Total            int     `json:"total"`
	Alerts           []Alert `json:"alerts"`
}

func (s *Server) handleAlerts(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	since, limit := int64(0), int64(1000)
	for k, vs := range q {
		var dst *int64
		switch k {
		case "since":
			dst = &since
		case "limit":
			dst = &limit
		default:
			writeErr(w, http.StatusBadRequest, k, fmt.Sprintf("unknown parameter %q (since, limit)", k))
			return
		}
		v, err := strconv.ParseInt(vs[0], 10, 64)
		if err != nil || v < 0 {
			writeErr(w, http.StatusBadRequest, k, fmt.Sprintf("%q: want an integer ≥ 0", vs[0]))
			return
		}
		*dst = v
	}
	if limit < 1 || limit > maxAlertsPage {
		writeErr(w, http.StatusBadRequest, "limit", fmt.Sprintf("%d: want 1..%d", limit, maxAlertsPage))
		return
	}
	g := s.graph.Load()
	ans := alertsAnswer{Version: g.version, Alerts: []Alert{}}
	if s.alerts != nil {
		list, total := s.alerts.since(uint64(since), int(limit))
		if list != nil {
			ans.Alerts = list
		}
		ans.Total = total
		if v, _, ok := s.alerts.age(); ok {
			ans.CertifiedVersion = &v
		}
	}
	writeJSON(w, http.StatusOK, ans)
}
