package serve

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/certify"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/task"
)

// certTable is the certificate of every node of one graph version.
type certTable struct {
	version uint64
	done    time.Time // when the job finished
	cert    *certify.Certificate
	ra, rd  []int // certified radii (additions with no deletions, and vice versa)
}

// certificate runs one background certificate job on g: the smoothed
// classifier of the served model (task.Certify's sampling, the pipeline of
// `rgnn certify`), every node's certificate.
func (s *Server) certificate(ctx context.Context, g *graphState) (*certTable, error) {
	spec := s.spec.Certify()
	n := g.nodes()
	p := &data.Problem{Name: s.problem.Name, Adj: g.adj, Features: g.feats, X: autograd.NewSparse(g.feats),
		Labels: make([]int32, n), NumClasses: s.problem.NumClasses, SplitSeed: s.problem.SplitSeed}
	vf, err := spec.Sample(ctx, p, s.trained, s.opts.CertWorkers, task.Hooks{})
	if err != nil {
		return nil, err
	}
	c, err := certify.Compute(vf.Votes, vf.PreVotes, certify.Params{PPlus: spec.PAdd, PMinus: spec.PDel,
		Alpha: spec.Alpha, NumSamples: vf.NumSamples}, s.regions)
	if err != nil {
		return nil, err
	}
	t := &certTable{version: g.version, done: time.Now(), cert: c, ra: make([]int, n), rd: make([]int, n)}
	for u := range n {
		t.ra[u], t.rd[u] = c.Radius(u)
	}
	return t, nil
}

// certLoop re-runs the certificate whenever the graph has a version newer
// than the last certified one, until ctx ends.
func (s *Server) certLoop(ctx context.Context) {
	defer s.bg.Done()
	var last *graphState
	for {
		g := s.waitGraphAfter(ctx, last)
		if g == nil {
			return
		}
		t0 := time.Now()
		t, err := s.certificate(ctx, g)
		if ctx.Err() != nil {
			return
		}
		last = g
		if err != nil {
			s.logf("certificate of version %d: %v", g.version, err)
			continue
		}
		s.met.certSeconds.Observe(time.Since(t0).Seconds())
		s.alerts.setCert(t)
		s.met.certVersion.Set(float64(t.version))
		s.logf("certified version %d in %.1f s", t.version, time.Since(t0).Seconds())
	}
}

// Alert is an update that touched a node whose certified radius is no
// larger than the edits its neighbourhood received since it was certified:
// edits an adversary could be using to flip it.
type Alert struct {
	Version          uint64 `json:"version"` // the update
	Node             int    `json:"node"`
	Class            int    `json:"class"` // the certified class
	RadiusAdd        int    `json:"radius_add"`
	RadiusDel        int    `json:"radius_del"`
	EditsAdd         int    `json:"edits_add"` // edge additions in its neighbourhood since certified
	EditsDel         int    `json:"edits_del"`
	CertifiedVersion uint64 `json:"certified_version"`
}

// maxAlerts is how many alerts are kept (the newest).
const maxAlerts = 10000

// touch is one update's effect on a node's neighbourhood.
type touch struct {
	node     int32
	add, del int32
}

// alerts keeps the certificates, the edits every node's neighbourhood
// received since its certified version, and the alerts raised.
type alerts struct {
	mu      sync.Mutex
	cert    *certTable
	history []versionTouches // updates after the certified version
	adds    map[int32]int
	dels    map[int32]int
	list    []Alert // ring of the newest maxAlerts
	total   int
	// supersededAt is when the graph first moved past the certified version.
	supersededAt time.Time
	latest       uint64
	onAlert      func()
}

type versionTouches struct {
	version uint64
	touches []touch
}

func newAlerts(onAlert func()) *alerts {
	return &alerts{adds: map[int32]int{}, dels: map[int32]int{}, onAlert: onAlert}
}

// record notes update version's touches and raises its alerts.
func (a *alerts) record(version uint64, ts []touch) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.latest = version
	if a.cert == nil || version <= a.cert.version {
		if a.cert == nil {
			a.history = append(a.history, versionTouches{version, ts})
		}
		return
	}
	if a.supersededAt.IsZero() {
		a.supersededAt = time.Now()
	}
	a.history = append(a.history, versionTouches{version, ts})
	for _, t := range ts {
		a.adds[t.node] += int(t.add)
		a.dels[t.node] += int(t.del)
		a.check(version, t.node)
	}
}

// check raises an alert for node u at update version when its edits since
// certification reach its radius: additions ≥ radius_add, deletions ≥
// radius_del, or a mix outside its certified region.
func (a *alerts) check(version uint64, u int32) {
	c := a.cert
	if int(u) >= len(c.ra) {
		return // added after the certified version: no certificate yet
	}
	ad, de := a.adds[u], a.dels[u]
	ra, rd := c.ra[u], c.rd[u]
	risky := ad > 0 && ra <= ad || de > 0 && rd <= de || ad > 0 && de > 0 && !c.cert.Certified(int(u), ad, de)
	if !risky {
		return
	}
	al := Alert{Version: version, Node: int(u), Class: c.cert.Top[u], RadiusAdd: ra, RadiusDel: rd,
		EditsAdd: ad, EditsDel: de, CertifiedVersion: c.version}
	if len(a.list) < maxAlerts {
		a.list = append(a.list, al)
	} else {
		a.list[a.total%maxAlerts] = al
	}
	a.total++
	if a.onAlert != nil {
		a.onAlert()
	}
}

// setCert installs a new certificate: the edit counts restart from its
// version.
func (a *alerts) setCert(t *certTable) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cert = t
	clear(a.adds)
	clear(a.dels)
	keep := a.history[:0]
	for _, h := range a.history {
		if h.version > t.version {
			keep = append(keep, h)
			for _, x := range h.touches {
				a.adds[x.node] += int(x.add)
				a.dels[x.node] += int(x.del)
			}
		}
	}
	a.history = keep
	a.supersededAt = time.Time{}
	if a.latest > t.version {
		a.supersededAt = t.done
	}
}

// certAnswer is GET /v1/certificate's answer.
type certAnswer struct {
	Node             int     `json:"node"`
	Class            int     `json:"class"`
	PLower           float64 `json:"p_lower"`
	RadiusAdd        int     `json:"radius_add"`
	RadiusDel        int     `json:"radius_del"`
	CertifiedVersion uint64  `json:"certified_version"`
	Version          uint64  `json:"version"`
	Stale            bool    `json:"stale"`
	EditsSince       int     `json:"edits_since"`
	EditsAdd         int     `json:"edits_add"`
	EditsDel         int     `json:"edits_del"`
}

// answer returns node u's certificate at graph version; ok is false when
// there is none (no job finished yet, or u is newer than the certificate).
func (a *alerts) answer(u int, version uint64) (certAnswer, bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := a.cert
	if c == nil {
		return certAnswer{}, false, nil
	}
	if u >= len(c.ra) {
		return certAnswer{}, false, fmt.Errorf("node %d was added after the certified version %d: no certificate yet", u, c.version)
	}
	ad, de := a.adds[int32(u)], a.dels[int32(u)]
	return certAnswer{Node: u, Class: c.cert.Top[u], PLower: c.cert.PLower[u], RadiusAdd: c.ra[u], RadiusDel: c.rd[u],
		CertifiedVersion: c.version, Version: version, Stale: version > c.version, EditsSince: ad + de,
		EditsAdd: ad, EditsDel: de}, true, nil
}

// since returns the alerts of updates after version (oldest first, at most
// limit) and the number raised in all.
func (a *alerts) since(version uint64, limit int) ([]Alert, int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []Alert
	start := 0
	if a.total > maxAlerts {
		start = a.total % maxAlerts
	}
	for i := range len(a.list) {
		al := a.list[(start+i)%len(a.list)]
		if al.Version > version {
			out = append(out, al)
			if len(out) == limit {
				break
			}
		}
	}
	return out, a.total
}

// age returns the certified version and how long ago the graph moved past
// it (0 while it is current); ok is false before the first certificate.
func (a *alerts) age() (version uint64, behind time.Duration, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cert == nil {
		return 0, 0, false
	}
	if !a.supersededAt.IsZero() {
		behind = time.Since(a.supersededAt)
	}
	return a.cert.version, behind, true
}
