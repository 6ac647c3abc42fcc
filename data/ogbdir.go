package data

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// IsOGBFolder reports whether dir is a folder in OGB's node-property layout
// (it holds raw/num-node-list.csv.gz).
func IsOGBFolder(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "raw", "num-node-list.csv.gz"))
	return err == nil && !st.IsDir()
}

// OGBFolderInfo describes an OGB node-property folder of any name and size:
// its split is the one folder under split/ (or the one named), its sizes
// are those its num-node-list and num-edge-list files state. Unlike the
// registered OGB datasets, nothing is compared with published sizes.
func OGBFolderInfo(dir, split string) (Info, error) {
	if !IsOGBFolder(dir) {
		return Info{}, fmt.Errorf("%s: not an OGB node-property folder (no raw/num-node-list.csv.gz); "+
			"give the folder OGB's loader extracts (raw/*.csv.gz, split/<name>/*.csv.gz)", dir)
	}
	if split == "" {
		entries, err := os.ReadDir(filepath.Join(dir, "split"))
		if err != nil {
			return Info{}, fmt.Errorf("%s: no split folder: %w", dir, err)
		}
		var names []string
		for _, e := range entries {
			if e.IsDir() {
				names = append(names, e.Name())
			}
		}
		sort.Strings(names)
		switch len(names) {
		case 0:
			return Info{}, fmt.Errorf("%s: split/ holds no split folder", dir)
		case 1:
			split = names[0]
		default:
			return Info{}, fmt.Errorf("%s: split/ holds several splits (%s): name one", dir, strings.Join(names, ", "))
		}
	}
	o := &OGBInfo{Dir: filepath.Base(dir), Split: split}
	if _, err := os.Stat(filepath.Join(dir, "raw", "node_year.csv.gz")); err == nil {
		o.Year = true
	}
	if m := o.missing(dir); m != "" {
		return Info{}, fmt.Errorf("%s: %s is missing, not an OGB node-property dataset", dir, m)
	}
	return Info{Name: filepath.Base(filepath.Clean(dir)), OGB: o, Source: "OGB folder " + dir}, nil
}

// LoadOGBFolder loads an OGB node-property folder of any name and size
// (OGBFolderInfo): every node kept, edges made undirected without self
// loops or repeats, the folder's split. Like a registered OGB dataset it is
// converted once into a checksummed binary cache beside the files (when
// the folder is writable).
func LoadOGBFolder(ctx context.Context, dir, split string, binaryAttr bool, progress io.Writer) (*Graph, error) {
	info, err := OGBFolderInfo(dir, split)
	if err != nil {
		return nil, err
	}
	fp, err := ogbFingerprint(dir, info.OGB)
	if err != nil {
		return nil, err
	}
	cache := filepath.Join(dir, ogbCacheFile)
	g, cerr := readCache(cache, fp)
	if cerr != nil {
		if progress != nil && !errors.Is(cerr, os.ErrNotExist) {
			fmt.Fprintf(progress, "rebuilding %s: %v\n", cache, cerr)
		}
		if g, err = parseOGB(ctx, dir, info); err != nil {
			return nil, err
		}
		if err := writeCache(cache, fp, g); err != nil && progress != nil {
			fmt.Fprintf(progress, "not cached: %v\n", err)
		}
	}
	g.Name, g.Path = info.Name, dir
	if binaryAttr {
		for i, v := range g.Features.Values {
			if v != 0 {
				g.Features.Values[i] = 1
			}
		}
	}
	return g, nil
}
