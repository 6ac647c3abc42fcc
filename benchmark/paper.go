package benchmark

// paperRuntimes is the paper's Table 1 (the runtimes): ms per training epoch (200 epochs,
// preprocessing counted once) on one GeForce GTX 1080 Ti, without and with
// GDC. Keys: dataset, architecture; values: {without, with}; 0 = "-" (OOM).
// PubMed's figures are shown next to pubmed_synthetic, which has its shape.
var paperRuntimes = map[string]map[string][2]float64{
	"cora_ml": {
		"sm_gcn": {41.2, 210.9}, "svd_gcn": {119.4, 120.8}, "jaccard_gcn": {19.1, 147.8},
		"rgcn": {8.7, 7.5}, "gcn": {5.1, 7.1}, "gat": {15.2, 65.6},
	},
	"citeseer": {
		"sm_gcn": {36.6, 154.1}, "svd_gcn": {66.3, 67.3}, "jaccard_gcn": {11.2, 118.0},
		"rgcn": {6.3, 9.3}, "gcn": {4.7, 7.8}, "gat": {11.8, 53.3},
	},
	PubMedLikeName: {
		"sm_gcn": {86.0, 497.8}, "svd_gcn": {0, 0}, "jaccard_gcn": {84.9, 585.4},
		"rgcn": {135.5, 136.6}, "gcn": {6.0, 66.1}, "gat": {46.4, 270.8},
	},
}

func paperMs(dataset, arch string, gdc bool) float64 {
	v := paperRuntimes[dataset][arch]
	if gdc {
		return v[1]
	}
	return v[0]
}
