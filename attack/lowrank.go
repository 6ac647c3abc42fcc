package attack

// Tiles of the all-pairs low-rank product S = K·Lᵀ (ScanPairs): tileRows
// rows of K against a panel of tileCols rows of L packed d-major, so the
// inner loop streams one contiguous panel and keeps the tile in registers.
const (
	tileRows = 4
	tileCols = 16
)

// packPanels packs the rows of l (n×r2, row-major) into panels of tileCols
// rows: out[(p·r2 + d)·tileCols + j] = l[p·tileCols + j][d] (zero padded).
func packPanels(l []float32, n, r2 int) []float32 {
	np := (n + tileCols - 1) / tileCols
	out := make([]float32, np*r2*tileCols)
	for i := 0; i < n; i++ {
		p, j := i/tileCols, i%tileCols
		row := l[i*r2 : (i+1)*r2]
		base := p * r2 * tileCols
		for d, v := range row {
			out[base+d*tileCols+j] = v
		}
	}
	return out
}

// tileGeneric computes out[i·tileCols + j] = Σ_d k[i·r2 + d]·panel[d·tileCols + j].
func tileGeneric(out *[tileRows * tileCols]float32, k, panel []float32, r2 int) {
	for i := 0; i < tileRows; i++ {
		var acc [tileCols]float32
		kr := k[i*r2 : (i+1)*r2]
		for d, a := range kr {
			pr := panel[d*tileCols : (d+1)*tileCols : (d+1)*tileCols]
			for j := range acc {
				acc[j] += a * pr[j]
			}
		}
		copy(out[i*tileCols:], acc[:])
	}
}
