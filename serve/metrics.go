package serve

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are a server's Prometheus metrics, in a registry of its own (not
// the process-wide default), exported at /metrics.
type metrics struct {
	reg          *prometheus.Registry
	latency      *prometheus.HistogramVec
	rejected     prometheus.Counter
	inflight     prometheus.Gauge
	graphVersion prometheus.Gauge
	served       prometheus.Gauge
	lagVersions  prometheus.Gauge
	updateLag    prometheus.Histogram
	walSync      prometheus.Histogram
	pprRows      prometheus.Histogram
	certVersion  prometheus.Gauge
	certAge      prometheus.Gauge
	certAgeVers  prometheus.Gauge
	certSeconds  prometheus.Histogram
	alerts       prometheus.Counter
	lazyNodes    prometheus.Counter
	nodes, edges prometheus.Gauge
}

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	lat := prometheus.ExponentialBuckets(0.0002, 2, 16) // 0.2 ms .. 6.5 s
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rgnn_serve_request_duration_seconds",
		Help: "Request latency by endpoint and status code.", Buckets: lat}, []string{"endpoint", "code"})
	m.rejected = prometheus.NewCounter(prometheus.CounterOpts{Name: "rgnn_serve_rejected_requests_total",
		Help: "Requests refused with 503 because too many were in flight."})
	m.inflight = prometheus.NewGauge(prometheus.GaugeOpts{Name: "rgnn_serve_inflight_requests", Help: "Requests in flight."})
	m.graphVersion = prometheus.NewGauge(prometheus.GaugeOpts{Name: "rgnn_serve_graph_version",
		Help: "Latest graph version written to the log (acknowledged)."})
	m.served = prometheus.NewGauge(prometheus.GaugeOpts{Name: "rgnn_serve_served_version",
		Help: "Graph version whose predictions are served."})
	m.lagVersions = prometheus.NewGauge(prometheus.GaugeOpts{Name: "rgnn_serve_update_lag_versions",
		Help: "Acknowledged versions not yet served."})
	m.updateLag = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "rgnn_serve_update_lag_seconds",
		Help: "Time from an update's acknowledgement to predictions of its version.", Buckets: lat})
	m.walSync = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "rgnn_serve_wal_append_seconds",
		Help: "Time to append and fsync an update to the write-ahead log.", Buckets: lat})
	m.pprRows = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "rgnn_serve_ppr_rows_recomputed",
		Help: "Push-PPR rows recomputed per applied batch of updates.", Buckets: prometheus.ExponentialBuckets(1, 4, 10)})
	m.certVersion = prometheus.NewGauge(prometheus.GaugeOpts{Name: "rgnn_serve_certified_version",
		Help: "Graph version of the current certificates (-1: none yet)."})
	m.certAge = prometheus.NewGauge(prometheus.GaugeOpts{Name: "rgnn_serve_certificate_age_seconds",
		Help: "Seconds since the certified graph version was superseded (0: current)."})
	m.certAgeVers = prometheus.NewGauge(prometheus.GaugeOpts{Name: "rgnn_serve_certificate_age_versions",
		Help: "Graph versions since the certified one."})
	m.certSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "rgnn_serve_certificate_job_seconds",
		Help: "Duration of a background certificate job.", Buckets: prometheus.ExponentialBuckets(0.5, 2, 14)})
	m.alerts = prometheus.NewCounter(prometheus.CounterOpts{Name: "rgnn_serve_alerts_total",
		Help: "Alerts raised: updates near a node whose certified radius they may exceed."})
	m.lazyNodes = prometheus.NewCounter(prometheus.CounterOpts{Name: "rgnn_serve_lazy_predicted_nodes_total",
		Help: "Nodes whose logits a prediction computed itself: its version's layers had not run on every node yet (--fill-delay)."})
	m.nodes = prometheus.NewGauge(prometheus.GaugeOpts{Name: "rgnn_serve_nodes", Help: "Nodes of the latest graph version."})
	m.edges = prometheus.NewGauge(prometheus.GaugeOpts{Name: "rgnn_serve_edges", Help: "Undirected edges of the latest graph version."})
	m.certVersion.Set(-1)
	m.reg.MustRegister(m.latency, m.rejected, m.inflight, m.graphVersion, m.served, m.lagVersions, m.updateLag,
		m.walSync, m.pprRows, m.certVersion, m.certAge, m.certAgeVers, m.certSeconds, m.alerts, m.lazyNodes, m.nodes, m.edges,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}
