package aggregate

// What a forward pass keeps for its Backward. The Soft Medoid and the Soft
// Median can keep per-entry intermediates (the top-k selection, softmax
// weights, distances to the median, the per-row median) and the Soft
// Medoid also every row's k×k distances; on large graphs these dominate
// memory (ogbn-arxiv after GDC, k = 64: 10.8M entries, 260 MB per layer;
// the distances 169,343·64·64·4 B = 2.8 GB). A pass keeps the most that
// fits Options.MaxStateBytes; what it did not keep, Backward recomputes row
// by row with the same code on the same inputs, so values and gradients are
// the same bits at every level (tested). At keepRows only O(rows) scalars
// stay between the passes and the per-row work lives in each worker's
// workspace (O(k·d + k²) per worker), so memory no longer grows with
// nnz·d or n·k·k.

// keepLevel is what a forward pass keeps for Backward.
type keepLevel uint8

const (
	// keepRows: only O(rows) scalars (row sums, softmax normalisers);
	// Backward recomputes every row.
	keepRows keepLevel = iota
	// keepEntries: also the per-entry and per-row·d intermediates.
	keepEntries
	// keepAll: also the Soft Medoid's k×k distances per row (only kept
	// for d ≥ smallD, see SoftKMedoid.ForwardForBackward).
	keepAll
)

// DefaultMaxStateBytes is the bound on what a forward pass keeps for its
// Backward when Options.MaxStateBytes is 0: every dataset of the 2020
// paper keeps everything (cora_ml's Soft Medoid distances are 46 MB), an
// ogbn-arxiv-sized graph keeps the per-entry state but recomputes the
// distances, and larger graphs recompute everything.
const DefaultMaxStateBytes = 1 << 30

// chooseKeep returns the highest level ≤ want whose kept bytes fit budget
// (0: DefaultMaxStateBytes; < 0: unbounded). bytes[l] is what level l
// keeps beyond keepRows (bytes[keepRows] = 0).
func chooseKeep(want keepLevel, budget int64, bytes [keepAll + 1]int64) keepLevel {
	if budget == 0 {
		budget = DefaultMaxStateBytes
	}
	for l := want; l > keepRows; l-- {
		if budget < 0 || bytes[l] <= budget {
			return l
		}
	}
	return keepRows
}
