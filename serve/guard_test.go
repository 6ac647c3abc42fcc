package serve

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestGuardInFlight: beyond MaxInFlight requests a request is refused with
// 503 and Retry-After, and counted; below it the handler runs.
func TestGuardInFlight(t *testing.T) {
	s := &Server{opts: Options{}.Defaults(), met: newMetrics(), inflight: make(chan struct{}, 1)}
	ran := 0
	h := s.guard("predict", http.MethodPost, func(w http.ResponseWriter, r *http.Request) { ran++ })
	s.inflight <- struct{}{} // one request in flight
	rec := httptest.NewRecorder()
	h(rec, httptest.NewRequest("POST", "/v1/predict", strings.NewReader(`{}`)))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || ran != 0 {
		t.Fatalf("full: %d, Retry-After %q, handler ran %d times", rec.Code, rec.Header().Get("Retry-After"), ran)
	}
	if !strings.Contains(rec.Body.String(), `"error"`) {
		t.Errorf("503 body %q", rec.Body)
	}
	<-s.inflight
	rec = httptest.NewRecorder()
	h(rec, httptest.NewRequest("POST", "/v1/predict", strings.NewReader(`{}`)))
	if ran != 1 || len(s.inflight) != 0 {
		t.Fatalf("after the slot freed: handler ran %d times, %d in flight", ran, len(s.inflight))
	}
}

// TestOptionsValidate: bad options are errors naming the option.
func TestOptionsValidate(t *testing.T) {
	ok := Options{}.Defaults()
	ok.State = "st"
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(*Options){
		"listen":       func(o *Options) { o.Listen = "8080" },
		"state":        func(o *Options) { o.State = "" },
		"tls_cert":     func(o *Options) { o.TLSCert = "c.pem" },
		"max_body":     func(o *Options) { o.MaxBody = 10 },
		"max_inflight": func(o *Options) { o.MaxInFlight = 0 },
		"max_wait":     func(o *Options) { o.MaxWait = -1 },
		"cert_workers": func(o *Options) { o.CertWorkers = 0 },
		"fill_delay":   func(o *Options) { o.FillDelay = 0 },
	} {
		o := ok
		f(&o)
		err := o.Validate()
		oe, isOpt := err.(*OptionError)
		if !isOpt || oe.Param != name {
			t.Errorf("%s: %v", name, err)
		}
	}
}
