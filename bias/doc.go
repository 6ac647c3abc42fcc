// Package bias computes the empirical bias curves B(ε) of Figure 2 of
// Geisler, Zügner and Günnemann (NeurIPS 2020): how far a location estimate
// moves when a fraction ε of its samples is replaced by a point mass.
//
// Setup (paper §3, Fig. 2): n = 50 samples of a bivariate standard normal,
// translated so that their Soft Medoid (T = 1) is the origin (the paper
// centres t_SM(X) = 0; every estimator here is translation equivariant, so
// only the position of the perturbation relative to the data depends on
// it). For m = 0, 1, …, ⌊n/2⌋ the first m samples are replaced by the point
// mass [p, 0] with norm p (1000 and 10 in the paper), ε = m/n, and
//
//	B(ε) = ‖t(X) − t(X̃_ε)‖
//
// is averaged over independent trials (fresh samples per trial; the paper
// shows one sample). The estimators are the mean, the Medoid, the
// dimension-wise median, and the Soft Median and Soft Medoid at several
// temperatures T. They are package aggregate's kernels applied to one row
// of a sparse matrix with unit weights (so the weight correction of Eq. 6-7
// is the identity), not re-implementations.
//
// Results depend only on the configuration and the seed (math/rand/v2 PCG):
// the computation is sequential and bitwise reproducible.
package bias
