package engine

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

// tileGeneric computes out[i·tileCols + j] = Σ_d k[i·r2 + d]·panel[d·tileCols + j]
// in 2×4 sub-tiles whose eight accumulators stay in registers.
func tileGeneric(out *[tileRows * tileCols]float32, k, panel []float32, r2 int) {
	for i := 0; i < tileRows; i += 2 {
		k0, k1 := k[i*r2:(i+1)*r2], k[(i+1)*r2:(i+2)*r2]
		for j := 0; j < tileCols; j += 4 {
			var c00, c01, c02, c03, c10, c11, c12, c13 float32
			for d := 0; d < r2; d++ {
				p := panel[d*tileCols+j : d*tileCols+j+4 : d*tileCols+j+4]
				a, b := k0[d], k1[d]
				c00 += a * p[0]
				c01 += a * p[1]
				c02 += a * p[2]
				c03 += a * p[3]
				c10 += b * p[0]
				c11 += b * p[1]
				c12 += b * p[2]
				c13 += b * p[3]
			}
			o := out[i*tileCols+j:]
			o[0], o[1], o[2], o[3] = c00, c01, c02, c03
			o = out[(i+1)*tileCols+j:]
			o[0], o[1], o[2], o[3] = c10, c11, c12, c13
		}
	}
}
