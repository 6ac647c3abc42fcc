package report

import "fmt"

// Transcribed from the paper's LaTeX source (tables tab:results,
// tab:appendix_results, tab:appendix_global and tab:appendix_nettack of
// Geisler, Zügner and Günnemann, NeurIPS 2020) by a script, spot-checked
// against that source; edit only to correct a transcription. A row is a
// model, with the row's numbers for each dataset side by side. Tables are
// numbered as the paper numbers them (the order of their captions):
// Table 1 the runtimes, Table 2 the certificates (tab:results), Table 4
// Nettack, Table 5 the global attacks, Table 6 the appendix's certificates.
// Every number the paper prints is a cell, also where two tables print the
// same one: Table 2's accumulated certifications are Table 6's means (its
// own accuracy column differs: GDC 0.835 in Table 2, 0.825 in Table 6), so
// those cells take Table 6's standard errors and get the same verdicts.

// paperTables are the paper's tables, a row a model (Table 2 in three
// parts: its radii, its accuracy column, its accumulated certifications).
// paperNumbers lists their cells, table by table, dataset by dataset, row
// by row, column by column.
var paperTables = []paperTable{
	{"Table 2", []string{"radius_add", "radius_del"}, 0, []paperRow{
		{modelKey{Model: "gcn"}, nums{0.25, 5.37}, nums{0.16, 5.48}, nil},
		{modelKey{Model: "gdc"}, nums{0.25, 5.25}, nil, nil},
		{modelKey{Model: "appnp"}, nums{0.47, 5.53}, nil, nil},
		{modelKey{Model: "gat"}, nums{0.09, 5.02}, nil, nil},
		{modelKey{Model: "svd_gcn"}, nums{0.11, 3.14}, nums{0, 3.25}, nil},
		{modelKey{Model: "jaccard_gcn"}, nums{0.02, 5.43}, nums{0.06, 5.57}, nil},
		{modelKey{Model: "rgcn"}, nums{0.15, 5.03}, nums{0.12, 5.44}, nil},
		{modelKey{Model: "sm_gcn", T: 50}, nums{0.25, 5.41}, nil, nil},
		{modelKey{Model: "dimmedian_gdc"}, nums{0.41, 5.71}, nil, nil},
		{modelKey{Model: "medoid_gdc"}, nums{0.73, 6.28}, nil, nil},
		{modelKey{Model: "sm_gdc", T: 1}, nums{0.66, 5.7}, nums{0.45, 5.77}, nil},
		{modelKey{Model: "sm_gdc", T: 0.5}, nums{0.79, 5.98}, nums{0.69, 5.94}, nil},
		{modelKey{Model: "sm_gdc", T: 0.2}, nums{0.89, 6.31}, nums{0.89, 6.32}, nil},
	}},
	{"Table 2", []string{"accuracy"}, 0, []paperRow{
		{modelKey{Model: "gcn"}, nums{0.823}, nums{0.71}, nil},
		{modelKey{Model: "gdc"}, nums{0.835}, nil, nil},
		{modelKey{Model: "appnp"}, nums{0.841}, nil, nil},
		{modelKey{Model: "gat"}, nums{0.806}, nil, nil},
		{modelKey{Model: "svd_gcn"}, nums{0.772}, nums{0.639}, nil},
		{modelKey{Model: "jaccard_gcn"}, nums{0.775}, nums{0.711}, nil},
		{modelKey{Model: "rgcn"}, nums{0.793}, nums{0.719}, nil},
		{modelKey{Model: "sm_gcn", T: 50}, nums{0.823}, nil, nil},
		{modelKey{Model: "dimmedian_gdc"}, nums{0.801}, nil, nil},
		{modelKey{Model: "medoid_gdc"}, nums{0.724}, nil, nil},
		{modelKey{Model: "sm_gdc", T: 1}, nums{0.823}, nums{0.711}, nil},
		{modelKey{Model: "sm_gdc", T: 0.5}, nums{0.795}, nums{0.709}, nil},
		{modelKey{Model: "sm_gdc", T: 0.2}, nums{0.77}, nums{0.702}, nil},
	}},
	{"Table 2", []string{"cert_add_del", "cert_add", "cert_del"}, 0, []paperRow{
		{modelKey{Model: "gcn"}, nums{1.84, 0.21, 4.42}, nums{1.24, 0.11, 3.88}, nil},
		{modelKey{Model: "gdc"}, nums{1.98, 0.2, 4.33}, nil, nil},
		{modelKey{Model: "appnp"}, nums{3.37, 0.39, 4.61}, nil, nil},
		{modelKey{Model: "gat"}, nums{1.26, 0.07, 4.03}, nil, nil},
		{modelKey{Model: "svd_gcn"}, nums{0.84, 0.08, 2.39}, nums{0.52, 0, 2.12}, nil},
		{modelKey{Model: "jaccard_gcn"}, nums{0.86, 0.01, 4.39}, nums{1.42, 0.04, 3.96}, nil},
		{modelKey{Model: "rgcn"}, nums{1.46, 0.12, 3.99}, nums{1.12, 0.09, 3.89}, nil},
		{modelKey{Model: "sm_gcn", T: 50}, nums{1.86, 0.21, 4.44}, nil, nil},
		{modelKey{Model: "dimmedian_gdc"}, nums{2.38, 0.32, 4.61}, nil, nil},
		{modelKey{Model: "medoid_gdc"}, nums{4.05, 0.51, 4.62}, nil, nil},
		{modelKey{Model: "sm_gdc", T: 1}, nums{4.31, 0.52, 4.71}, nums{2.67, 0.32, 4.12}, nil},
		{modelKey{Model: "sm_gdc", T: 0.5}, nums{5.07, 0.6, 4.8}, nums{3.62, 0.48, 4.22}, nil},
		{modelKey{Model: "sm_gdc", T: 0.2}, nums{5.6, 0.66, 4.91}, nums{4.69, 0.6, 4.44}, nil},
	}},
	{"Table 6", []string{"cert_attr_add_del", "cert_add_del", "cert_add", "cert_del", "accuracy", "smooth_accuracy"}, 3, []paperRow{
		{modelKey{Model: "gcn"}, nums{5.73, 0.23, 1.84, 0.01, 0.21, 0, 4.42, 0.01, 0.823, 0.006, 0.816, 0.006}, nums{4.43, 0.21, 1.24, 0.1, 0.11, 0.01, 3.88, 0.17, 0.712, 0.008, 0.712, 0.009}, nums{4.4, 0.2, 3.23, 0.17, 0.22, 0.02, 4.19, 0.06, 0.76, 0.026, 0.744, 0.031}},
		{modelKey{Model: "gdc"}, nums{5.8, 0.06, 1.98, 0.04, 0.2, 0, 4.33, 0.02, 0.825, 0.007, 0.824, 0.007}, nums{5.21, 0.22, 1.13, 0.1, 0.09, 0.01, 3.85, 0.13, 0.703, 0.007, 0.701, 0.007}, nums{4.32, 0.11, 3.1, 0.04, 0.24, 0.01, 4.05, 0.15, 0.764, 0.034, 0.749, 0.039}},
		{modelKey{Model: "appnp"}, nums{5.57, 0.04, 3.37, 0.02, 0.39, 0.01, 4.61, 0, 0.836, 0.008, 0.837, 0.008}, nums{5.08, 0.04, 2.21, 0.06, 0.23, 0.01, 4.16, 0.04, 0.724, 0.005, 0.723, 0.004}, nil},
		{modelKey{Model: "gat"}, nums{5.83, 0.09, 1.26, 0.09, 0.07, 0.01, 4.03, 0.07, 0.804, 0.002, 0.807, 0.004}, nums{3.6, 0.34, 0.66, 0.13, 0.02, 0.01, 3.24, 0.48, 0.652, 0.034, 0.634, 0.044}, nil},
		{modelKey{Model: "svd_gcn"}, nums{5.51, 0.14, 0.84, 0.09, 0.08, 0.02, 2.39, 0.04, 0.772, 0.008, 0.772, 0.007}, nums{3.46, 0.13, 0.52, 0.11, 0, 0, 2.12, 0.07, 0.638, 0.015, 0.634, 0.016}, nil},
		{modelKey{Model: "jaccard_gcn"}, nums{5.59, 0.15, 0.86, 0.1, 0.01, 0.01, 4.39, 0, 0.777, 0.003, 0.778, 0.003}, nums{3.09, 0.19, 1.42, 0.1, 0.04, 0.04, 3.96, 0.14, 0.711, 0.013, 0.712, 0.012}, nil},
		{modelKey{Model: "rgcn"}, nums{4.64, 0.07, 1.46, 0.03, 0.12, 0.01, 3.99, 0.08, 0.796, 0.007, 0.802, 0.005}, nums{4.27, 0.18, 1.12, 0.05, 0.09, 0.01, 3.89, 0.11, 0.719, 0.012, 0.718, 0.009}, nil},
		{modelKey{Model: "sm_gcn", T: 50}, nums{5.68, 0.05, 1.86, 0.03, 0.21, 0, 4.44, 0.02, 0.823, 0.003, 0.825, 0.003}, nums{4.4, 0.26, 1.25, 0.1, 0.11, 0.01, 3.9, 0.17, 0.711, 0.012, 0.71, 0.013}, nil},
		{modelKey{Model: "dimmedian_gdc"}, nums{4.66, 0.05, 2.38, 0.05, 0.32, 0.01, 4.61, 0.03, 0.804, 0.002, 0.805, 0.001}, nums{4.28, 0.14, 1.42, 0.05, 0.15, 0.01, 3.92, 0.08, 0.725, 0.012, 0.725, 0.011}, nil},
		{modelKey{Model: "medoid_gdc"}, nums{1.98, 0.07, 4.05, 0.15, 0.51, 0.02, 4.62, 0.06, 0.742, 0.008, 0.756, 0.011}, nums{1.69, 0.13, 2.41, 0.04, 0.24, 0.01, 3.97, 0.06, 0.673, 0.012, 0.689, 0.007}, nil},
		{modelKey{Model: "sm_gdc", T: 1}, nums{5.07, 0.46, 4.31, 0.68, 0.52, 0.09, 4.71, 0.08, 0.819, 0.008, 0.822, 0.007}, nums{4.93, 0.24, 2.67, 0.07, 0.32, 0.02, 4.12, 0.09, 0.711, 0.01, 0.712, 0.01}, nums{3.3, 0.41, 5.13, 0.66, 0.47, 0.04, 4.24, 0.16, 0.761, 0.023, 0.756, 0.027}},
		{modelKey{Model: "sm_gdc", T: 0.5}, nums{4.15, 0.67, 5.07, 0.74, 0.6, 0.08, 4.8, 0.07, 0.796, 0.01, 0.803, 0.008}, nums{4.55, 0.16, 3.62, 0.19, 0.48, 0.03, 4.22, 0.12, 0.709, 0.01, 0.716, 0.01}, nums{3.1, 0.6, 5.43, 0.26, 0.56, 0.03, 4.35, 0.16, 0.751, 0.015, 0.752, 0.019}},
		{modelKey{Model: "sm_gdc", T: 0.2}, nums{2.9, 0.95, 5.6, 0.31, 0.66, 0.04, 4.91, 0.04, 0.768, 0.033, 0.775, 0.034}, nums{3.52, 0.17, 4.69, 0.2, 0.6, 0.02, 4.44, 0.13, 0.705, 0.017, 0.714, 0.014}, nums{2.44, 0.4, 6.07, 0.19, 0.66, 0.02, 4.46, 0.15, 0.729, 0.014, 0.732, 0.016}},
		{modelKey{Model: "sm_gdc", T: 10, Alt: true}, nums{7.15, 0.01, 1.12, 0.06, 0.1, 0, 1.63, 0.01, 0.811, 0.003, 0.814, 0.002}, nums{5.62, 0.15, 0.17, 0.02, 0.02, 0, 0.82, 0.12, 0.663, 0.014, 0.654, 0.014}, nil},
	}},
	{"Table 5", []string{"dice@0.1", "dice@0.25", "fgsm@0.1", "fgsm@0.25", "pgd@0.1", "pgd@0.25", "metattack@0.1", "metattack@0.25"}, 1, []paperRow{
		{modelKey{Model: "gcn"}, nums{0.812, 0.003, 0.785, 0.004, 0.732, 0.005, 0.655, 0.003, 0.724, 0.006, 0.619, 0.006, 0.555, 0.022, 0.383, 0.012}, nums{0.696, 0.016, 0.678, 0.014, 0.642, 0.014, 0.57, 0.022, 0.636, 0.009, 0.556, 0.013, 0.587, 0.021, 0.439, 0.035}, nil},
		{modelKey{Model: "gdc"}, nums{0.811, 0.003, 0.789, 0.001, 0.733, 0.004, 0.657, 0.003, 0.725, 0.004, 0.624, 0.007, 0.547, 0.021, 0.342, 0.012}, nums{0.686, 0.01, 0.666, 0.009, 0.635, 0.011, 0.563, 0.022, 0.622, 0.012, 0.548, 0.017, 0.598, 0.017, 0.45, 0.024}, nil},
		{modelKey{Model: "svd_gcn"}, nums{0.749, 0.008, 0.71, 0.008, 0.75, 0.007, 0.677, 0.005, 0.736, 0.009, 0.641, 0.007, 0.699, 0.021, 0.496, 0.011}, nums{0.622, 0.016, 0.582, 0.021, 0.625, 0.016, 0.566, 0.022, 0.604, 0.015, 0.545, 0.024, 0.631, 0.019, 0.531, 0.044}, nil},
		{modelKey{Model: "jaccard_gcn"}, nums{0.801, 0.002, 0.777, 0.004, 0.733, 0.002, 0.662, 0.001, 0.722, 0.003, 0.626, 0.005, 0.584, 0.023, 0.415, 0.007}, nums{0.7, 0.017, 0.683, 0.015, 0.659, 0.013, 0.601, 0.016, 0.654, 0.014, 0.584, 0.012, 0.62, 0.019, 0.503, 0.035}, nil},
		{modelKey{Model: "rgcn"}, nums{0.782, 0, 0.752, 0.002, 0.721, 0.002, 0.647, 0.004, 0.712, 0.006, 0.613, 0.006, 0.591, 0.028, 0.359, 0.012}, nums{0.7, 0.013, 0.675, 0.009, 0.593, 0.03, 0.536, 0.029, 0.597, 0.028, 0.53, 0.03, 0.615, 0.014, 0.5, 0.041}, nil},
		{modelKey{Model: "sm_gdc", T: 1}, nums{0.818, 0.005, 0.801, 0.003, 0.743, 0.001, 0.679, 0.003, 0.739, 0.002, 0.656, 0.002, 0.608, 0.028, 0.433, 0.013}, nums{0.699, 0.012, 0.686, 0.012, 0.664, 0.009, 0.606, 0.012, 0.66, 0.005, 0.603, 0.006, 0.617, 0.004, 0.502, 0.033}, nil},
		{modelKey{Model: "sm_gdc", T: 0.5}, nums{0.813, 0.003, 0.796, 0.004, 0.751, 0.001, 0.693, 0.002, 0.75, 0.003, 0.68, 0.003, 0.626, 0.024, 0.459, 0.024}, nums{0.704, 0.011, 0.694, 0.012, 0.674, 0.009, 0.631, 0.012, 0.672, 0.009, 0.636, 0.007, 0.612, 0.006, 0.506, 0.028}, nil},
		{modelKey{Model: "sm_gdc", T: 0.2}, nums{0.787, 0.002, 0.777, 0.004, 0.749, 0, 0.702, 0.001, 0.755, 0.002, 0.719, 0.002, 0.641, 0.026, 0.474, 0.029}, nums{0.687, 0.017, 0.679, 0.017, 0.682, 0.013, 0.649, 0.012, 0.678, 0.015, 0.656, 0.015, 0.613, 0.004, 0.512, 0.013}, nil},
	}},
	{"Table 4", []string{"mean_margin", "failure_rate"}, 1, []paperRow{
		{modelKey{Model: "gcn"}, nums{-0.41, 0.05, 0.18, 0.06}, nums{-0.56, 0.04, 0.03, 0}, nil},
		{modelKey{Model: "gdc"}, nums{-0.48, 0.12, 0.15, 0.1}, nums{-0.51, 0.02, 0.05, 0.02}, nil},
		{modelKey{Model: "svd_gcn"}, nums{0.21, 0.06, 0.64, 0.05}, nums{-0, 0.11, 0.51, 0.09}, nil},
		{modelKey{Model: "jaccard_gcn"}, nums{-0.46, 0.13, 0.26, 0.07}, nums{-0.43, 0.07, 0.17, 0.07}, nil},
		{modelKey{Model: "rgcn"}, nums{0, 0.01, 0.35, 0.01}, nums{-0.05, 0.03, 0.41, 0.02}, nil},
		{modelKey{Model: "sm_gdc", T: 1}, nums{0.09, 0.03, 0.54, 0.02}, nums{-0.08, 0.04, 0.36, 0.04}, nil},
		{modelKey{Model: "sm_gdc", T: 0.5}, nums{0.11, 0.07, 0.53, 0.08}, nums{0.1, 0.07, 0.51, 0.07}, nil},
		{modelKey{Model: "sm_gdc", T: 0.2}, nums{0.24, 0.06, 0.62, 0.04}, nums{0.31, 0.04, 0.65, 0.05}, nil},
	}},
}

// paperNumbers are the paper's numbers, stored once: table, dataset, row,
// column, mean, printed ± and how many standard errors that ± is (0: the
// table prints no error).
var paperNumbers = paperTableCells(paperTables)

// paperTable is one of the paper's tables (or a part of one): its columns,
// how many standard errors its printed ± is (0: it prints none) and its rows.
type paperTable struct {
	Table   string
	Columns []string
	Sigmas  float64
	Rows    []paperRow
}

// paperRow is a table's row for one model: for each dataset, its numbers
// in column order, each mean followed by its printed ± where the table
// prints one; nil where the paper has no such row for the dataset.
type paperRow struct {
	Row                      modelKey
	CoraML, CiteSeer, PubMed nums
}

type nums = []float64

// paperTableCells lists the tables' cells in the order of paperTables'
// doc comment.
func paperTableCells(tables []paperTable) []paperCell {
	var out []paperCell
	for _, t := range tables {
		per := 1
		if t.Sigmas > 0 {
			per = 2
		}
		for _, d := range []string{"cora_ml", "citeseer", "pubmed"} {
			for _, r := range t.Rows {
				vs := map[string]nums{"cora_ml": r.CoraML, "citeseer": r.CiteSeer, "pubmed": r.PubMed}[d]
				if vs == nil {
					continue
				}
				if len(vs) != per*len(t.Columns) {
					panic(fmt.Sprintf("report: %s, %s, %s: %d numbers for %d columns", t.Table, d, r.Row.Label(), len(vs), len(t.Columns)))
				}
				for i, col := range t.Columns {
					c := paperCell{Table: t.Table, Dataset: d, Row: r.Row, Column: col, Mean: vs[per*i], Sigmas: t.Sigmas}
					if per == 2 {
						c.PM = vs[per*i+1]
					}
					out = append(out, c)
				}
			}
		}
	}
	return out
}
