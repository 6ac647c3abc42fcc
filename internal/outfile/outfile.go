// Package outfile writes the files a user names (--out, --save-votes,
// --plot, report folders, results exports, profiles, ...), so that nothing
// a user passes destroys a file:
//
//   - a regular file, or a path that does not exist yet, is written to a
//     temporary file beside it (beside the file a symlink points to), synced
//     and renamed over it: readers never see a partial file, and a failed
//     write leaves the old content (or nothing) behind;
//   - a special file — a device, a FIFO, a socket, or a symlink to one — is
//     opened and written directly, never replaced by a regular file;
//   - "-" writes to standard output.
//
// A failed write removes the temporary file it started and returns an
// error naming the path. Callers print "saved" only after [Write] (or
// [File.Close]) returned nil: only then is the file complete and synced.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Stdout is the path that names standard output.
const Stdout = "-"

// File is an output being written; Close commits it, Abort discards it.
type File struct {
	path   string // as the user gave it (errors name it)
	target string // the file replaced on Close (symlinks resolved)
	tmp    string // the temporary file; "" when writing directly
	f      *os.File
	w      io.Writer // what Write writes to (f, or a test's wrapper)
	stdout bool      // f is os.Stdout: never closed
	err    error     // the first write error
	closed bool
}

// Options adjust [CreateWith]. The zero value is what [Create] does.
type Options struct {
	// Stdout receives the output for the path "-" (nil: os.Stdout).
	Stdout io.Writer
	// Wrap, if set, wraps the file's writer: tests inject a writer that
	// fails (a full disk) with it.
	Wrap func(io.Writer) io.Writer
}

// Create starts writing path (see the package comment for how).
func Create(path string) (*File, error) { return CreateWith(path, Options{}) }

// CreateWith is [Create] with options.
func CreateWith(path string, o Options) (*File, error) {
	if path == "" {
		return nil, errors.New("write: empty path")
	}
	out := &File{path: path}
	if path == Stdout {
		out.stdout = true
		out.w = os.Stdout
		if o.Stdout != nil {
			out.w = o.Stdout
		}
		out.wrap(o)
		return out, nil
	}
	st, err := os.Stat(path) // follows symlinks
	switch {
	case err == nil && st.IsDir():
		return nil, fmt.Errorf("write %s: is a directory", path)
	case err == nil && !st.Mode().IsRegular():
		// A device, FIFO or socket (or a symlink to one): write into it.
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
		out.f, out.w = f, f
		out.wrap(o)
		return out, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	out.target = path
	mode := fs.FileMode(0o644)
	if err == nil {
		mode = st.Mode().Perm() // replacing a file keeps its permissions
		if t, err := filepath.EvalSymlinks(path); err == nil {
			out.target = t // replace the file a symlink points to, not the link
		}
	} else if t, err := resolveDangling(path); err == nil {
		out.target = t
	}
	f, err := os.CreateTemp(filepath.Dir(out.target), "."+filepath.Base(out.target)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Chmod(mode); err != nil { // CreateTemp makes 0600
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	out.f, out.w, out.tmp = f, f, f.Name()
	out.wrap(o)
	return out, nil
}

// resolveDangling follows a symlink whose target does not exist yet, so
// the new file is created where the link points.
func resolveDangling(path string) (string, error) {
	t, err := os.Readlink(path)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(t) {
		t = filepath.Join(filepath.Dir(path), t)
	}
	return t, nil
}

func (f *File) wrap(o Options) {
	if o.Wrap != nil {
		f.w = o.Wrap(f.w)
	}
}

// Path is the path the file was created with.
func (f *File) Path() string { return f.path }

// Write writes p; after the first error every Write fails with it.
func (f *File) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	if f.closed {
		return 0, fmt.Errorf("write %s: file already closed", f.path)
	}
	n, err := f.w.Write(p)
	if err != nil {
		f.err = fmt.Errorf("write %s: %w", f.path, err)
		return n, f.err
	}
	return n, nil
}

// Close commits the file: a regular file is synced, closed and renamed
// over its target (whose folder is then synced); a special file is closed.
// If a write failed, or committing does, what was started is removed and
// the error returned.
func (f *File) Close() error {
	if f.closed {
		return f.err
	}
	f.closed = true
	if f.err != nil {
		f.discard()
		return f.err
	}
	if f.stdout {
		return nil
	}
	var err error
	if f.tmp != "" {
		err = f.f.Sync()
	}
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err == nil && f.tmp != "" {
		err = os.Rename(f.tmp, f.target)
	}
	if err != nil {
		if f.tmp != "" {
			os.Remove(f.tmp)
		}
		f.err = fmt.Errorf("write %s: %w", f.path, err)
		return f.err
	}
	if f.tmp != "" {
		syncDir(filepath.Dir(f.target))
	}
	return nil
}

// Abort discards the file: a temporary file is removed (the target keeps
// its old content, or stays absent); a special file is closed.
func (f *File) Abort() {
	if f.closed {
		return
	}
	f.closed = true
	f.discard()
	if f.err == nil {
		f.err = fmt.Errorf("write %s: aborted", f.path)
	}
}

func (f *File) discard() {
	if f.stdout {
		return
	}
	f.f.Close()
	if f.tmp != "" {
		os.Remove(f.tmp)
	}
}

// syncDir makes a rename in dir durable (best effort: some file systems
// cannot sync a folder).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Write writes path with write (which receives the file's writer) and
// commits it: on any error, of write or of the file, nothing is left of
// the new content and the error is returned.
func Write(path string, write func(io.Writer) error) error {
	return WriteWith(path, Options{}, write)
}

// WriteWith is [Write] with options.
func WriteWith(path string, o Options, write func(io.Writer) error) error {
	f, err := CreateWith(path, o)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Abort()
		if f.err != nil && errors.Is(err, f.err) {
			return err
		}
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// WriteFile writes b to path (see [Write]).
func WriteFile(path string, b []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// IsSpecial reports whether path names standard output or an existing
// file that is not a regular file or folder (a device, FIFO or socket,
// also through a symlink): such a path is written directly.
func IsSpecial(path string) bool {
	if path == Stdout {
		return true
	}
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && !st.Mode().IsRegular()
}
