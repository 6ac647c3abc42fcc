// Package report turns the results store into the paper's tables and
// figures, numbered as the paper numbers them: Markdown tables (Tables 2
// and 6: accumulated certifications, average certifiable radii and accuracy
// per smoothing distribution; Table 1, the runtimes; Table 5, the global
// attacks; Table 4, Nettack — mean ± standard error over seeds), the
// comparison with every number of the paper under one rule (paper.go:
// compare), figures as PNG and SVG drawn with gonum/plot (certification
// ratio over the radius, accuracy over the attack budget, the temperature
// influence, accumulated certifications over the node degree, the bias
// curve), and one self-contained HTML page with everything (figures embedded
// as data URIs, no external resources).
//
// It reads the store (package experiment/store) and decodes every stored
// row's parameters into its kind's typed spec (experiment.Kind.Decode: the
// spec's names and defaults), so tables and figures group by fields, not by
// parameter strings. The metrics it reads, by kind:
//
//	train    params model, temperature, seed, dataset; metrics test_accuracy, ms_per_epoch, epochs, train_seconds
//	certify  params p_add, p_del; metrics accumulated_certifications, avg_radius_{add,del}_correct,
//	         ratio [ra][rd], degree_bins [{min_degree, max_degree, accumulated_certifications}], clean_accuracy
//	attack   params attack, epsilon; metrics clean_acc, perturbed_acc (attack "nettack" goes to the Nettack table)
//	bias     params aggregation [, temperature, norm]; metrics epsilon [...], bias [...]
//	         or one row with metrics epsilon [...], curves [{estimator, temperature, norm, bias [...]}]
package report
