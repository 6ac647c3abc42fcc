package store

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// CopyResults copies the results of src matching f into dst with the
// artifacts they name (each checked against its content hash on the way).
// A result whose key dst already has is skipped: copying twice, or both
// ways, never duplicates one. It returns how many were copied and skipped.
func CopyResults(ctx context.Context, dst, src *Store, f Filter) (copied, skipped int, err error) {
	rs, err := src.Query(ctx, f)
	if err != nil {
		return 0, 0, err
	}
	keys := make([]string, len(rs))
	for i, r := range rs {
		keys[i] = r.Key
	}
	have, err := dst.Has(ctx, keys)
	if err != nil {
		return 0, 0, err
	}
	for _, r := range rs {
		if have[r.Key] {
			skipped++
			continue
		}
		for name, sha := range r.Artifacts {
			from, err := src.OpenArtifact(sha)
			if err != nil {
				return copied, skipped, fmt.Errorf("result %s artifact %s: %w", r.Key, name, err)
			}
			got, err := dst.PutArtifact(func(to string) error { return copyFile(from, to) })
			if err != nil {
				return copied, skipped, err
			}
			if got != sha {
				return copied, skipped, fmt.Errorf("result %s artifact %s: copied content hash %s", r.Key, name, got)
			}
		}
		ok, err := dst.Put(ctx, r)
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

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// IsTiming reports whether a metric is a measured duration (train_seconds,
// attack_seconds, ms_per_epoch, ...), which differs between runs of the same
// parameters; every other metric is a deterministic function of them.
func IsTiming(metric string) bool {
	return strings.Contains(metric, "seconds") || strings.HasPrefix(metric, "ms_")
}

// DiffMetrics compares two sets of results by key: it returns one line per
// key found in only one of them and per key whose kind, parameters or
// metrics differ (as canonical JSON, so bit for bit for numbers). Timing
// metrics (IsTiming), run times, experiment names and artifacts are not
// compared.
func DiffMetrics(a, b []Result) []string {
	index := func(rs []Result) map[string]Result {
		m := make(map[string]Result, len(rs))
		for _, r := range rs {
			m[r.Key] = r
		}
		return m
	}
	ma, mb := index(a), index(b)
	var out []string
	for k, ra := range ma {
		rb, ok := mb[k]
		if !ok {
			out = append(out, fmt.Sprintf("%s (%s): only in the first", k, ra.Kind))
			continue
		}
		pa, _ := Canonical(ra.Params)
		pb, _ := Canonical(rb.Params)
		xa, _ := json.Marshal(untimed(ra.Metrics))
		xb, _ := json.Marshal(untimed(rb.Metrics))
		switch {
		case ra.Kind != rb.Kind || pa != pb:
			out = append(out, fmt.Sprintf("%s: kind or parameters differ", k))
		case string(xa) != string(xb):
			out = append(out, fmt.Sprintf("%s (%s): metrics differ", k, ra.Kind))
		}
	}
	for k, rb := range mb {
		if _, ok := ma[k]; !ok {
			out = append(out, fmt.Sprintf("%s (%s): only in the second", k, rb.Kind))
		}
	}
	sort.Strings(out)
	return out
}

func untimed(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if !IsTiming(k) {
			out[k] = v
		}
	}
	return out
}
