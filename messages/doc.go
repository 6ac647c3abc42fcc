// Package messages draws the paper's Figure 1: the messages a target node
// receives in a model's output layer (its neighbours' embeddings h_w·W⁽²⁾,
// weighted by the edge weights a_vw), projected to two dimensions by PCA,
// before and after a targeted attack, with three location estimates of
// them — the weighted mean (what a GCN aggregates), the weighted Medoid and
// the weighted Soft Medoid. Under attack the adversarial messages form a
// concentrated cluster of outliers that drags the mean outside the clean
// points while the Soft Medoid stays among them.
//
// Compute takes a trained model, the graph and the attack's flips in their
// greedy order and returns one panel per budget (a prefix of the flips);
// Plot renders a panel. The estimates come from package aggregate's
// kernels (the same code the models run), divided by the weight sum so
// that they live in the space of the embeddings.
package messages
