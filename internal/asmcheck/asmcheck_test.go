package asmcheck

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	wideReg = regexp.MustCompile(`\b[YZ]([0-9]|[12][0-9]|3[01])\b`)
	xmmReg  = regexp.MustCompile(`\bX([0-9]|[12][0-9]|3[01])\b`)
)

// TestNoLegacySSEInVectorKernels scans every amd64 assembly file of the
// module: a function that uses YMM or ZMM registers must not contain a
// legacy-SSE (non-VEX) instruction on an XMM register (see the package
// comment for the cost).
func TestNoLegacySSEInVectorKernels(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_amd64.s") {
			return nil
		}
		files++
		for _, p := range legacySSE(t, path) {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s:%s", rel, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 5 {
		t.Fatalf("only %d assembly files found under %s", files, root)
	}
}

// legacySSE returns "line: function: instruction" for every legacy-SSE
// instruction on an XMM register in a function that also uses a YMM or
// ZMM register.
func legacySSE(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type insn struct {
		line int
		text string
	}
	var out []string
	var fn string
	var wide bool
	var sse []insn
	flush := func() {
		if wide {
			for _, s := range sse {
				out = append(out, strings.TrimSpace(strings.Join([]string{itoa(s.line), fn, s.text}, ": ")))
			}
		}
		wide, sse = false, nil
	}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		if strings.HasPrefix(line, "TEXT") {
			flush()
			fn = strings.Fields(line)[1]
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 2 || strings.HasSuffix(fields[0], ":") || strings.HasPrefix(fields[0], "#") {
			continue
		}
		op, args := fields[0], strings.Join(fields[1:], " ")
		if wideReg.MatchString(args) {
			wide = true
		}
		if !strings.HasPrefix(op, "V") && !strings.HasPrefix(op, "K") && xmmReg.MatchString(args) {
			sse = append(sse, insn{n, strings.TrimSpace(line)})
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for n >= 10 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	i--
	b[i] = byte('0' + n)
	return string(b[i:])
}
