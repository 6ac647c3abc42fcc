package outfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rgnn/rgnn/internal/testio"
)

// entries lists a folder's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestRegularFileReplacedAtomically(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "w.npz")
	if err := WriteFile(p, []byte("new file")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v, want 0644", st.Mode().Perm())
	}
	os.Chmod(p, 0o600)
	if err := WriteFile(p, []byte("replaced")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(b) != "replaced" || st.Mode().Perm() != 0o600 {
		t.Errorf("got %q mode %v, want the new content with the old mode 0600", b, st.Mode().Perm())
	}
	if es := entries(t, dir); len(es) != 1 {
		t.Errorf("folder holds %v, want only the file", es)
	}
}

// failing is a writer that fails after n bytes, like a disk that fills up.
type failing struct {
	w io.Writer
	n int
}

func (f *failing) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k, _ := f.w.Write(p[:f.n])
		f.n = 0
		return k, syscall.ENOSPC
	}
	f.n -= len(p)
	return f.w.Write(p)
}

// TestFailedWriteLeavesNothing: a disk that fills up mid-write (an
// injected failing writer) leaves neither a partial file nor a temporary
// one, keeps an existing file's content, and the error names the path.
func TestFailedWriteLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	full := Options{Wrap: func(w io.Writer) io.Writer { return &failing{w: w, n: 10} }}
	write := func(w io.Writer) error {
		for range 100 {
			if _, err := w.Write([]byte("0123456789abcdef")); err != nil {
				return err
			}
		}
		return nil
	}
	p := filepath.Join(dir, "plot.png")
	err := WriteWith(p, full, write)
	if err == nil || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), p) {
		t.Fatalf("error %v, want ENOSPC naming %s", err, p)
	}
	if es := entries(t, dir); len(es) != 0 {
		t.Errorf("a failed write of a new file left %v", es)
	}
	old := filepath.Join(dir, "old.npz")
	os.WriteFile(old, []byte("old content"), 0o644)
	if err := WriteWith(old, full, write); err == nil {
		t.Fatal("accepted")
	}
	if b, _ := os.ReadFile(old); string(b) != "old content" {
		t.Errorf("old file now holds %q", b)
	}
	if es := entries(t, dir); len(es) != 1 {
		t.Errorf("folder holds %v, want only old.npz", es)
	}
	// An error of the caller's own aborts the same way.
	if err := Write(filepath.Join(dir, "x"), func(io.Writer) error { return errors.New("encode failed") }); err == nil ||
		!strings.Contains(err.Error(), "encode failed") {
		t.Fatalf("error %v", err)
	}
	if es := entries(t, dir); len(es) != 1 {
		t.Errorf("folder holds %v, want only old.npz", es)
	}
}

// fifo makes a FIFO in dir and returns its path and a channel receiving
// everything written to it.
func fifo(t *testing.T, dir string) (string, chan []byte) {
	t.Helper()
	p := filepath.Join(dir, "pipe")
	return p, testio.FIFO(t, p)
}

// TestSpecialFilesWrittenDirectly: a FIFO, and a symlink to one, are
// written into, never replaced by a regular file.
func TestSpecialFilesWrittenDirectly(t *testing.T) {
	for _, viaLink := range []bool{false, true} {
		dir := t.TempDir()
		p, got := fifo(t, dir)
		target := p
		if viaLink {
			target = filepath.Join(dir, "link")
			if err := os.Symlink(p, target); err != nil {
				t.Fatal(err)
			}
		}
		if !IsSpecial(target) {
			t.Errorf("IsSpecial(%s) = false", target)
		}
		if err := WriteFile(target, []byte("votes")); err != nil {
			t.Fatal(err)
		}
		if b := <-got; string(b) != "votes" {
			t.Errorf("the FIFO's reader got %q", b)
		}
		st, err := os.Lstat(p)
		if err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("%s is no longer a FIFO: %v %v", p, st.Mode(), err)
		}
		if viaLink {
			if st, err := os.Lstat(target); err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the symlink was replaced: %v %v", st.Mode(), err)
			}
		}
		want := 2
		if !viaLink {
			want = 1
		}
		if es := entries(t, dir); len(es) != want {
			t.Errorf("folder holds %v", es)
		}
	}
}

// TestSymlinkToRegularFileKept: the file a symlink points to is replaced,
// the symlink stays.
func TestSymlinkToRegularFileKept(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.npz")
	link := filepath.Join(dir, "link.npz")
	os.WriteFile(real, []byte("old"), 0o644)
	if err := os.Symlink("real.npz", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}
	if b, _ := os.ReadFile(real); string(b) != "new" {
		t.Errorf("target holds %q", b)
	}
}

func TestStdoutAndDirectory(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteWith(Stdout, Options{Stdout: &buf}, func(w io.Writer) error {
		_, err := io.WriteString(w, "to stdout")
		return err
	}); err != nil || buf.String() != "to stdout" {
		t.Fatalf("%q %v", buf.String(), err)
	}
	dir := t.TempDir()
	if err := WriteFile(dir, []byte("x")); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("writing over a folder: %v", err)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "x"), []byte("x")); err == nil {
		t.Fatal("a file in a missing folder was accepted")
	}
}
