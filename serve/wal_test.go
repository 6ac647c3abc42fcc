package serve

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gopkg.in/yaml.v3"
)

var testID = GraphID{Dataset: "toy", Nodes: 4, Edges: 2, Features: 3, Digest: "abc"}

func writeLog(t *testing.T, dir string, n int) int64 {
	t.Helper()
	w, recs, _, err := openWAL(dir, testID)
	if err != nil || len(recs) != 0 {
		t.Fatalf("new log: %v, %d records", err, len(recs))
	}
	for v := 1; v <= n; v++ {
		if err := w.append(Record{Version: uint64(v), Kind: "edges", Add: [][2]int32{{0, int32(v)}}}); err != nil {
			t.Fatal(err)
		}
	}
	size := w.size
	w.close()
	return size
}

// TestWALReplayTornTail: a log whose last record was cut short, or whose
// last record's bytes were damaged, replays every whole record before it and
// is truncated there, so the next append follows them; a log of another
// graph is refused.
func TestWALReplayTornTail(t *testing.T) {
	for _, damage := range []string{"none", "cut", "crc", "length", "magic-only"} {
		t.Run(damage, func(t *testing.T) {
			dir := t.TempDir()
			size := writeLog(t, dir, 5)
			path := filepath.Join(dir, walFile)
			want := 5
			switch damage {
			case "cut":
				os.Truncate(path, size-3)
				want = 4
			case "crc":
				b, _ := os.ReadFile(path)
				b[len(b)-2] ^= 0xff
				os.WriteFile(path, b, 0o644)
				want = 4
			case "length":
				f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
				f.Write([]byte{0xff, 0xff, 0xff, 0x7f, 1, 2, 3, 4, 5})
				f.Close()
			case "magic-only":
				os.WriteFile(path, []byte(walMagic[:5]), 0o644)
				want = 0
			}
			w, recs, torn, err := openWAL(dir, testID)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != want {
				t.Fatalf("replayed %d records, want %d (torn %d bytes)", len(recs), want, torn)
			}
			for i, r := range recs {
				if r.Version != uint64(i+1) || !slices.Equal(r.Add, [][2]int32{{0, int32(i + 1)}}) {
					t.Fatalf("record %d: %+v", i, r)
				}
			}
			if damage != "none" && torn == 0 {
				t.Errorf("nothing cut off")
			}
			// The next append follows the last whole record.
			if err := w.append(Record{Version: uint64(want + 1), Kind: "edges"}); err != nil {
				t.Fatal(err)
			}
			w.close()
			_, recs, torn, err = openWAL(dir, testID)
			if err != nil || len(recs) != want+1 || torn != 0 {
				t.Fatalf("after an append: %d records, torn %d, %v", len(recs), torn, err)
			}
		})
	}
	dir := t.TempDir()
	writeLog(t, dir, 1)
	other := testID
	other.Digest = "def"
	if _, _, _, err := openWAL(dir, other); err == nil {
		t.Error("a log of another graph was replayed")
	}
}

// TestOpenAPIListsEndpoints: docs/openapi.yaml documents exactly the
// served paths.
func TestOpenAPIListsEndpoints(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for p := range doc.Paths {
		got = append(got, p)
	}
	want := slices.Clone(Endpoints)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("openapi.yaml documents %v, the server serves %v", got, want)
	}
}
