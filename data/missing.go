package data

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// MirrorEnv names the environment variable of a dataset mirror: a base URL
// under which every registered file is found by its file name (a web
// server on a cluster without internet access, say). When it is set,
// downloads go there instead of to the registry's URLs; checksums are
// verified as always.
const MirrorEnv = "RGNN_DATA_MIRROR"

// downloadURL is where a dataset is downloaded from: opts.URL, else the
// mirror of $RGNN_DATA_MIRROR, else the registry's URL.
func downloadURL(info Info, opts FetchOptions) string {
	if opts.URL != "" {
		return opts.URL
	}
	if m := os.Getenv(MirrorEnv); m != "" {
		return strings.TrimSuffix(m, "/") + "/" + info.File
	}
	return info.URL
}

// MissingError reports a registered dataset that is not in the data
// directory and could not be downloaded into it. Its message names the
// dataset, the directory looked in (and what chose it), the places that
// were not looked in, and the two ways to provide the file. A grid of runs
// stops at the first one (every later run would fail the same way).
type MissingError struct {
	Dataset string
	File    string // the file (for an OGB dataset: the folder) expected in Dir
	Dir     string // the directory looked in
	// From says what chose Dir: "--data-dir", "$RGNN_DATA_DIR" or "the
	// user cache dir" ("" when the caller named the directory: Fetch).
	From string
	// NotLooked lists the places that apply but come after Dir, e.g.
	// "$RGNN_DATA_DIR (/data)".
	NotLooked []string
	URL       string // where the download was tried
	SHA256    string // the file's checksum ("" for OGB datasets)
	Err       error  // why the download failed
	zip       string // OGB: the zip the folder is extracted from
}

func (e *MissingError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "dataset %s is not available\n", e.Dataset)
	fmt.Fprintf(&b, "  looked in: %s", e.Dir)
	if e.From != "" {
		fmt.Fprintf(&b, " (%s)", e.From)
	}
	fmt.Fprintf(&b, "\n  %s is not there, and downloading it failed: %v\n", e.File, e.Err)
	if len(e.NotLooked) > 0 {
		fmt.Fprintf(&b, "  not looked in: %s (%s comes first)\n", strings.Join(e.NotLooked, ", "), e.From)
	}
	what := e.File
	if e.SHA256 != "" {
		what += " (sha256 " + e.SHA256 + ")"
	}
	if e.zip != "" {
		what = "the folder " + e.File + " (" + e.zip + " from " + e.URL + ", extracted)"
	}
	fmt.Fprintf(&b, "fix it in one of two ways:\n")
	fmt.Fprintf(&b, "  - run `rgnn data fetch --dataset %s` on a machine with network access and copy %s from its data directory into %s\n",
		e.Dataset, e.File, e.Dir)
	fmt.Fprintf(&b, "  - or put %s into %s", what, e.Dir)
	return b.String()
}

func (e *MissingError) Unwrap() error { return e.Err }

// missingError is the error of a dataset absent from dir whose download
// failed with err; a cancelled download is returned as such.
func missingError(ctx context.Context, info Info, dir, url string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("download %s: %w", info.Name, err)
	}
	e := &MissingError{Dataset: info.Name, File: info.File, Dir: dir, URL: url, SHA256: info.SHA256, Err: err}
	if info.OGB != nil {
		e.File, e.zip = info.OGB.Dir, info.File
	}
	return e
}

// located fills in what chose the directory of a *MissingError err (Load
// knows, Fetch does not); other errors are returned as they are.
func located(err error, p place, notLooked []place) error {
	if e, ok := err.(*MissingError); ok {
		e.From = p.from
		for _, q := range notLooked {
			e.NotLooked = append(e.NotLooked, q.String())
		}
	}
	return err
}

// ogbMissing turns the error of fetching an OGB dataset whose folder is not
// in dir into a *MissingError (the folder's absence says the download or
// its extraction failed); other errors are returned as they are.
func ogbMissing(ctx context.Context, info Info, dir, url string, err error) error {
	if err == nil {
		return nil
	}
	if _, serr := os.Stat(filepath.Join(dir, info.OGB.Dir)); !errors.Is(serr, os.ErrNotExist) {
		return err
	}
	if u := errors.Unwrap(err); u != nil {
		err = u // drop fetchOGB's "download <name>:"
	}
	return missingError(ctx, info, dir, url, err)
}
