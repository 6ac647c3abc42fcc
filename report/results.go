package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"text/tabwriter"

	"github.com/rgnn/rgnn/experiment/store"
)

// columns returns the sorted parameter names and scalar/list metric names
// over the results.
func columns(rs []store.Result) (params, metrics []string) {
	ps, ms := map[string]bool{}, map[string]bool{}
	for _, r := range rs {
		for k := range r.Params {
			ps[k] = true
		}
		for k := range r.Metrics {
			ms[k] = true
		}
	}
	for k := range ps {
		params = append(params, k)
	}
	for k := range ms {
		metrics = append(metrics, k)
	}
	sort.Strings(params)
	sort.Strings(metrics)
	return params, metrics
}

func cell(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(t)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// WriteCSV writes results as CSV: one column per parameter and per
// scalar metric, list-valued metrics as JSON text.
func WriteCSV(w io.Writer, rs []store.Result) error {
	params, metrics := columns(rs)
	cw := csv.NewWriter(w)
	head := []string{"key", "kind", "experiment", "finished", "seconds"}
	head = append(head, params...)
	for _, m := range metrics {
		head = append(head, "metric."+m)
	}
	cw.Write(head)
	for _, r := range rs {
		row := []string{r.Key, r.Kind, r.Experiment, r.Finished.Format("2006-01-02T15:04:05Z07:00"), cell(r.Seconds)}
		for _, p := range params {
			row = append(row, cell(r.Params[p]))
		}
		for _, m := range metrics {
			row = append(row, cell(r.Metrics[m]))
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// writeResultsTable prints the parameters that vary between the listed
// results and the scalar headline metrics.
// WriteTable writes results as an aligned text table.
func WriteTable(w io.Writer, rs []store.Result) error {
	if len(rs) == 0 {
		fmt.Fprintln(w, "0 results")
		return nil
	}
	params, metrics := columns(rs)
	var vary []string
	for _, p := range params {
		first := cell(rs[0].Params[p])
		for _, r := range rs[1:] {
			if cell(r.Params[p]) != first {
				vary = append(vary, p)
				break
			}
		}
	}
	var scalar []string
	for _, m := range metrics {
		ok := false
		for _, r := range rs {
			if _, isNum := r.Metrics[m].(float64); isNum {
				ok = true
			}
		}
		if ok {
			scalar = append(scalar, m)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "KEY\tKIND")
	for _, p := range vary {
		fmt.Fprint(tw, "\t"+p)
	}
	for _, m := range scalar {
		fmt.Fprint(tw, "\t"+m)
	}
	fmt.Fprintln(tw)
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s", r.Key, r.Kind)
		for _, p := range vary {
			fmt.Fprint(tw, "\t"+cell(r.Params[p]))
		}
		for _, m := range scalar {
			s := ""
			if v, ok := r.Metrics[m].(float64); ok {
				s = strconv.FormatFloat(v, 'g', 5, 64)
			}
			fmt.Fprint(tw, "\t"+s)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%d results\n", len(rs))
	return nil
}
