package bridge

import (
	"bufio"
	"bytes"
	"testing"

	"github.com/rgnn/rgnn/npz"
)

// FuzzReadMessage: any byte stream from a model either decodes into
// messages whose predict replies are checked (classes inside the class
// count, logits of the announced shape) or ends in an error; never a panic,
// never an allocation the stream's header alone demands beyond the limit.
func FuzzReadMessage(f *testing.F) {
	var seed bytes.Buffer
	WriteMessage(&seed, Header{Type: "ready", Version: Version, Fit: true})
	WriteMessage(&seed, Header{Type: "logits", ID: 1}, npz.F32("logits", []int{1, 3, 2}, []float32{1, 2, 3, 4, 5, 6}))
	WriteMessage(&seed, Header{Type: "classes", ID: 2}, npz.I64("classes", []int{2, 3}, []int64{0, 1, 1, 0, 0, 1}))
	WriteMessage(&seed, Header{Type: "error", ID: 3, Message: "boom"})
	f.Add(seed.Bytes())
	f.Add([]byte("{\"type\":\"logits\",\"id\":1,\"arrays\":[\"logits\"]}\n\x93NUMPY\x01\x00\x10\x00{'descr':'<f4'}\n"))
	f.Add([]byte("not json\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bufio.NewReader(bytes.NewReader(b))
		for range 8 {
			m, err := ReadMessage(r, 1<<20)
			if err != nil {
				return
			}
			for _, g := range []int{1, 2} {
				preds, err := DecodePredictions(m, g, 3, 2)
				if err != nil {
					continue
				}
				if len(preds) != g {
					t.Fatalf("%d predictions for %d graphs", len(preds), g)
				}
				for _, p := range preds {
					if len(p.Classes) != 3 {
						t.Fatalf("%d classes for 3 nodes", len(p.Classes))
					}
					for _, c := range p.Classes {
						if c < 0 || c >= 2 {
							t.Fatalf("class %d", c)
						}
					}
					if p.Logits != nil && (p.Logits.Rows != 3 || p.Logits.Cols != 2 || len(p.Logits.Data) != 6) {
						t.Fatalf("logits %d×%d", p.Logits.Rows, p.Logits.Cols)
					}
				}
			}
		}
	})
}
