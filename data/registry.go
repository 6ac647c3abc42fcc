package data

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/rgnn/rgnn/data/unittest"
)

// Info describes a dataset file.
type Info struct {
	Name   string // registry name, e.g. "cora_ml"
	File   string // file name in the data directory
	URL    string // canonical public download URL
	SHA256 string // hex checksum of the file
	Source string // where the file comes from
	// OGB is set for OGB node-property datasets, which are a folder in
	// OGB's layout (File is then the zip OGB serves, SHA256 empty: OGB
	// publishes none, the first download's is recorded beside the data).
	OGB *OGBInfo
	// Shape, for a file without a known SHA256, is what it must hold after
	// standardisation (largest connected component): the first download is
	// checked against it and its sha256 recorded beside it (File + ".sha256").
	Shape *Shape
	// PaperK is the top-k the paper uses for this dataset's Soft Medoid and
	// GDC models (0: the default, 64).
	PaperK int
	// Aux marks a file that is not a graph (the robustness unit test):
	// fetched like a dataset, never loaded as one. Names leaves it out.
	Aux bool
	// Check, for a file without a known SHA256, judges its contents before
	// its first sha256 is recorded (as Shape does for a graph).
	Check func(path string) error
}

// Shape is the size of a standardised dataset, as a paper's dataset table
// gives it.
type Shape struct {
	Nodes, Edges, Features, Classes int // Edges: undirected
}

// registry lists the datasets; the only place a dataset is named.
var registry = map[string]Info{
	"cora_ml": {Name: "cora_ml", File: "cora_ml.npz",
		URL:    "https://raw.githubusercontent.com/sigeisler/reliable_gnn_via_robust_aggregation/main/data/cora_ml.npz",
		SHA256: "46b98cabc9c22c09de0d30140fbf68d004b21d2f05e234feb96ba6e84ec7c86a",
		Source: "sigeisler/reliable_gnn_via_robust_aggregation data/cora_ml.npz"},
	"citeseer": {Name: "citeseer", File: "citeseer.npz",
		URL:    "https://raw.githubusercontent.com/sigeisler/reliable_gnn_via_robust_aggregation/main/data/citeseer.npz",
		SHA256: "8d8aa684f48b8f6d9103b5c58a538cd34ef6af58c70dab4d8ad851f1e67161b1",
		Source: "sigeisler/reliable_gnn_via_robust_aggregation data/citeseer.npz"},
	"cora": {Name: "cora", File: "cora.npz",
		URL:    "https://raw.githubusercontent.com/danielzuegner/gnn-meta-attack/master/data/cora.npz",
		SHA256: "398a5c8f949a4f2a3c8fb248f777d2756c654de714762d6a18c04eaa19a96271",
		Source: "danielzuegner/gnn-meta-attack data/cora.npz"},
	"polblogs": {Name: "polblogs", File: "polblogs.npz",
		URL:    "https://raw.githubusercontent.com/danielzuegner/gnn-meta-attack/master/data/polblogs.npz",
		SHA256: "cd0983c2b1caa3bbe2703a4e316f97bb1dccd33f98800d3d8e4bbe51cc86941b",
		Source: "danielzuegner/gnn-meta-attack data/polblogs.npz"},
	// The reference's PubMed (its sha256 is not known here: the file was
	// not in the snapshots we had; the first download's is recorded),
	// checked against the paper's dataset table: largest connected component
	// 19,717 nodes, 88,648 directed = 44,324 undirected edges, 500 features,
	// 3 classes.
	"pubmed": {Name: "pubmed", File: "pubmed.npz",
		URL:    "https://raw.githubusercontent.com/sigeisler/reliable_gnn_via_robust_aggregation/main/data/pubmed.npz",
		Source: "sigeisler/reliable_gnn_via_robust_aggregation data/pubmed.npz",
		Shape:  &Shape{Nodes: 19_717, Edges: 44_324, Features: 500, Classes: 3}, PaperK: 32},
	"ogbn-arxiv": {Name: "ogbn-arxiv", File: "arxiv.zip",
		URL:    "http://snap.stanford.edu/ogb/data/nodeproppred/arxiv.zip",
		Source: "Open Graph Benchmark ogbn-arxiv (Hu et al., 2020)",
		OGB:    &OGBInfo{Dir: "ogbn_arxiv", Split: "time", Nodes: 169_343, Edges: 1_166_243, Year: true}},
	// The black-box robustness unit test of Mujkanovic et al. (NeurIPS
	// 2022): its sha256 is not published; the first download must hold the
	// published datasets, splits, scenarios and models (CheckPublished).
	"unit_test": {Name: "unit_test", File: "unit_test.npz", Aux: true,
		URL:    "https://github.com/LoadingByte/are-gnn-defenses-robust/raw/master/unit_test/unit_test.npz",
		Source: "LoadingByte/are-gnn-defenses-robust unit_test/unit_test.npz (Mujkanovic et al., 2022)",
		Check:  checkUnitTest},
	"ogbn-products": {Name: "ogbn-products", File: "products.zip",
		URL:    "http://snap.stanford.edu/ogb/data/nodeproppred/products.zip",
		Source: "Open Graph Benchmark ogbn-products (Hu et al., 2020)",
		OGB:    &OGBInfo{Dir: "ogbn_products", Split: "sales_ranking", Nodes: 2_449_029, Edges: 61_859_140}},
}

// Lookup returns the registry entry of a dataset.
func Lookup(name string) (Info, error) {
	info, ok := registry[name]
	if !ok {
		return Info{}, fmt.Errorf("unknown dataset %q (known: %v)", name, Names())
	}
	return info, nil
}

// Names lists the registered datasets (graphs).
func Names() []string {
	names := make([]string, 0, len(registry))
	for n, info := range registry {
		if !info.Aux {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// FetchNames lists everything `rgnn data fetch` downloads: the datasets
// and the auxiliary files (the robustness unit test).
func FetchNames() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// checkUnitTest checks a downloaded robustness unit test.
func checkUnitTest(path string) error {
	f, err := unittest.Open(path)
	if err != nil {
		return err
	}
	return f.CheckPublished()
}

// ResolveDir returns the data directory: flag if set, else $RGNN_DATA_DIR,
// else <user cache dir>/rgnn/datasets.
func ResolveDir(flag string) (string, error) {
	p, _, err := resolveDir(flag)
	return p.dir, err
}

// place is a directory datasets may be read from and what chose it.
type place struct{ dir, from string }

func (p place) String() string { return p.from + " (" + p.dir + ")" }

// resolveDir returns the data directory ResolveDir picks and the places
// that apply but come after it (so are not looked in).
func resolveDir(flag string) (place, []place, error) {
	var all []place
	if flag != "" {
		all = append(all, place{flag, "--data-dir"})
	}
	if d := os.Getenv("RGNN_DATA_DIR"); d != "" {
		all = append(all, place{d, "$RGNN_DATA_DIR"})
	}
	if c, err := os.UserCacheDir(); err == nil {
		all = append(all, place{filepath.Join(c, "rgnn", "datasets"), "the user cache dir"})
	}
	if len(all) == 0 {
		return place{}, nil, errors.New("no data directory: pass --data-dir or set RGNN_DATA_DIR")
	}
	return all[0], all[1:], nil
}
