package data

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// FetchOptions control Fetch.
type FetchOptions struct {
	// URL overrides the registry URL (tests use a local server).
	URL string
	// Client is the HTTP client (default http.DefaultClient).
	Client *http.Client
	// Progress, if set, receives a short message per download.
	Progress io.Writer
}

// Fetch returns the path of a dataset in dir, downloading it if missing
// (from $RGNN_DATA_MIRROR when set, see [MirrorEnv]). A present file is
// verified against the registry checksum. For an OGB dataset the path is its
// folder, downloaded as a zip and extracted. A dataset that is absent and
// cannot be downloaded is a *[MissingError].
func Fetch(ctx context.Context, name, dir string, opts FetchOptions) (string, error) {
	info, err := Lookup(name)
	if err != nil {
		return "", err
	}
	if info.OGB != nil {
		opts.URL = downloadURL(info, opts)
		root, err := fetchOGB(ctx, info, dir, opts)
		return root, ogbMissing(ctx, info, dir, opts.URL, err)
	}
	path := filepath.Join(dir, info.File)
	if info.SHA256 == "" {
		return fetchRecorded(ctx, info, dir, path, opts)
	}
	if _, err := os.Stat(path); err == nil {
		sum, err := fileSHA256(path)
		if err != nil {
			return "", err
		}
		if sum != info.SHA256 {
			return "", fmt.Errorf("%s: sha256 %s does not match the registry's %s; delete the file to download it again", path, sum, info.SHA256)
		}
		return path, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	url := downloadURL(info, opts)
	if opts.Progress != nil {
		fmt.Fprintf(opts.Progress, "downloading %s from %s\n", info.File, url)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", missingError(ctx, info, dir, url, fmt.Errorf("create data dir: %w", err))
	}
	if err := download(ctx, opts.Client, url, path, info.SHA256); err != nil {
		return "", missingError(ctx, info, dir, url, err)
	}
	return path, nil
}

func download(ctx context.Context, client *http.Client, url, path, want string) error {
	return downloadTo(ctx, client, url, path, func(got string) error {
		if got != want {
			return fmt.Errorf("%s: sha256 %s, want %s (file discarded)", url, got, want)
		}
		return nil
	})
}

// downloadTo downloads url into a temporary file beside path, lets check
// judge its sha256 and renames it to path only if check accepts it.
func downloadTo(ctx context.Context, client *http.Client, url, path string, check func(sha256 string) error) error {
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %s", url, resp.Status)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".part*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), resp.Body)
	if err == nil && resp.ContentLength >= 0 && n != resp.ContentLength {
		err = fmt.Errorf("truncated body: %d of %d bytes", n, resp.ContentLength)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := check(hex.EncodeToString(h.Sum(nil))); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// shaSuffix names the file beside a dataset that records its sha256 when
// the registry has none.
const shaSuffix = ".sha256"

// fetchRecorded fetches a dataset whose sha256 the registry does not know:
// a file with a recorded sha256 must still match it; a new one (downloaded,
// or put there by hand) must have the registry's Shape, and its sha256 is
// then recorded.
func fetchRecorded(ctx context.Context, info Info, dir, path string, opts FetchOptions) (string, error) {
	record := path + shaSuffix
	if _, err := os.Stat(path); err == nil {
		sum, err := fileSHA256(path)
		if err != nil {
			return "", err
		}
		if b, err := os.ReadFile(record); err == nil {
			if want := strings.TrimSpace(string(b)); sum != want {
				return "", fmt.Errorf("%s: sha256 %s does not match the one recorded at its first use (%s, in %s); "+
					"delete both files to download it again", path, sum, want, record)
			}
			return path, nil
		}
		if err := checkShape(info, path); err != nil {
			return "", err
		}
		return path, os.WriteFile(record, []byte(sum+"\n"), 0o644)
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	url := downloadURL(info, opts)
	if opts.Progress != nil {
		fmt.Fprintf(opts.Progress, "downloading %s from %s\n", info.File, url)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", missingError(ctx, info, dir, url, fmt.Errorf("create data dir: %w", err))
	}
	var sum string
	if err := downloadTo(ctx, opts.Client, url, path, func(got string) error { sum = got; return nil }); err != nil {
		return "", missingError(ctx, info, dir, url, err)
	}
	if err := checkShape(info, path); err != nil {
		os.Remove(path)
		return "", fmt.Errorf("%s (file discarded): %w", url, err)
	}
	if opts.Progress != nil {
		fmt.Fprintf(opts.Progress, "%s: sha256 %s recorded in %s\n", info.File, sum, path+shaSuffix)
	}
	return path, os.WriteFile(record, []byte(sum+"\n"), 0o644)
}

// checkShape loads path and compares it with info.Shape (or has
// info.Check judge it).
func checkShape(info Info, path string) error {
	if info.Check != nil {
		return info.Check(path)
	}
	if info.Shape == nil {
		return nil
	}
	g, err := LoadFile(path, false)
	if err != nil {
		return err
	}
	want := *info.Shape
	got := Shape{Nodes: g.NumNodes(), Edges: g.NumEdges(), Features: g.Features.Cols, Classes: g.NumClasses}
	if got != want {
		return fmt.Errorf("%s: %d nodes, %d edges, %d features, %d classes after taking the largest connected component; "+
			"%s has %d, %d, %d, %d", path, got.Nodes, got.Edges, got.Features, got.Classes, info.Name,
			want.Nodes, want.Edges, want.Features, want.Classes)
	}
	return nil
}
