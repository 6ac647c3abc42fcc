//go:build amd64 && !purego && !goexperiment.simd

package tensor

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sys/cpu"
)

type gemmVariant struct {
	name string
	set  func() (restore func())
}

// gemmKernelVariants are the dense-product kernels of this CPU: the
// Z-register ones where it has AVX-512F, the Y-register ones (AVX2), each
// selected for the duration of a test; or the loops alone.
func gemmKernelVariants() []gemmVariant {
	use := func(avx512 bool) func() func() {
		return func() func() {
			old := useAVX512
			useAVX512 = avx512
			return func() { useAVX512 = old }
		}
	}
	var vs []gemmVariant
	if useAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL {
		vs = append(vs, gemmVariant{"avx512", use(true)})
	}
	if useAVX2 {
		vs = append(vs, gemmVariant{"avx2", use(false)})
	}
	if len(vs) == 0 {
		vs = append(vs, gemmVariant{"loops", func() func() { return func() {} }})
	}
	return vs
}

// TestMatMulAsmGenerated checks that matmul_amd64.s is what matmul_gen.go
// writes (go generate ./tensor after changing the generator).
func TestMatMulAsmGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		t.Skipf("no go tool: %v", err)
	}
	out := filepath.Join(t.TempDir(), "matmul_amd64.s")
	cmd := exec.Command(goTool, "run", "matmul_gen.go", "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run matmul_gen.go: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("matmul_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("matmul_amd64.s differs from matmul_gen.go's output: run go generate ./tensor")
	}
}
