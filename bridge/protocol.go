package bridge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/rgnn/rgnn/npz"
	"github.com/rgnn/rgnn/tensor"
)

// Version is the protocol version rgnn speaks (the hello's "version").
const Version = 1

// maxHeaderBytes bounds a header line.
const maxHeaderBytes = 1 << 20

// Header is a message's header line (one JSON object). Unknown fields are
// ignored, so later versions can add some.
type Header struct {
	Type     string `json:"type"`
	Version  int    `json:"version,omitempty"`
	ID       int    `json:"id,omitempty"`
	Nodes    int    `json:"nodes,omitempty"`
	Features int    `json:"features,omitempty"`
	Classes  int    `json:"classes,omitempty"`
	Graphs   int    `json:"graphs,omitempty"`
	// Fit (in ready) says the model fits itself when sent a fit message.
	Fit     bool   `json:"fit,omitempty"`
	Name    string `json:"name,omitempty"`
	Message string `json:"message,omitempty"`
	// Arrays names the .npy arrays that follow the line, in order.
	Arrays []string `json:"arrays,omitempty"`
}

// Message is a header and its arrays.
type Message struct {
	Header
	Arrays map[string]*npz.Array
}

// WriteMessage writes h (its Arrays set from the entries' names) and the
// entries as .npy arrays.
func WriteMessage(w io.Writer, h Header, arrays ...npz.Entry) error {
	h.Arrays = nil
	for _, e := range arrays {
		h.Arrays = append(h.Arrays, e.Name)
	}
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if _, err := w.Write(b); err != nil {
		return err
	}
	for _, e := range arrays {
		if err := npz.WriteNpy(w, e); err != nil {
			return err
		}
	}
	return nil
}

// ReadMessage reads one message: a header line and the arrays it names,
// each at most maxBytes of data (≤ 0: no limit). io.EOF means the stream
// ended before a message began.
func ReadMessage(r *bufio.Reader, maxBytes int64) (*Message, error) {
	line, err := readLine(r)
	if err != nil {
		return nil, err
	}
	var m Message
	if err := json.Unmarshal(line, &m.Header); err != nil {
		return nil, fmt.Errorf("header line %q is not a JSON object: %v", clip(line), err)
	}
	if m.Type == "" {
		return nil, fmt.Errorf("header line %q has no \"type\"", clip(line))
	}
	if len(m.Header.Arrays) > 16 {
		return nil, fmt.Errorf("header announces %d arrays", len(m.Header.Arrays))
	}
	m.Arrays = map[string]*npz.Array{}
	for _, name := range m.Header.Arrays {
		if _, dup := m.Arrays[name]; dup {
			return nil, fmt.Errorf("array %q announced twice", name)
		}
		a, err := npz.ReadNpy(r, name, maxBytes)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("%w (the stream ended inside the message)", err)
			}
			return nil, fmt.Errorf("%s message: %w", m.Type, err)
		}
		m.Arrays[name] = a
	}
	return &m, nil
}

// readLine reads a line of at most maxHeaderBytes (without its newline).
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		b, err := r.ReadSlice('\n')
		line = append(line, b...)
		if len(line) > maxHeaderBytes {
			return nil, fmt.Errorf("header line longer than %d bytes (is the model printing to stdout? print to stderr)", maxHeaderBytes)
		}
		switch {
		case err == nil:
			return bytes.TrimRight(line, "\r\n"), nil
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(line) == 0:
			return nil, io.EOF
		case err == io.EOF:
			return nil, fmt.Errorf("stream ended inside the header line %q", clip(line))
		default:
			return nil, err
		}
	}
}

func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// array returns the named array of m or an error.
func (m *Message) array(name string) (*npz.Array, error) {
	a, ok := m.Arrays[name]
	if !ok {
		return nil, fmt.Errorf("%s message without the array %q (arrays: %v)", m.Type, name, m.Header.Arrays)
	}
	return a, nil
}

// Prediction is the outside model's output for one graph: every node's
// class and, when the model sent logits (or scores), the n×C logits.
type Prediction struct {
	Classes []int32
	Logits  *tensor.Dense // nil when the model sent classes only
}

// DecodePredictions checks a reply to a predict request for graphs graphs
// of nodes nodes and classes classes: "logits" [B, N, C] (any float or
// integer dtype; NaN is an error) or "classes" [B, N] (integers in [0, C)).
// Classes are the first maximum of each row of logits, as numpy's and
// torch's argmax.
func DecodePredictions(m *Message, graphs, nodes, classes int) ([]Prediction, error) {
	out := make([]Prediction, graphs)
	switch m.Type {
	case "logits":
		a, err := m.array("logits")
		if err != nil {
			return nil, err
		}
		if want := []int{graphs, nodes, classes}; !shapeIs(a.Shape, want) && !(graphs == 1 && shapeIs(a.Shape, want[1:])) {
			return nil, fmt.Errorf("logits of shape %v, want %v", a.Shape, want)
		}
		if a.Kind() == 'b' {
			return nil, errors.New("boolean logits")
		}
		v := a.Float32()
		for b := range graphs {
			d := &tensor.Dense{Rows: nodes, Cols: classes, Data: v[b*nodes*classes : (b+1)*nodes*classes]}
			cl := make([]int32, nodes)
			for i := range nodes {
				row := d.Data[i*classes : (i+1)*classes]
				best := 0
				for c, x := range row {
					if math.IsNaN(float64(x)) {
						return nil, fmt.Errorf("graph %d, node %d: logit %d is NaN", b, i, c)
					}
					if x > row[best] {
						best = c
					}
				}
				cl[i] = int32(best)
			}
			out[b] = Prediction{Classes: cl, Logits: d}
		}
	case "classes":
		a, err := m.array("classes")
		if err != nil {
			return nil, err
		}
		if want := []int{graphs, nodes}; !shapeIs(a.Shape, want) && !(graphs == 1 && shapeIs(a.Shape, want[1:])) {
			return nil, fmt.Errorf("classes of shape %v, want %v", a.Shape, want)
		}
		if a.Kind() == 'f' {
			return nil, errors.New("float classes: send integer class numbers (or the logits)")
		}
		v, err := a.Int64()
		if err != nil {
			return nil, err
		}
		for b := range graphs {
			cl := make([]int32, nodes)
			for i, c := range v[b*nodes : (b+1)*nodes] {
				if c < 0 || c >= int64(classes) {
					return nil, fmt.Errorf("graph %d, node %d: class %d outside [0, %d)", b, i, c, classes)
				}
				cl[i] = int32(c)
			}
			out[b] = Prediction{Classes: cl}
		}
	default:
		return nil, fmt.Errorf("reply of type %q to a predict request (want logits, classes or error)", m.Type)
	}
	return out, nil
}

func shapeIs(got, want []int) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

// Graph is one graph of a request: an adjacency (symmetric, every edge
// sent in both directions) and, when they differ from the hello's, its
// features.
type Graph struct {
	Adj      *tensor.CSR
	Features *tensor.CSR // nil: the base features
}

// edgeArrays returns edge_index [2, E] and edge_ptr [B+1] of graphs.
func edgeArrays(graphs []Graph) (npz.Entry, npz.Entry) {
	total := 0
	for _, g := range graphs {
		total += g.Adj.Nnz()
	}
	ei := make([]int64, 2*total)
	ptr := make([]int64, len(graphs)+1)
	k := 0
	for b, g := range graphs {
		for r := range g.Adj.Rows {
			lo, hi := g.Adj.RowRange(r)
			for _, c := range g.Adj.Indices[lo:hi] {
				ei[k], ei[total+k] = int64(r), int64(c)
				k++
			}
		}
		ptr[b+1] = int64(k)
	}
	return npz.I64("edge_index", []int{2, total}, ei), npz.I64("edge_ptr", []int{len(ptr)}, ptr)
}

// featureArrays returns x_index [2, nnz], x_value [nnz] of x.
func featureArrays(x *tensor.CSR) (npz.Entry, npz.Entry) {
	nnz := x.Nnz()
	idx := make([]int64, 2*nnz)
	for r := range x.Rows {
		lo, hi := x.RowRange(r)
		for k := lo; k < hi; k++ {
			idx[k], idx[nnz+k] = int64(r), int64(x.Indices[k])
		}
	}
	return npz.I64("x_index", []int{2, nnz}, idx), npz.F32("x_value", []int{nnz}, x.Values)
}

// batchFeatureArrays returns x_index, x_value and x_ptr of every graph's
// features (the base features where a graph has none of its own).
func batchFeatureArrays(graphs []Graph, base *tensor.CSR) []npz.Entry {
	total := 0
	feats := make([]*tensor.CSR, len(graphs))
	for b, g := range graphs {
		feats[b] = g.Features
		if feats[b] == nil {
			feats[b] = base
		}
		total += feats[b].Nnz()
	}
	idx := make([]int64, 2*total)
	val := make([]float32, 0, total)
	ptr := make([]int64, len(graphs)+1)
	k := 0
	for b, x := range feats {
		for r := range x.Rows {
			lo, hi := x.RowRange(r)
			for j := lo; j < hi; j++ {
				idx[k], idx[total+k] = int64(r), int64(x.Indices[j])
				k++
			}
		}
		val = append(val, x.Values...)
		ptr[b+1] = int64(k)
	}
	return []npz.Entry{npz.I64("x_index", []int{2, total}, idx), npz.F32("x_value", []int{total}, val), npz.I64("x_ptr", []int{len(ptr)}, ptr)}
}
