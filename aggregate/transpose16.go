package aggregate

// transpose16Idx are the two-source permutation indices (VPERMT2PS, or
// archsimd's ConcatPermute) of the four stages of the 16×16 transpose
// kernels: stage s swaps bit b = 8>>s of the row and the column index, row
// i (bit b clear) taking lo and row i|b taking hi. Only the vector builds
// use it.
var transpose16Idx = func() (idx [4][2][16]uint32) {
	for s := range 4 {
		b := 8 >> s
		for j := range 16 {
			if j&b == 0 {
				idx[s][0][j], idx[s][1][j] = uint32(j), uint32(j|b)
			} else {
				idx[s][0][j], idx[s][1][j] = uint32(16+j^b), uint32(16+j)
			}
		}
	}
	return idx
}()
