package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ArtifactPath is where the artifact with this sha256 lives:
// artifacts/<first two hex digits>/<sha256>.npz. (Every artifact rgnn writes
// is an .npz file; the extension lets the npz readers accept it.)
func (s *Store) ArtifactPath(sha string) string {
	if len(sha) < 2 {
		return filepath.Join(s.art, "invalid")
	}
	return filepath.Join(s.art, sha[:2], sha+".npz")
}

// PutArtifact stores a file produced by write: write receives a temporary
// path in the artifact folder (it may itself write atomically), the file is
// hashed, synced and renamed to its content address. It returns the sha256.
// Identical content is stored once.
func (s *Store) PutArtifact(write func(path string) error) (string, error) {
	tmpDir := filepath.Join(s.art, "tmp")
	if err := os.MkdirAll(tmpDir, 0o755); err != nil {
		return "", fmt.Errorf("artifact: %w", err)
	}
	f, err := os.CreateTemp(tmpDir, "new-*.npz")
	if err != nil {
		return "", fmt.Errorf("artifact: %w", err)
	}
	tmp := f.Name()
	f.Close()
	defer os.Remove(tmp) // no-op after the rename
	if err := write(tmp); err != nil {
		return "", fmt.Errorf("artifact: %w", err)
	}
	sha, err := hashFile(tmp)
	if err != nil {
		return "", fmt.Errorf("artifact: %w", err)
	}
	if err := syncFile(tmp); err != nil {
		return "", fmt.Errorf("artifact: %w", err)
	}
	final := s.ArtifactPath(sha)
	if _, err := os.Stat(final); err == nil {
		return sha, nil // already stored
	}
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return "", fmt.Errorf("artifact: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return "", fmt.Errorf("artifact: %w", err)
	}
	if d, err := os.Open(filepath.Dir(final)); err == nil {
		d.Sync()
		d.Close()
	}
	return sha, nil
}

// OpenArtifact returns the path of a stored artifact after checking that its
// content still matches its address.
func (s *Store) OpenArtifact(sha string) (string, error) {
	if !validSHA(sha) {
		return "", fmt.Errorf("artifact %q: not a sha256", sha)
	}
	p := s.ArtifactPath(sha)
	got, err := hashFile(p)
	if err != nil {
		return "", fmt.Errorf("artifact %s: %w", sha, err)
	}
	if got != sha {
		return "", fmt.Errorf("artifact %s is corrupt (content hash %s)", p, got)
	}
	return p, nil
}

func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
