// Package fuzzseed builds seed inputs for the fuzz targets of the file
// readers: small .npz archives made in the test and, when present, the
// shipped reference fixtures (never copied into the repository).
//
// Every archive is also offered re-packed without compression and with a
// zero CRC, which archive/zip does not check: a mutation of such a seed
// reaches the array contents instead of failing the checksum.
package fuzzseed

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rgnn/rgnn/internal/fixture"
	"github.com/rgnn/rgnn/internal/zipseed"
	"github.com/rgnn/rgnn/npz"
)

// NPZ returns the archive of entries, as npz.Encode writes it and re-packed
// without checksums.
func NPZ(tb testing.TB, entries ...npz.Entry) [][]byte {
	tb.Helper()
	b, err := npz.Encode(entries...)
	if err != nil {
		tb.Fatal(err)
	}
	return [][]byte{b, NoCRC(tb, b)}
}

// Reference returns up to perGlob reference fixtures per glob pattern
// (relative to the reference directory), as Files does; none when the
// fixtures are absent.
func Reference(tb testing.TB, perGlob int, patterns ...string) [][]byte {
	tb.Helper()
	return files(tb, fixture.ReferenceFiles, perGlob, patterns)
}

// Datasets is Reference for the datasets directory.
func Datasets(tb testing.TB, perGlob int, patterns ...string) [][]byte {
	tb.Helper()
	return files(tb, fixture.DataFiles, perGlob, patterns)
}

func files(tb testing.TB, glob func(string) []string, perGlob int, patterns []string) [][]byte {
	tb.Helper()
	var out [][]byte
	for _, p := range patterns {
		files := glob(p)
		out = append(out, Files(tb, files[:min(perGlob, len(files))]...)...)
	}
	return out
}

// maxNoCRC is the largest archive also offered re-packed: mutations of a
// large file mostly land in bulk data, and every large seed slows each
// execution the fuzzer spends on it.
const maxNoCRC = 64 << 10

// Files returns each archive at paths as stored and, when it is at most
// 64 KiB, re-packed without checksums.
func Files(tb testing.TB, paths ...string) [][]byte {
	tb.Helper()
	var out [][]byte
	for _, f := range paths {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
		if len(b) <= maxNoCRC {
			out = append(out, NoCRC(tb, b))
		}
	}
	return out
}

// NoCRC re-packs a zip archive with every entry stored uncompressed and a
// zero CRC (zipseed.NoCRC).
func NoCRC(tb testing.TB, b []byte) []byte { return zipseed.NoCRC(tb, b) }

// File returns a function that writes its bytes to one file in f's
// temporary directory and returns the path, for fuzzing readers that take
// a path. Each fuzz worker process has its own directory and runs its
// inputs one after another, so the file is reused: a fresh t.TempDir per
// input costs more than the reader and, with its random names, makes the
// coverage of every input look new.
func File(f *testing.F, name string) func(t *testing.T, b []byte) string {
	p := filepath.Join(f.TempDir(), name)
	return func(t *testing.T, b []byte) string {
		t.Helper()
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// WriteTemp writes b to a file in tb's temporary directory and returns its
// path.
func WriteTemp(tb testing.TB, name string, b []byte) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}
