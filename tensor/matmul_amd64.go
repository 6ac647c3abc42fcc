//go:build amd64 && !purego && !goexperiment.simd

package tensor

import "golang.org/x/sys/cpu"

//go:generate go run matmul_gen.go

// The register-blocked kernels of the dense products (matmul_amd64.s,
// written by matmul_gen.go): Z-register kernels where the CPU has AVX-512F
// and VL, Y-register kernels with AVX2+FMA (GODEBUG=cpu.avx512f=off selects
// them on an AVX-512 machine). Both perform, for every output element, the
// float32 operations of the axpy and dot loops they replace (kernels.go) in
// the same order, so they give the same bits as each other, as the
// GOEXPERIMENT=simd build's kernels (matmul_simd.go) and as those loops.

// useAVX512 selects the Z-register kernels (which also use Y registers
// with k masks: AVX-512VL).
var useAVX512 = useAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL

// hasGemmKernels reports whether axpyBlock and dotRows run vector kernels.
var hasGemmKernels = useAVX2

type axpyZKernel func(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff, umask int, load bool)

type axpyYKernel func(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff int, umask *[8]int32, load bool)

//go:noescape
func axpyZ001(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff, umask int, load bool)

//go:noescape
func axpyZ010(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff, umask int, load bool)

//go:noescape
func axpyZ011(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff, umask int, load bool)

//go:noescape
func axpyZ100(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff, umask int, load bool)

//go:noescape
func axpyZ101(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff, umask int, load bool)

//go:noescape
func axpyZ110(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff, umask int, load bool)

//go:noescape
func axpyZ111(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff, umask int, load bool)

//go:noescape
func axpyZ200(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff, umask int, load bool)

//go:noescape
func axpyZ201(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff, umask int, load bool)

//go:noescape
func axpyZ210(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff, umask int, load bool)

//go:noescape
func axpyZ211(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff, umask int, load bool)

//go:noescape
func axpyZ300(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff, umask int, load bool)

//go:noescape
func axpyZ301(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff, umask int, load bool)

//go:noescape
func axpyZ310(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff, umask int, load bool)

//go:noescape
func axpyZ311(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff, umask int, load bool)

//go:noescape
func axpyZ400(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff, umask int, load bool)

//go:noescape
func axpyZ401(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff, umask int, load bool)

var axpyZKernels = [5][2][2]axpyZKernel{
	{{nil, axpyZ001}, {axpyZ010, axpyZ011}},
	{{axpyZ100, axpyZ101}, {axpyZ110, axpyZ111}},
	{{axpyZ200, axpyZ201}, {axpyZ210, axpyZ211}},
	{{axpyZ300, axpyZ301}, {axpyZ310, axpyZ311}},
	{{axpyZ400, axpyZ401}, {nil, nil}},
}

//go:noescape
func axpyY01(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff int, umask *[8]int32, load bool)

//go:noescape
func axpyY10(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff int, umask *[8]int32, load bool)

//go:noescape
func axpyY11(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff int, umask *[8]int32, load bool)

//go:noescape
func axpyY20(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff int, umask *[8]int32, load bool)

//go:noescape
func axpyY21(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff int, umask *[8]int32, load bool)

//go:noescape
func axpyY30(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff int, umask *[8]int32, load bool)

//go:noescape
func axpyY31(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff int, umask *[8]int32, load bool)

//go:noescape
func axpyY40(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff int, umask *[8]int32, load bool)

//go:noescape
func axpyY41(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff int, umask *[8]int32, load bool)

//go:noescape
func axpyY50(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff int, umask *[8]int32, load bool)

//go:noescape
func axpyY51(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff int, umask *[8]int32, load bool)

//go:noescape
func axpyY60(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff int, umask *[8]int32, load bool)

//go:noescape
func axpyY61(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff int, umask *[8]int32, load bool)

//go:noescape
func axpyY70(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff int, umask *[8]int32, load bool)

//go:noescape
func axpyY71(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff int, umask *[8]int32, load bool)

//go:noescape
func axpyY80(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff int, umask *[8]int32, load bool)

//go:noescape
func axpyY81(c *float32, ldc int, a *float32, sai, sat int, b *float32, ldb, rows, t, uoff int, umask *[8]int32, load bool)

var axpyYKernels = [9][2]axpyYKernel{
	{nil, axpyY01},
	{axpyY10, axpyY11},
	{axpyY20, axpyY21},
	{axpyY30, axpyY31},
	{axpyY40, axpyY41},
	{axpyY50, axpyY51},
	{axpyY60, axpyY61},
	{axpyY70, axpyY71},
	{axpyY80, axpyY81},
}

//go:noescape
func dotZ(c *float32, ldc int, a *float32, lda int, bt *float32, rows, k, nb, lastmask int, acc bool)

//go:noescape
func dotY(c *float32, ldc int, a *float32, lda int, bt *float32, rows, k, nb int, lastmask *[8]int32, acc bool)

// zTileRows is the number of output rows axpyZ<f><h><u> keeps in registers
// for ut = f + h + u units (matmul_gen.go's zRows); yTileRows the same for
// axpyY<f><u> (yRows). A call with more rows does nothing.
func zTileRows(ut int) int {
	switch {
	case ut <= 3:
		return 8
	case ut == 4:
		return 6
	}
	return 4
}

func yTileRows(f, u int) int { return max(1, min(4, (12-u)/(f+u))) }

// axpyPanel is the widest column panel of the kernels (four Z or eight Y
// fused units), and axpyRowBlock the rows whose a values one pass over the
// panels reuses from the cache.
const (
	axpyPanel    = 64
	axpyRowBlock = 64
)

// axpyBlock computes, for the output rows r < rows and columns j < n of c
// (row stride ldc), the sequence of one axpy per nonzero a value:
//
//	c[r][:n] = 0 unless load; for t < tn in order: if av := a[r*sai+t*sat]; av != 0 { axpy(c[r][:n], b[t*ldb:][:n], av) }
//
// that is, fused multiply-adds in the columns below n&^7 and a rounded
// product added in the others (axpy's scalar tail, all columns when n < 8).
// The columns go in panels of up to 64 fused columns (the unfused ones
// with the last panel) and the rows in tiles held in registers; a zero a
// value is skipped by a mask, not a branch. It reports false when there is
// no vector kernel.
func axpyBlock(c []float32, ldc int, a []float32, sai, sat int, b []float32, ldb, rows, tn, n int, load bool) bool {
	if !useAVX2 {
		return false
	}
	if axpyBlockDone(c, ldc, a, sai, sat, b, ldb, rows, tn, n, load) {
		return true
	}
	n8 := n &^ 7
	umask := 1<<(n-n8) - 1
	var ymask [8]int32
	laneMask(ymask[:], n-n8)
	for r0 := 0; r0 < rows; r0 += axpyRowBlock {
		r1 := min(rows, r0+axpyRowBlock)
		for p0 := 0; ; p0 += axpyPanel {
			fc := min(axpyPanel, n8-p0) // fused columns in this panel
			u := 0
			if p0+axpyPanel >= n8 && n > n8 {
				u = 1
			}
			if useAVX512 {
				f, h := fc/16, fc%16/8
				kern, rt := axpyZKernels[f][h][u], zTileRows(f+h+u)
				for r := r0; r < r1; r += rt {
					kern(&c[r*ldc+p0], ldc, &a[r*sai], sai, sat, &b[p0], ldb, min(rt, r1-r), tn, n8-p0, umask, load)
				}
			} else {
				f := fc / 8
				kern, rt := axpyYKernels[f][u], yTileRows(f, u)
				for r := r0; r < r1; r += rt {
					kern(&c[r*ldc+p0], ldc, &a[r*sai], sai, sat, &b[p0], ldb, min(rt, r1-r), tn, n8-p0, &ymask, load)
				}
			}
			if p0+axpyPanel >= n8 {
				break
			}
		}
	}
	return true
}

// dotPack returns b's rows packed for dotRows: blocks of 16 rows (8 without
// AVX-512), bt[blk][t][l] = b[blk·w + l][t], zero past b's last row; nil
// when there is no vector kernel or nothing to pack.
func dotPack(b *Dense) []float32 {
	if !useAVX2 || b.Rows == 0 || b.Cols == 0 {
		return nil
	}
	return packColumns(b, dotLanes())
}

// dotLanes is the width of dotRows' column blocks.
func dotLanes() int {
	if useAVX512 {
		return 16
	}
	return 8
}

// dotRows computes rows [lo, hi) of dst = a·bᵀ (+= when acc) from bt =
// dotPack(b) (nj = b.Rows): every element is dot(a's row, b's row) with
// dot's operations — one output column per lane, dot's sixteen partial
// sums in sixteen registers, its reduction and its tail lane by lane.
func dotRows(dst, a *Dense, bt []float32, nj int, acc bool, lo, hi int) {
	k := a.Cols
	if hi <= lo || nj == 0 {
		return
	}
	w := dotLanes()
	nb := (nj + w - 1) / w
	last := nj - (nb-1)*w
	_ = a.Data[hi*k-1]
	_ = dst.Data[hi*nj-1]
	_ = bt[nb*k*w-1]
	if useAVX512 {
		dotZ(&dst.Data[lo*nj], nj, &a.Data[lo*k], k, &bt[0], hi-lo, k, nb, 1<<last-1, acc)
		return
	}
	var mask [8]int32
	laneMask(mask[:], last)
	dotY(&dst.Data[lo*nj], nj, &a.Data[lo*k], k, &bt[0], hi-lo, k, nb, &mask, acc)
}
