// Package certify computes randomized-smoothing robustness certificates for
// graph structure perturbations (Bojchevski et al., ICML 2020, "sparse
// smoothing"), as used in the Soft Medoid paper (Geisler et al., NeurIPS
// 2020, Sec. 5 and App. B.2), and reproduces the reference implementation
// (abojchevski/sparse_smoothing cert.py, driven by
// reliable_gnn_via_robust_aggregation's experiment_smoothing.py) exactly.
//
// # Smoothing
//
// The smoothed classifier g(G) = argmax_c P(f(φ(G)) = c) runs a base
// classifier f on random perturbations φ(G): every existing edge is deleted
// with probability p₋, every absent node pair is added with probability p₊,
// independently (optionally binary attributes likewise). [Sampler] draws
// such graphs without materialising the n² pairs (geometric skipping over
// the upper triangle), each sample from its own RNG stream derived from
// (seed, stream, index) so results do not depend on the number of workers.
// [Votes] counts the predictions of n samples per node; [Smooth] draws the
// n₀ = 100 pre-votes (which pick the top and runner-up class) and the
// n₁ = 10,000 votes (which estimate their probabilities) from independent
// streams. [VoteFile] saves both with the sampling parameters, with the
// keys of the reference's vote files (votes, pre_votes).
//
// # Certificate
//
// For every node, from votes and pre-votes ([Compute]):
//
//  1. top, runner-up = last two of a stable ascending argsort of the
//     pre-votes (ties resolve to the higher class index, as numpy does);
//  2. Clopper–Pearson bounds with Bonferroni correction over the C classes:
//     p_lower = Beta⁻¹(α/C; x_top, n−x_top+1) (0 if x_top = 0) and
//     p_upper = Beta⁻¹(1−α/C; x_ru+1, n−x_ru) (1 if x_ru = n). The Beta
//     quantiles are polished to a few ulps by Newton steps on the binomial
//     tail (Loader's dbinom), since gonum's InvRegIncBeta alone is only
//     good to ~1e-11 here;
//  3. for each radius pair (r_a additions, r_d deletions) the likelihood-ratio
//     regions of the two smoothing distributions around G and around a G̃ at
//     that distance ([NewRegions]: with Q = r_a + r_d and
//     T_i = r_a·(p₊/(1−p₊))^i + r_d·(p₋/(1−p₋))^i,
//     P_0 = 1, P_q = (1/q) Σ_{i=1..q} (−1)^{i+1} T_i P_{q−i},
//     px_q = P_q (1−p₊)^{r_a} (1−p₋)^{r_d},
//     ratio_q = (p₊/(1−p₋))^{q−r_d} (p₋/(1−p₊))^{q−r_a}, px̃_q = px_q/ratio_q;
//     rows reversed if p₊+p₋ > 1; for p₊ = 0 (p₋ = 0) three rows
//     [1−a, 0, ∞], [a, b, a/b], [0, 1−b, 0] with a = p₋^{r_d}, b = p₋^{r_a}
//     (a = p₊^{r_a}, b = p₊^{r_d})). The alternating sum cancels
//     catastrophically, so this runs in math/big at 1000 bits like the
//     reference's gmpy2 code, and regions are memoised per (r_a, r_d)
//     ([RegionCache]) since all nodes share them;
//  4. the worst case over G̃ (Neyman–Pearson): accumulate regions in
//     decreasing ratio until the clean mass reaches p, ρ = perturbed mass
//     so far + the remainder at the next region's ratio ([Regions.Rho]);
//     lower bound from p_lower in decreasing order, upper bound of the
//     runner-up from p_upper in increasing order. The reference evaluates
//     this at 1000 bits and rounds the result to float64 (the anchors in
//     shared/reference/cert_anchors.txt fix that); we carry the 1000-bit
//     values as double-doubles and round once, which agrees bit for bit
//     except at exact ties (~2 in 10⁴ random inputs differ by one ulp);
//  5. the grid spans r_a ∈ [0, max_ra+1] × r_d ∈ [0, max_rd+1], where
//     max_ra, max_rd ≥ 1 are the reference's bisection ([MaxRadius]) for the
//     largest one-sided lower bound Beta⁻¹(α; x, n−x+1) of the pre-votes'
//     argmax class over all nodes; a node is certified at (r_a, r_d) iff
//     lower > upper (never at (0, 0), where both are 1).
//
// # Metrics
//
// [Certificate.Metrics] over a node set (the test nodes): the certification
// ratio R(r_a, r_d) = fraction of nodes that are correctly classified
// (argmax of the votes, first maximum, equals the label) and certified,
// with R(0, 0) = smoothed accuracy; the accumulated certifications
// Σ R(r_a, r_d) − R(0, 0) (paper Eq. 8); the average certifiable radii
// (largest certified r_a with r_d = 0, and vice versa; 0 for misclassified
// or uncertified nodes) over all nodes as the reference reports them, and
// over the correctly classified ones as in the paper's Eq. 9.
// [Certificate.DegreeTable] splits the same measures by node degree (the
// paper's accumulated certifications over degree, "equal frequency
// binning"): [QuantileDegreeEdges] puts bin edges at the degrees of ranks
// ⌊b·m/k⌋ of the m nodes sorted by degree, merging bins that ties make
// identical; fixed edges can be given instead. Degrees are those of the
// clean graph.
//
// On all 49 reference vote files of cora_ml this reproduces
// expected_certification_cora_ml.json (accumulated certifications, smoothed
// accuracy, average radii, grid shapes) to within 1e-15.
package certify
