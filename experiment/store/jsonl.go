package store

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rgnn/rgnn/internal/outfile"
)

// Results files: one result per line as JSON (the Result fields: key,
// kind, experiment, params, metrics, artifact hashes, times), gzipped when
// the name ends in .gz. They carry no artifact files, so they are small
// enough to publish or keep in a repository next to a rendered report; a
// store that imports one (ImportResults) recomputes an artifact only when a
// run needs it.

// IsResultsFile reports whether path names a results file (.jsonl or
// .jsonl.gz) rather than a store.
func IsResultsFile(path string) bool {
	return strings.HasSuffix(path, ".jsonl") || strings.HasSuffix(path, ".jsonl.gz")
}

// WriteResultsFile writes rs to path through package outfile (a regular
// file atomically: a temporary file synced and renamed over it; a special
// file or "-" directly).
func WriteResultsFile(path string, rs []Result) error {
	err := outfile.Write(path, func(out io.Writer) error {
		w := out
		var zw *gzip.Writer
		if strings.HasSuffix(path, ".gz") {
			zw = gzip.NewWriter(out)
			w = zw
		}
		bw := bufio.NewWriter(w)
		enc := json.NewEncoder(bw)
		for _, r := range rs {
			if err := enc.Encode(r); err != nil {
				return fmt.Errorf("result %s: %w", r.Key, err)
			}
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		if zw != nil {
			return zw.Close()
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("results file: %w", err)
	}
	return nil
}

// ReadResultsFile reads a results file. Every line must be a result whose
// key is the key of its kind and parameters (Key), so a file edited by hand
// or cut short is refused with the line named, before anything is stored.
func ReadResultsFile(path string) ([]Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("results file: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("results file %s: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 256<<20)
	var out []Result
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var res Result
		if err := json.Unmarshal([]byte(text), &res); err != nil {
			return nil, fmt.Errorf("results file %s line %d: %w", path, line, err)
		}
		want, err := Key(res.Kind, res.Params)
		if err != nil {
			return nil, fmt.Errorf("results file %s line %d: %w", path, line, err)
		}
		if res.Kind == "" || res.Key != want {
			return nil, fmt.Errorf("results file %s line %d: key %q is not the key of its kind %q and parameters (%s)",
				path, line, res.Key, res.Kind, want)
		}
		for name, sha := range res.Artifacts {
			if !validSHA(sha) {
				return nil, fmt.Errorf("results file %s line %d: artifact %s: %q is not a sha256", path, line, name, sha)
			}
		}
		out = append(out, res)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("results file %s: %w", path, err)
	}
	return out, nil
}

// ImportResults stores rs (from ReadResultsFile) without their artifact
// files (PutWithoutArtifacts), skipping keys the store has. It returns how
// many were stored and skipped.
func ImportResults(ctx context.Context, dst *Store, rs []Result) (copied, skipped int, err error) {
	for _, r := range rs {
		ok, err := dst.PutWithoutArtifacts(ctx, r)
		if err != nil {
			return copied, skipped, err
		}
		if ok {
			copied++
		} else {
			skipped++
		}
	}
	return copied, skipped, nil
}

// validSHA reports whether s is a lowercase hex sha256.
func validSHA(s string) bool {
	return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == ""
}
