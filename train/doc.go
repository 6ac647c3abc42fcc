// Package train fits models with the reference's training semantics: full
// batch, Adam with PyTorch semantics and L2 weight decay added to the
// gradient of every parameter (biases included), early stopping on the
// validation loss of the same training-mode forward pass (dropout active),
// and the best weights restored at the end, as the reference's
// rgnn/train.py:train does (lr 1e-2, weight decay 1e-3, at most 3000
// epochs, patience 300 in its experiment files).
//
// Training is deterministic: the dropout masks of epoch e are a pure function
// of (seed, e), and every kernel is deterministic for any number of
// goroutines, so the same seed gives the same weights bit for bit.
package train
