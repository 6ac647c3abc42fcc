package serve

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rgnn/rgnn/tensor"
)

// BenchmarkPredict: the predict handler on 8 nodes of a 2,810×7 logit
// table (allocations per request).
func BenchmarkPredict(b *testing.B) {
	d := tensor.NewDense(2810, 7)
	for i := range d.Data {
		d.Data[i] = float32(i%13) - 6
	}
	s := &Server{}
	s.served.Store(&servedState{version: 1, logits: tableFrom(d), nodes: d.Rows})
	body := `{"nodes":[1,20,300,4000,5,600,70,2800]}`
	body = strings.Replace(body, "4000", "400", 1)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		s.handlePredict(rec, httptest.NewRequest("POST", "/v1/predict", strings.NewReader(body)))
		if rec.Code != 200 {
			b.Fatal(rec.Code, rec.Body)
		}
	}
}

// TestPredictAnswerJSON: the predict handler writes what encoding/json
// writes for predictAnswer, with and without logits, for logits of every
// magnitude (exponent forms included).
func TestPredictAnswerJSON(t *testing.T) {
	d := tensor.NewDense(5, 4)
	copy(d.Data, []float32{0, -1e-9, 3.5e21, -2, 1, 2, 3, 4, -50, -1e-7, 0.1, 7, -800, -0.5, 1e-6, 2e-38, 9, 9, 9, 9})
	s := &Server{}
	s.served.Store(&servedState{version: 7, logits: tableFrom(d), nodes: d.Rows})
	for _, logits := range []bool{false, true} {
		body := fmt.Sprintf(`{"nodes":[4,0,1,2,3,1],"logits":%v}`, logits)
		rec := httptest.NewRecorder()
		s.handlePredict(rec, httptest.NewRequest("POST", "/v1/predict", strings.NewReader(body)))
		want := predictAnswer{Version: 7}
		for _, u := range []int{4, 0, 1, 2, 3, 1} {
			z := d.Data[u*4 : (u+1)*4]
			p := prediction{Node: u, Class: argmax(z), Probabilities: softmaxInto(nil, z)}
			if logits {
				p.Logits = z
			}
			want.Predictions = append(want.Predictions, p)
		}
		raw, _ := json.Marshal(want)
		if got := rec.Body.String(); got != string(raw)+"\n" || rec.Code != 200 {
			t.Fatalf("%d %s\nwant %s", rec.Code, got, raw)
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
			t.Fatalf("Content-Type %q", ct)
		}
	}
}
