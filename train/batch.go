package train

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/rgnn/rgnn/autograd"
	"github.com/rgnn/rgnn/data"
	"github.com/rgnn/rgnn/model"
)

// fitBatches is Fit in mini-batches of target nodes, as the follow-up
// trains PPRGo: every epoch shuffles the training nodes (a permutation
// seeded by cfg.Seed and the epoch), and each batch of cfg.BatchSize nodes
// is one Adam step on the mean cross-entropy of the batch, computed by
// m.ForwardNodes (dropout seeded by the seed, the epoch and the batch).
// The epoch's training loss is the mean over its batches weighted by their
// sizes; the validation loss is computed in inference mode (no dropout) in
// batches, which is what early stopping and the best weights use. So
// memory and time per step are O(batch), whatever the graph's size, and
// the result for a seed does not depend on GOMAXPROCS.
func fitBatches(ctx context.Context, m model.Batched, g *model.Graph, d *data.Problem, cfg Config) (Result, error) {
	st := newFitState(m, cfg)
	tp := autograd.NewTape()
	var res Result
	order := make([]int, len(d.Train))
	steps := (len(d.Train) + cfg.BatchSize - 1) / cfg.BatchSize
	var local []int
	var labels []int32
	epoch := 0
	for ; epoch < cfg.MaxEpochs; epoch++ {
		perm := rand.New(rand.NewPCG(cfg.Seed, uint64(epoch))).Perm(len(d.Train))
		for i, j := range perm {
			order[i] = d.Train[j]
		}
		var sum float64
		for b := 0; b < steps; b++ {
			if err := ctx.Err(); err != nil {
				return st.interrupted(res, epoch), err // the epochs finished; this one's steps are dropped
			}
			nodes := order[b*cfg.BatchSize : min((b+1)*cfg.BatchSize, len(order))]
			local, labels = batchLabels(d.Labels, nodes, local, labels)
			tp.Reset()
			logits := m.ForwardNodes(tp, g, d.X, nodes, model.Mode{Train: true, Seed: batchSeed(cfg.Seed, epoch, b)})
			loss := tp.CrossEntropy(logits, local, labels)
			l := float64(loss.Value.Data[0])
			if math.IsNaN(l) {
				return res, fmt.Errorf("train: loss became NaN at epoch %d, batch %d", epoch, b)
			}
			sum += l * float64(len(nodes))
			if st.reg != nil {
				loss = tp.Add(loss, st.reg.Penalty(tp))
			}
			tp.Backward(loss)
			st.opt.Step()
			if cfg.BatchProgress != nil {
				cfg.BatchProgress(b+1, steps)
			}
		}
		trainLoss := sum / float64(len(d.Train))
		valLoss := BatchLoss(m, g, d, d.Val, evalBatch(cfg.BatchSize))
		if math.IsNaN(valLoss) {
			return res, fmt.Errorf("train: validation loss became NaN at epoch %d", epoch)
		}
		res.FinalLoss = trainLoss
		if cfg.Progress != nil {
			cfg.Progress(epoch, trainLoss, valLoss)
		}
		if st.endEpoch(epoch, valLoss) {
			epoch++
			break
		}
	}
	return st.finish(res, epoch), nil
}

// evalBatch is the batch size of inference passes during mini-batch
// training (no gradients are kept, so larger batches than training's).
func evalBatch(batch int) int { return max(4*batch, 4096) }

// batchSeed derives the dropout seed of batch b of an epoch.
func batchSeed(seed uint64, epoch, b int) uint64 {
	return epochSeed(seed, epoch) ^ (uint64(b)+1)*0x94d049bb133111eb
}

// batchLabels returns 0..len(nodes)−1 and the nodes' labels, reusing the
// slices' storage.
func batchLabels(all []int32, nodes, local []int, labels []int32) ([]int, []int32) {
	local, labels = local[:0], labels[:0]
	for i, v := range nodes {
		local = append(local, i)
		labels = append(labels, all[v])
	}
	return local, labels
}

// BatchLoss returns the mean cross-entropy of m's inference-mode logits
// over nodes, computed in batches of batch nodes with m.ForwardNodes (a
// float64 sum of the batch means weighted by their sizes; NaN for no
// nodes).
func BatchLoss(m model.Batched, g *model.Graph, d *data.Problem, nodes []int, batch int) float64 {
	if len(nodes) == 0 {
		return math.NaN()
	}
	var sum float64
	var local []int
	var labels []int32
	for lo := 0; lo < len(nodes); lo += batch {
		part := nodes[lo:min(lo+batch, len(nodes))]
		local, labels = batchLabels(d.Labels, part, local, labels)
		logits := m.ForwardNodes(autograd.NoGrad(), g, d.X, part, model.Mode{})
		sum += autograd.CrossEntropyValue(logits.Value, local, labels) * float64(len(part))
	}
	return sum / float64(len(nodes))
}

// BatchAccuracy returns the fraction of nodes whose inference-mode argmax
// logit (m.ForwardNodes in batches of batch nodes) equals the label.
func BatchAccuracy(m model.Batched, g *model.Graph, d *data.Problem, nodes []int, batch int) float64 {
	if len(nodes) == 0 {
		return math.NaN()
	}
	correct := 0
	for lo := 0; lo < len(nodes); lo += batch {
		part := nodes[lo:min(lo+batch, len(nodes))]
		logits := m.ForwardNodes(autograd.NoGrad(), g, d.X, part, model.Mode{})
		for i, v := range part {
			if logits.Value.ArgmaxRow(i) == int(d.Labels[v]) {
				correct++
			}
		}
	}
	return float64(correct) / float64(len(nodes))
}
